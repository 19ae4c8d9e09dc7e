"""Running one batch through a pipeline's steps: generation, each filter in order, at most ``n``
kept per text, the reason a text got none, the counts per step, and (``trace=True``) every
candidate's fate. A batch that fails or runs out of time is run again row by row, so one bad
row costs only itself; ``strict`` stops instead, naming the row."""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from augkit.errors import AugmentationFailedError, AugmenterOutputError, UsageError
from augkit.pipeline.checks import checked_filter_output, plural
from augkit.pipeline.time_limit import TimeLimit, TimeLimitExceeded
from augkit.reporting.report import failure_reason
from augkit.reporting.trace import TraceEntry
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.drop_reasons import keep_first
from augkit.steps.filter import Filter
from augkit.steps.generated_row import USAGE_PREFIX, notes_of

NOTHING_GENERATED = "augmenter returned nothing"

#: A failed row's reason when its augmenter gave none (:attr:`GeneratedRow.failed`).
NOTHING_USABLE = "the augmenter could not produce a candidate"

#: The first and last of :attr:`Pipeline.count_names`.
GENERATED, BEYOND_N = "generated", "beyond n"



@dataclass
class BatchOutcome:
    """What a pipeline made of a batch, per text: the candidates kept (at most ``n``), why a
    text got none (None when it got some), and counts aligned with
    :attr:`Pipeline.count_names`: candidates generated, dropped by each filter, and cut
    beyond ``n``."""

    candidates: list[list[Candidate]]
    reasons: list[str | None]
    counts: list[tuple[int, ...]]
    #: Per text, every candidate generated and its fate (:mod:`augkit.reporting.trace`); None unless
    #: the batch ran with ``trace=True``.
    traces: list[list[TraceEntry]] | None = None
    #: Per text, what a step could not produce for it (a :attr:`GeneratedRow.failed` row's
    #: reason), even when other steps gave the text candidates; None for the others. Read by
    #: ``strict``; not carried out of the process that ran the batch.
    failures: list[str | None] | None = None



@dataclass(frozen=True)
class RunSettings:
    """How one :meth:`Pipeline.run_batch` call runs: with or without a trace, strict or
    not, and its row time limit."""

    trace: bool = False
    strict: bool = False
    row_timeout: float | None = None



@dataclass(frozen=True)
class BatchSteps:
    """What a batch runs, as the pipeline hands it over: its generator (texts, n, seed, context ->
    candidates per text), its filters in order by their names in the counts and the trace
    (:attr:`~augkit.Pipeline.named_steps`: ``semantic#2`` for a second use), and the usage names
    its augmenters report."""

    generate: Callable[[list[str], int, int, BatchContext], list[list[Candidate]]]
    named_steps: Mapping[str, Filter]
    usage_names: tuple[str, ...]
    #: The names of the last steps, dataset filters, that the batch leaves (with the cut to
    #: ``n``) to the process gathering its outcome (:mod:`augkit.pipeline.row_order`): their
    #: counts and ``beyond n`` stay 0, and every candidate that passed the others is returned.
    gathered: tuple[str, ...] = ()

    @property
    def count_width(self) -> int:
        """How many counts a text has: generated, one per filter, beyond n, the usage names."""
        return len(self.named_steps) + 2 + len(self.usage_names)


def run_batch(steps: BatchSteps, texts: list[str], n: int, seed: int, context: BatchContext, run: RunSettings) -> BatchOutcome:
    limit = TimeLimit(run.row_timeout)
    try:
        outcome = limit.run(lambda: _run_once(steps, texts, n, seed, context, run.trace))
    except UsageError:
        raise  # configuration and input errors concern every row: stop
    except Exception as error:
        failure: BaseException = error
    except TimeLimitExceeded as error:
        if not limit.raised(error):
            raise  # an outer limit's (a pipeline running this one): its owner decides
        failure = error
    else:
        if run.strict:
            stop_on_failures(texts, outcome.failures)
        return outcome
    if len(texts) > 1:  # find the failing rows; per-row seeds keep the others' output unchanged
        return _run_row_by_row(steps, texts, n, seed, context, run)
    return _row_failed(steps, texts[0], failure, run)


def _run_row_by_row(steps: BatchSteps, texts: list[str], n: int, seed: int, context: BatchContext, run: RunSettings) -> BatchOutcome:
    outcome = BatchOutcome([], [], [], [] if run.trace else None)
    for index, text in enumerate(texts):
        row = run_batch(steps, [text], n, seed, context.take([index]), run)
        outcome.candidates += row.candidates
        outcome.reasons += row.reasons
        outcome.counts += row.counts
        if outcome.traces is not None:
            outcome.traces += row.traces
    return outcome


def _row_failed(steps: BatchSteps, text: str, error: BaseException, run: RunSettings) -> BatchOutcome:
    """The result of a row an augmenter or filter failed on, or (strict) the error naming it."""
    if isinstance(error, TimeLimitExceeded):
        kind = f"timed out after {error.seconds:g} s"
        detail = f"{kind} (row_timeout)" + (f", in {error.where}" if error.where else "")
    elif isinstance(error, AugmenterOutputError):
        kind, detail = error.kind, f"failed: {error}"
    else:
        kind, detail = type(error).__name__, f"failed with {type(error).__name__}: {str(error)[:200]}"
    if run.strict:
        raise AugmentationFailedError(f"augmenting {text[:80]!r} {detail}") from error
    # one reason per kind of failure, so the summary stays short; strict shows the detail
    # (a failed row counts nothing, and traces nothing: what its steps did before the
    # failure is not kept)
    return BatchOutcome([[]], [failure_reason(f"{kind}; strict mode stops and shows it")],
                        [(0,) * steps.count_width], [[]] if run.trace else None)


