"""The trace of one batch under construction (``trace=True``): every candidate generated, in
generation order, and the step that dropped it with its reason (:mod:`augkit.reporting.trace`)."""

from __future__ import annotations

from collections.abc import Sequence

from augkit.reporting.trace import TraceEntry
from augkit.steps.candidate import Candidate
from augkit.steps.filter import Filter


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

    def absorb(self, rows: Sequence[int], other: Fates) -> None:
        """Add ``other``'s entries (the trace of a later round of some of these rows: its row
        ``j`` is this batch's row ``rows[j]``) after each row's own, so that a later step
        (``beyond n``) can mark its candidates too."""
        for row, entries, entry_of in zip(rows, other._rows, other._entry_of, strict=True):
            self._rows[row].extend(entries)
            self._entry_of[row].update(entry_of)
        self._alive.extend(other._alive)

    def entries(self) -> list[list[TraceEntry]]:
        return self._rows
