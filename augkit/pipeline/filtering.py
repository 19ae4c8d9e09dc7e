"""One pass of a batch's candidates through a pipeline's filters, in order: what each filter
kept and dropped, which filter left a row with none, the usage the filters report per row
(a filter that asks a paid service returns a row as :class:`~augkit.GeneratedRow` with
``usage``, as an augmenter does), and, when a feedback round will need them, the candidates
rejected with the reason their filter gave."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from augkit.errors import AugmenterOutputError
from augkit.pipeline.checks import checked_filter_output
from augkit.pipeline.fates import Fates
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.feedback import Rejection
from augkit.steps.filter import Filter
from augkit.steps.generated_row import notes_of


@dataclass
class FilterPass:
    """What the filters made of a batch: per row the candidates every filter kept (in the
    order the last one left them), per filter (in order) the count it dropped of each row,
    the name of the filter that dropped a row's last candidate (None while it has some), and
    per row the candidates rejected (when asked for)."""

    kept: list[list[Candidate]]
    dropped: list[list[int]]
    emptied_by: list[str | None]
    rejected: list[list[Rejection]]


def filter_pass(named_steps: Mapping[str, Filter], texts: list[str], candidates: list[list[Candidate]],
                context: BatchContext, usage: list[dict[str, int]], fates: Fates | None = None,
                rejections: bool = False, skip: tuple[str, ...] = ()) -> FilterPass:
    """Run ``candidates`` through ``named_steps`` in order. Each filter's per-row usage is added
    to ``usage`` (one dict per row); ``fates`` (a trace) marks what each step dropped;
    ``rejections`` collects the dropped candidates with their reasons. The steps named in
    ``skip`` (dataset filters, run later by the process gathering the outcomes) drop nothing here."""
    emptied_by: list[str | None] = [None] * len(texts)
    dropped: list[list[int]] = []
    rejected: list[list[Rejection]] = [[] for _ in texts]
    for step_name, step in named_steps.items():
        if step_name in skip:
            dropped.append([0] * len(texts))
            continue
        before = candidates
        output = step.filter_batch(texts, before, context)
        candidates = checked_filter_output(step, output, before)
        _add_usage(step, output, before, usage)
        dropped.append([len(old) - len(new) for old, new in zip(before, candidates)])
        for index, row in enumerate(candidates):
            if not row and before[index] and emptied_by[index] is None:
                emptied_by[index] = step.name
        if rejections:
            for index, (old, new) in enumerate(zip(before, candidates)):
                rejected[index] += [Rejection(c.text, step_name, c.drop_reason or step.explain(texts[index], c.text))
                                    for c in _missing(old, new)]
        if fates is not None:
            fates.dropped(before, candidates, step_name, texts, step)
    return FilterPass(candidates, dropped, emptied_by, rejected)


def _add_usage(step: Filter, output: object, before: list[list[Candidate]], usage: list[dict[str, int]]) -> None:
    """Add what ``step`` reported each row cost to ``usage``; a name it does not declare in
    its ``usage`` is refused, as for an augmenter. A row the filter returned as it was given
    carries the notes of the step that made it, already counted: it reports nothing."""
    declared = set(step.usage)
    for index, row in enumerate(output):  # type: ignore[arg-type]  # checked_filter_output checked it
        reported = {} if row is before[index] else notes_of(row).usage
        undeclared = sorted(set(reported) - declared)
        if undeclared:
            raise AugmenterOutputError(
                f"filter {step.name!r} reported usage {', '.join(undeclared)} it does not declare in usage = (...)",
                kind=f"filter {step.name!r} reported undeclared usage",
            )
        for name, value in reported.items():
            usage[index][name] = usage[index].get(name, 0) + int(value)


def _missing(before: list[Candidate], after: list[Candidate]) -> list[Candidate]:
    """The candidates of ``before`` a filter did not return in ``after``: by object, or, for a
    filter that returns new objects, by text."""
    kept = {id(c) for c in after}
    given = {id(c) for c in before}
    rebuilt = Counter(c.text for c in after if id(c) not in given)
    missing = []
    for candidate in before:
        if id(candidate) in kept:
            continue
        if rebuilt[candidate.text]:
            rebuilt[candidate.text] -= 1
            continue
        missing.append(candidate)
    return missing
