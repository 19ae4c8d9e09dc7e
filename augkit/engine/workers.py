"""Run pipeline batches in this process or in a pool of worker processes.

Output does not depend on the number of workers: every row's randomness comes from its own
seeded generator (see :mod:`augkit.seeding`), and batches come back in input order.

Workers are forked on Linux (fast to start, and they inherit augmenters defined in a
notebook); elsewhere they are spawned, which requires the pipeline to be picklable and its
augmenter classes importable.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor

from augkit.engine.parent_death import end_with_parent
from augkit.engine.run_options import RunOptions
from augkit.engine.termination import deferred_termination
from augkit.pipeline.pipeline import Pipeline
from augkit.pipeline.run import BatchOutcome
from augkit.reporting.trace import entry_from_tuple
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext

#: (texts, their labels and context columns) of one batch.
Batch = tuple[list[str], BatchContext]

_worker_pipeline: Pipeline | None = None


def run_batches(
    pipeline: Pipeline, batches: Iterable[Batch], options: RunOptions, total: int | None = None
) -> Iterator[BatchOutcome]:
    """Outcomes of :meth:`Pipeline.run_batch` for each batch, in order, run as ``options``
    say (``n``, ``seed``, ``workers``, ``strict``, ``row_timeout``, ``trace``), without the
    pipeline's dataset filters (:meth:`Pipeline.select_in_row_order` is the caller's). ``total`` (the
    number of batches, when known) lets small jobs spread over every worker."""
    workers = options.workers
    if workers == 1:
        for texts, batch_context in batches:
            yield _run(pipeline, texts, batch_context, options)
        return
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    threads = max(1, (os.cpu_count() or 1) // workers)
    # SIGTERM raised at an arbitrary point of the pool's machinery (its fork hooks, its queue
    # locks) is lost or deadlocks it: while the pool runs, it is only remembered, and the
    # caller stops at its next batch boundary (augkit.engine.termination.stop_if_terminated).
    with deferred_termination():
        # the workers are forked by this thread, at their first task (_start_workers)
        forked_by_main_thread = threading.current_thread() is threading.main_thread()
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_set_worker_pipeline,
                                   initargs=(pipeline, threads, _signal_mask(), os.getpid(), forked_by_main_thread))
        finished = False
        try:
            _start_workers(pool)
            tasks = ((texts, batch_context, options) for texts, batch_context in batches)
            chunksize = 16 if total is None else max(1, min(16, total // (workers * 4)))
            for rows, reasons, counts, traces in pool.map(_run_in_worker, tasks, chunksize=chunksize):
                yield BatchOutcome([[Candidate(*fields) for fields in row] for row in rows], reasons, counts,
                                   None if traces is None else [[entry_from_tuple(t) for t in row] for row in traces])
            finished = True
        finally:
            if not finished:  # stopped early (an error, Ctrl-C, SIGTERM): their work is not wanted
                _stop_workers(pool)
            pool.shutdown(wait=True, cancel_futures=True)


#: Signals whose Python handlers a worker must not run before it is set up: the parent's
#: handlers (augkit's, or one a library installed, as ``ray.init`` does for SIGTERM with
#: ``sys.exit``) raise, and an exception raised in a just-forked child before
#: multiprocessing's ``_bootstrap`` takes over escapes into the copy of the parent's stack:
#: the worker then runs on as a second copy of the caller's program.
_HELD_AT_FORK = frozenset(getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGALRM") if hasattr(signal, name))
_CAN_HOLD = hasattr(signal, "pthread_sigmask")  # not on Windows, where workers are spawned


def _start_workers(pool: ProcessPoolExecutor) -> None:
    """Fork the pool's workers now, with the held signals blocked: a signal sent meanwhile
    waits (in the parent, and in a worker until :func:`_set_worker_pipeline` has put its
    handlers right) instead of running a handler at a point that cannot take it."""
    if not _CAN_HOLD:
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_AT_FORK)
    try:
        pool.submit(int).result()  # a fork pool starts every worker at its first task
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _signal_mask() -> frozenset[int] | None:
    """The signals this thread blocks now (None where signal masks do not exist)."""
    return frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, ())) if _CAN_HOLD else None


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool's worker processes now rather than after the batches they hold."""
    for process in list(getattr(pool, "_processes", {}).values()):  # no public way to reach them
        if process.is_alive():
            process.terminate()


def _set_worker_pipeline(pipeline: Pipeline, threads: int, signal_mask: frozenset[int] | None, parent: int,
                         forked_by_main_thread: bool) -> None:
    """Worker start: end with the parent (:mod:`augkit.engine.parent_death`: a parent killed with
    SIGKILL left its workers blocked on their task pipe for good), keep the pipeline, and share
    the cores among workers. Model-backed filters compute with torch, whose thread pool would
    otherwise claim every core in every worker, and oversubscribed cores make it many times
    slower."""
    global _worker_pipeline
    end_with_parent(parent, forked_by_main_thread=forked_by_main_thread)
    _worker_pipeline = pipeline
    # SIGTERM ends a worker as it means (its parent reports the run's end), whatever handler
    # the parent had; then the signals held while it was forked are let in (the caller's
    # own mask is kept).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if signal_mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, signal_mask)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def _run(pipeline: Pipeline, texts: list[str], batch_context: BatchContext, options: RunOptions) -> BatchOutcome:
    # the pipeline's dataset filters are left to the caller, which sees every batch in order
    return pipeline.run_batch(texts, options.n, options.seed, batch_context, trace=options.trace,
                              strict=options.strict, row_timeout=options.row_timeout, dataset_filters=False)


def _run_in_worker(task: tuple) -> tuple:
    texts, batch_context, options = task
    outcome = _run(_worker_pipeline, texts, batch_context, options)
    # Plain tuples pickle faster than Candidate objects on the way back.
    traces = None if outcome.traces is None else [[e.as_tuple() for e in row] for row in outcome.traces]
    return [[(c.text, c.method, c.scores, c.fields, c.label) for c in row] for row in outcome.candidates], outcome.reasons, outcome.counts, traces
