"""Running one batch through a pipeline's steps: generation, each filter in order, at most ``n``
kept per text, the reason a text got none, the counts per step, and (``trace=True``) every
candidate's fate. A batch that fails or runs out of time is run again row by row, so one bad
row costs only itself; ``strict`` stops instead, naming the row."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from augkit.errors import AugmentationFailedError, AugmenterOutputError, UsageError
from augkit.pipeline.checks import plural
from augkit.pipeline.fates import Fates
from augkit.pipeline.filtering import FilterPass, filter_pass
from augkit.pipeline.time_limit import TimeLimit, TimeLimitExceeded
from augkit.reporting.report import failure_reason
from augkit.reporting.trace import TraceEntry
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.drop_reasons import keep_first
from augkit.steps.feedback import RowFeedback
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
    (:attr:`~augkit.Pipeline.named_steps`: ``semantic#2`` for a second use), the usage names
    its augmenters and filters report, and its feedback rounds."""

    generate: Callable[[list[str], int, int, BatchContext], list[list[Candidate]]]
    named_steps: Mapping[str, Filter]
    usage_names: tuple[str, ...]
    #: How many feedback rounds the generator wants (:meth:`augkit.Augmenter.feedback_rounds`; 0: none),
    #: and how a round asks it again: (texts, n, seed, context, feedback per text, round) -> candidates.
    feedback_rounds: int = 0
    generate_again: Callable[[list[str], int, int, BatchContext, list[RowFeedback], int], list[list[Candidate]]] | None = None
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
    notes = [notes_of(row) for row in candidates]
    failures = [(note.reason or NOTHING_USABLE) if note.failed else None for note in notes]
    reasons: list[str | None] = [
        None if row else failure_reason(failed) if failed else (note.reason or NOTHING_GENERATED)
        for row, note, failed in zip(candidates, notes, failures)
    ]
    usage = [dict(note.usage) for note in notes]  # what each row cost, the filters' added as they run
    generated = list(map(len, candidates))
    fates = Fates(candidates) if trace else None
    passed = filter_pass(steps.named_steps, texts, candidates, context, usage, fates, rejections=steps.feedback_rounds > 0,
                         skip=steps.gathered)
    kept_so_far, dropped = passed.kept, passed.dropped
    for index, step_name in enumerate(passed.emptied_by):
        if step_name is not None:
            reasons[index] = f"all candidates removed by filter {step_name!r}"
    if steps.feedback_rounds:
        _feedback_rounds(steps, texts, n, seed, context, passed, generated, usage, fates)
    for index, row in enumerate(kept_so_far):
        if row:
            reasons[index] = None  # a later round gave the row what its first lost
    if steps.gathered:  # the gathering process cuts to n, after the dataset filters
        kept, beyond = kept_so_far, [0] * len(texts)
    else:
        kept = [keep_first(row, n, "n", what="place") for row in kept_so_far]  # a cut one says its place
        beyond = [len(row) - n if len(row) > n else 0 for row in kept_so_far]
    columns = [generated, *dropped, beyond]
    columns.extend(zip(*_row_usage(steps.usage_names, usage)))
    if fates is not None and not steps.gathered:
        fates.dropped(kept_so_far, kept, BEYOND_N)
    return BatchOutcome(kept, reasons, list(zip(*columns)), fates.entries() if fates is not None else None,
                        failures if any(failures) else None)


def _feedback_rounds(steps: BatchSteps, texts: list[str], n: int, seed: int, context: BatchContext, passed: FilterPass,
                     generated: list[int], usage: list[dict[str, int]], fates: Fates | None) -> None:
    """Up to :attr:`BatchSteps.feedback_rounds` more rounds for the rows left with fewer than
    ``n`` candidates some of which a filter rejected in the row's last round: each such row is
    asked again (:meth:`augkit.Augmenter.augment_again`, told its rejections and their
    reasons), its new candidates go through the same filters, and those kept join the row's.
    Other rows are never asked again. Updates ``passed``, ``generated``, ``usage`` and
    ``fates`` in place. Each round's seeds are the row's own (its text, the step, the round),
    so a row's rounds are the same whatever batch it runs in."""
    rejected = [list(row) for row in passed.rejected]
    last = passed.rejected
    for round_ in range(1, steps.feedback_rounds + 1):
        asked = [i for i, row in enumerate(passed.kept) if len(row) < n and last[i]]
        if not asked:
            return
        sub_texts, sub_context = [texts[i] for i in asked], context.take(asked)
        feedback = [RowFeedback(round_, tuple(rejected[i]), tuple(c.text for c in passed.kept[i])) for i in asked]
        candidates = steps.generate_again(sub_texts, n, seed, sub_context, feedback, round_)
        sub_usage = [dict(notes_of(row).usage) for row in candidates]
        sub_fates = Fates(candidates) if fates is not None else None
        again = filter_pass(steps.named_steps, sub_texts, candidates, sub_context, sub_usage, sub_fates, rejections=True,
                            skip=steps.gathered)
        last = [[] for _ in texts]
        for j, i in enumerate(asked):
            generated[i] += len(candidates[j])
            passed.kept[i] = passed.kept[i] + again.kept[j]
            for counts, sub_counts in zip(passed.dropped, again.dropped, strict=True):
                counts[i] += sub_counts[j]
            for name, value in sub_usage[j].items():
                usage[i][name] = usage[i].get(name, 0) + value
            rejected[i] += again.rejected[j]
            last[i] = again.rejected[j]
        if fates is not None:
            fates.absorb(asked, sub_fates)


def _row_usage(names: tuple[str, ...], usage: list[dict[str, int]]) -> list[list[int]]:
    """Each row's usage values, in :attr:`usage_names` order (0 where no step reported one)."""
    return [[int(row.get(name.removeprefix(USAGE_PREFIX), 0)) for name in names] for row in usage]


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

