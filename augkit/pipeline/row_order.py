"""A pipeline's dataset filters (:class:`~augkit.steps.dataset_filter.DatasetFilter`), run on
each batch's outcome by the process that gathers the outcomes, in the data's row order.

A batch run with its dataset filters left out (``run_batch(..., dataset_filters=False)``, as
the engine runs every batch, here or in a worker) returns every candidate that passed the
other steps, uncut. :func:`select_in_row_order` then judges them row after row, and within a
row candidate after candidate, until ``n`` are kept: a candidate that passes every dataset
filter is kept and remembered by each, so that later ones are judged against it; what is left
once ``n`` are kept is cut beyond ``n``. It updates what the batch said of each row: its
counts per step, its reason when it is left with nothing, and its trace. Since only this one
process decides, in one order, the output does not depend on batches, workers or chunks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from augkit.errors import UsageError
from augkit.pipeline.run import BEYOND_N, BatchOutcome
from augkit.reporting.trace import TraceEntry
from augkit.steps.candidate import Candidate
from augkit.steps.dataset_filter import DatasetFilter
from augkit.steps.drop_reasons import keep_first


def select_in_row_order(
    outcome: BatchOutcome,
    steps: Mapping[str, DatasetFilter],
    count_names: Sequence[str],
    n: int,
    labels: Sequence[Any] | None,
    rows: Sequence[Any],
    sources: Sequence[str] | None = None,
) -> BatchOutcome:
    """Run the dataset filters ``steps`` (by their names in ``count_names``) on ``outcome``,
    a batch's outcome with them left out, whose rows are named ``rows`` in the caller's data
    and labelled ``labels`` (None: no label column), their texts ``sources``; at most ``n``
    kept per row. The outcome is
    changed in place and returned."""
    slot = {name: count_names.index(name) for name in steps}
    beyond = count_names.index(BEYOND_N)
    for step in steps.values():
        step.anticipate([c.text for row in outcome.candidates for c in row])
    for position, candidates in enumerate(outcome.candidates):
        label = None if labels is None else labels[position]
        entries = _trace_entries(outcome.traces[position], candidates) if outcome.traces is not None else None
        counts = list(outcome.counts[position])
        kept: list[Candidate] = []
        last_step = ""
        judged = 0
        for place, candidate in enumerate(candidates):
            if len(kept) == n:
                break
            judged += 1
            own_label = label if candidate.label is None else candidate.label
            for name, step in steps.items():
                reason = step.judge(candidate.text, own_label, None if sources is None else sources[position])
                if reason:
                    candidate.drop_reason = reason
                    counts[slot[name]] += 1
                    last_step = name
                    if entries is not None and entries[place] is not None:
                        entries[place].dropped_by, entries[place].reason = name, reason
                    break
            else:
                kept.append(candidate)
                for step in steps.values():
                    step.remember(candidate.text, own_label, rows[position])
        rest = candidates[judged:]  # never judged: n were kept before them
        survivors = keep_first(kept + rest, n, "n", what="place")
        counts[beyond] = len(rest)
        if entries is not None:
            for candidate, entry in zip(rest, entries[judged:]):
                if entry is not None:
                    entry.dropped_by, entry.reason = BEYOND_N, candidate.drop_reason
        outcome.candidates[position] = survivors
        outcome.counts[position] = tuple(counts)
        if not survivors and candidates and outcome.reasons[position] is None:
            outcome.reasons[position] = f"all candidates removed by filter {steps[last_step].name!r}"
    return outcome


def _trace_entries(entries: list[TraceEntry], candidates: list[Candidate]) -> list[TraceEntry | None]:
    """The trace entry of each candidate that reached the dataset filters: the first entry not
    yet dropped with its text and method (the batch's steps may have reordered them)."""
    open_entries = [entry for entry in entries if not entry.dropped_by and entry.candidate is not None]
    matched: list[TraceEntry | None] = []
    for candidate in candidates:
        entry = next((e for e in open_entries if e.candidate == candidate.text and e.method == candidate.method), None)
        if entry is not None:
            open_entries.remove(entry)
        matched.append(entry)
    return matched


def refuse_unordered(dataset_filters: Mapping[str, DatasetFilter], runner: str, fix: str) -> None:
    """Refuse to run dataset filters where ``runner`` says no one process sees every batch's
    outcome in row order (the filter's output would depend on how the rows were split);
    ``fix`` says what to run instead."""
    if dataset_filters:
        names = ", ".join(sorted({repr(step.name) for step in dataset_filters.values()}))
        raise UsageError(
            f"{names} compares each candidate with the outputs kept for earlier rows, which needs one process "
            f"to see every batch in row order; {runner}, so the output would depend on how the rows are split. {fix}"
        )
