"""Run a pipeline over a column of values in batches, with progress and a report.

Adapters (list, pandas, datasets) turn their input into a list of values and hand it here;
this module checks the texts, batches the ones worth augmenting, runs the pipeline, and
counts what happened. Per-row seeding makes the result independent of ``batch_size``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from augkit.engine.run_options import DEFAULT_BATCH_SIZE, RunOptions
from augkit.engine.termination import stop_if_terminated
from augkit.engine.workers import run_batches
from augkit.pipeline.calibrate import Preparation
from augkit.pipeline.pipeline import Pipeline
from augkit.protection.reading import ProtectionRequest, RunProtection, read_rows
from augkit.reporting.report import AugmentationReport
from augkit.reporting.trace import TraceEntry, no_candidate
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.inputs import prepare_texts
from augkit.terminal.progress import progress_bar, run_progress

__all__ = ["DEFAULT_BATCH_SIZE", "EngineResult", "RunOptions", "prepare_pipeline", "run_pipeline"]


@dataclass
class EngineResult:
    """Candidates per input value (empty for skipped ones), why each value that got none got
    none (None for the others), the run's counts, and per value what each pipeline step did
    (:attr:`Pipeline.count_names`; zeros for values not augmented)."""

    candidates: list[list[Candidate]]
    report: AugmentationReport
    reasons: list[str | None]
    counts: list[tuple[int, ...]]
    #: Per input value, every candidate generated and its fate (``options.trace``; else None).
    traces: list[list[TraceEntry]] | None = None
    #: Per input value, its protected spans and whether its protect value was BIO tags.
    protection: RunProtection | None = None


def run_pipeline(
    pipeline: Pipeline,
    values: Sequence[Any],
    options: RunOptions,
    *,
    describe_row: Callable[[int], str],
    labels: Sequence[Any] | None = None,
    columns: Mapping[str, Sequence[Any]] | None = None,
    prepared: bool = False,
    on_rows: Callable[[int], None] | None = None,
    protect_values: Sequence[Any] | None = None,
    protect_column: str | None = None,
    row_names: Sequence[Any] | None = None,
) -> EngineResult:
    """Augment every usable row of ``values`` (a text, and a label when ``labels`` are given)
    with ``pipeline``, in batches of ``options.batch_size``, in this process or in
    ``options.workers`` worker processes. The pipeline's filters first see all the usable rows (:meth:`Pipeline.prepare`) unless ``prepared``
    says the caller did that already, over a larger whole than ``values``. ``on_rows(k)``
    is told of every ``k`` rows done, for a caller that shows a bar over several calls
    (then this call draws none). ``columns`` holds the rows' context columns by logical name
    (aligned with ``values``), for augmenters that read them. ``protect_values`` holds the
    protect column's values (``protect_column``), aligned with ``values``: with the run's
    ``protect`` phrases and codes, they make each row's protected spans. The report names the
    first rows that failed or had no label by their position here (adapters rename them).
    The pipeline's dataset filters run here, on each batch's outcome as it comes back, in row
    order (:meth:`Pipeline.select_in_row_order`); their drop reasons name a row by its
    ``row_names`` entry (the caller's index labels; default: its position)."""
    n, batch_size = options.n, options.batch_size
    texts, skips = prepare_texts(values, describe_row=describe_row, coerce=options.coerce, labels=labels)
    protection = read_rows(texts, protect_values, protection_request(options, protect_column), describe_row)
    report = AugmentationReport(rows_read=len(values), n=n, seed=options.seed)  # a run's report holds the seed it ran with
    traces: list[list[TraceEntry]] | None = [[] for _ in values] if options.trace else None
    candidates: list[list[Candidate]] = [[] for _ in values]
    nothing = (0,) * len(pipeline.count_names)
    counts: list[tuple[int, ...]] = [nothing for _ in values]
    reasons: list[str | None] = list(skips)
    todo = [i for i, text in enumerate(texts) if text is not None]
    for index, reason in enumerate(skips):
        if reason is not None:
            report.without_augmentation[reason] += 1
    with run_progress(options.progress) as shown, progress_bar(len(values), shown=shown and on_rows is None, description=pipeline.name) as bar:
        advance = on_rows or bar.update
        advance(len(values) - len(todo))
        if n > 0:
            row_context = BatchContext(labels=labels, columns=dict(columns or {}), protected=protection.spans)
            if not prepared:
                _prepare(pipeline, texts, row_context, todo, n=n, seed=options.seed)
            positions = [todo[start : start + batch_size] for start in range(0, len(todo), batch_size)]
            batches = (([texts[i] for i in batch], row_context.take(batch)) for batch in positions)
            # strict: after the last batch, the outcomes are read to their end, so that a worker pool
            # finishes as a finished run (not as one stopped early, whose workers are killed)
            gathered = bool(pipeline.dataset_filters)
            names = range(len(values)) if row_names is None else row_names
            for batch, outcome in zip(positions, run_batches(pipeline, batches, options, total=len(positions)), strict=True):
                if gathered:
                    outcome = pipeline.select_in_row_order(outcome, n, row_context.take(batch).labels,
                                                           [names[i] for i in batch], [texts[i] for i in batch])
                if traces is not None:
                    for index, entries in zip(batch, outcome.traces):
                        for entry in entries:
                            entry.source = index
                        traces[index] = entries
                for index, row, reason, row_counts in zip(batch, outcome.candidates, outcome.reasons, outcome.counts):
                    candidates[index] = row
                    counts[index] = row_counts
                    if not row:
                        reasons[index] = reason or "no candidate"
                        report.without_augmentation[reasons[index]] += 1
                advance(len(batch))
                stop_if_terminated()
        else:
            advance(len(todo))
    if traces is not None:
        for index, reason in enumerate(reasons):
            if reason is not None and not traces[index]:
                traces[index] = [no_candidate(pipeline.name, reason, index)]
    report.note_examples(reasons, values, range(len(values)))
    report.rows_augmented = sum(map(bool, candidates))
    report.augmentations = sum(map(len, candidates))
    report.candidates = dict(zip(pipeline.count_names, map(sum, zip(nothing, *counts))))
    return EngineResult(candidates, report, reasons, counts, traces, protection)


def prepare_pipeline(
    pipeline: Pipeline,
    values: Sequence[Any],
    *,
    describe_row: Callable[[int], str],
    coerce: bool = False,
    labels: Sequence[Any] | None = None,
    columns: Mapping[str, Sequence[Any]] | None = None,
    n: int = 1,
    seed: int = 0,
    protection: ProtectionRequest | None = None,
    protect_values: Sequence[Any] | None = None,
) -> None:
    """Show the pipeline's steps every usable text of ``values`` at once (with their labels,
    context columns and protected spans: ``protection`` and the protect column's
    ``protect_values``), for callers that then run it over parts of ``values``
    (``run_pipeline(..., prepared=True)``); steps that calibrate on candidates get those of
    the run's ``n`` and ``seed``."""
    texts, _ = prepare_texts(values, describe_row=describe_row, coerce=coerce, labels=labels)
    protected = read_rows(texts, protect_values, protection or ProtectionRequest(), describe_row).spans
    _prepare(pipeline, texts, BatchContext(labels=labels, columns=dict(columns or {}), protected=protected),
             [i for i, text in enumerate(texts) if text is not None], n=n, seed=seed)


def _prepare(pipeline: Pipeline, texts: list, context: BatchContext, todo: list[int], *, n: int, seed: int) -> None:
    if pipeline.preparation is Preparation.NONE:
        return  # no step does anything in prepare: skip building the whole run's lists
    usable = context.take(todo)
    pipeline.prepare([texts[i] for i in todo], usable.labels, usable.columns, n=n, seed=seed, protected=usable.protected)


def protection_request(options: RunOptions, column: str | None) -> ProtectionRequest:
    """What a run protects: its options' phrases and codes, and the protect column."""
    return ProtectionRequest(options.protect, options.protect_codes, column)