def _run_once(steps: BatchSteps, texts: list[str], n: int, seed: int, context: BatchContext, trace: bool = False) -> BatchOutcome:
    candidates = steps.generate(texts, n, seed, context)
    usage = _row_usage(steps.usage_names, candidates) if steps.usage_names else None  # the notes are on the generated rows
    notes = [notes_of(row) for row in candidates]
    failures = [(note.reason or NOTHING_USABLE) if note.failed else None for note in notes]
    reasons: list[str | None] = [
        None if row else failure_reason(failed) if failed else (note.reason or NOTHING_GENERATED)
        for row, note, failed in zip(candidates, notes, failures)
    ]
    sizes = list(map(len, candidates))
    columns = [sizes]  # one list per count name, one value per text: zipped into rows at the end
    fates = Fates(candidates) if trace else None
    for step_name, step in steps.named_steps.items():
        if step_name in steps.gathered:
            columns.append([0] * len(texts))
            continue
        before = candidates
        candidates = checked_filter_output(step, step.filter_batch(texts, before, context), before)
        left = list(map(len, candidates))
        columns.append(list(map(operator.sub, sizes, left)))
        for index, size in enumerate(left):
            if not size and reasons[index] is None:
                reasons[index] = f"all candidates removed by filter {step.name!r}"
        if fates is not None:
            fates.dropped(before, candidates, step_name, texts, step)
        sizes = left
    if steps.gathered:  # the gathering process cuts to n, after the dataset filters
        kept, sizes = candidates, [0] * len(texts)
    else:
        kept = [keep_first(row, n, "n", what="place") for row in candidates]  # a cut one says its place
    columns.append([size - n if size > n else 0 for size in sizes])
    if usage:
        columns.extend(zip(*usage))
    if fates is not None and not steps.gathered:
        fates.dropped(candidates, kept, BEYOND_N)
    return BatchOutcome(kept, reasons, list(zip(*columns)), fates.entries() if fates is not None else None,
                        failures if any(failures) else None)


def _row_usage(names: tuple[str, ...], rows: list[list[Candidate]]) -> list[list[int]]:
    """Each row's usage values, in :attr:`usage_names` order (0 where a step reported none)."""
    if not names:
        return [[] for _ in rows]
    out = []
    for row in rows:
        values = dict.fromkeys(names, 0)
        for name, value in notes_of(row).usage.items():
            values[f"{USAGE_PREFIX}{name}"] += int(value)
        out.append(list(values.values()))
    return out


class Fates:
    """The trace of one batch under construction: every generated candidate, in generation
    order, and the step that dropped it. Filters return the candidate objects they keep, so
    a dropped candidate is one whose object is missing from a step's output (a filter that
    returns new objects is matched by text)."""

    def __init__(self, generated: list[list[Candidate]]):
        self._rows = [[TraceEntry(c.method, c.text, c.scores) for c in row] for row in generated]
        self._entry_of = [{id(c): entry for c, entry in zip(row, entries)} for row, entries in zip(generated, self._rows)]
        self._alive: list[list[Candidate]] = [*generated]  # ids stay unique while their objects live

    def dropped(self, before: list[list[Candidate]], after: list[list[Candidate]], step: str,
                sources: Sequence[str] = (), filter_: Filter | None = None) -> None:
        """Mark what ``step`` dropped: the candidates of ``before`` missing from ``after``,
        each with its reason: the one the filter gave the candidate, else the filter's
        :meth:`~augkit.Filter.explain` of it as a rewrite of its source."""
        for row, (entry_of, old, new) in enumerate(zip(self._entry_of, before, after)):
            if len(old) == len(new) and all(a is b for a, b in zip(old, new)):
                continue
            self._alive.append(new)
            unclaimed = [c for c in old if id(c) in entry_of]
            claimed = {id(c) for c in new if id(c) in entry_of}
            for candidate in new:
                if id(candidate) not in entry_of:  # rebuilt by the filter: the same text it got
                    twin = next((c for c in unclaimed if c.text == candidate.text and id(c) not in claimed), None)
                    if twin is not None:
                        claimed.add(id(twin))
                        entry_of[id(candidate)] = entry_of[id(twin)]
                        entry_of[id(candidate)].scores = candidate.scores
            for candidate in unclaimed:
                if id(candidate) not in claimed:
                    entry = entry_of[id(candidate)]
                    entry.dropped_by = step
                    entry.reason = candidate.drop_reason or (
                        filter_.explain(sources[row], candidate.text) if filter_ is not None else "")

    def entries(self) -> list[list[TraceEntry]]:
        return self._rows



def stop_on_failures(texts: list[str], failures: list[str | None] | None) -> None:
    """``strict``: stop at a batch in which a step could not produce for some rows, naming the
    first and counting the batch's failures by reason."""
    if not failures:
        return
    first = next(i for i, failure in enumerate(failures) if failure)
    counted = Counter(failure for failure in failures if failure)
    listing = ", ".join(f"{count} {reason}" for reason, count in counted.most_common())
    raise AugmentationFailedError(
        f"augmenting {texts[first][:80]!r} failed: {failures[first]} (strict); "
        f"{sum(counted.values())} of {plural(len(texts), 'row')} of its batch failed: {listing}"
    )

