"""The trace of a run: every candidate a pipeline generated and what became of it.

With ``trace=True`` (:func:`augkit.augment`, :meth:`augkit.Pipeline.run_batch`, ``augkit
augment --trace FILE``) a pipeline records, for each candidate, its source row, the
generator that produced it, every score any step gave it, and its fate: ``kept``, or
``dropped`` with the step that dropped it (a filter's name, ``semantic#2`` for a second use,
or ``beyond n`` for a candidate every filter kept but over the ``n`` asked for). Kept plus
dropped per step equals generated, row by row.

A source row that got no candidate at all (its text was empty, its generator gave nothing,
its augmentation failed) has one entry of its own: fate ``none``, no candidate, and in
``reason`` why, in the words of the run's summary (for a generator that says why, such as
an LLM reply that holds no JSON list, its own words). So every row asked to be augmented
appears in the trace, and every row without output says why there. A dropped candidate's
``reason`` holds the words of the step that dropped it: every built-in filter gives them (the
``protected`` step names the span lost; ``negation``, ``numbers`` and ``entities`` name
what changed; ``semantic``, ``length``, ``edit_ratio`` the value and the bound it broke,
``top_k`` and ``rank`` the rank beyond ``k``, ``beyond n`` the place beyond ``n``).

Off by default: a run without a trace does no bookkeeping at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

KEPT, DROPPED, NONE = "kept", "dropped", "none"
#: Columns of :func:`trace_frame`, before the score columns (``score_<name>``).
TRACE_COLUMNS = ("source", "method", "candidate", "fate", "dropped_by", "reason")
SCORE_PREFIX = "score_"


@dataclass(slots=True)
class TraceEntry:
    """One candidate of one source row: ``dropped_by`` is empty when it was kept. Or a row's
    lack of any: ``candidate`` None and ``reason`` saying why (see :func:`no_candidate`)."""

    method: str
    candidate: str | None
    scores: dict[str, float] = field(default_factory=dict)
    dropped_by: str = ""
    #: The source row: its position in the batch inside a pipeline, its index label (or
    #: position) in the caller's data once the run hands the trace back.
    source: Any = None
    #: Why the row got no candidate (an entry with no candidate), or why the step that
    #: dropped this candidate dropped it, when it says (:attr:`augkit.Candidate.drop_reason`:
    #: "protected span lost: 'h' (code)", "number lost: 'half'").
    reason: str = ""

    @property
    def fate(self) -> str:
        if self.candidate is None:
            return NONE
        return DROPPED if self.dropped_by else KEPT

    def as_tuple(self) -> tuple:
        """Plain fields, to cross a process boundary cheaply (see :func:`entry_from_tuple`)."""
        return (self.method, self.candidate, self.scores, self.dropped_by, self.reason)


def no_candidate(method: str, reason: str, source: Any = None) -> TraceEntry:
    """The entry of a source row that got no candidate at all, saying why."""
    return TraceEntry(method, None, {}, "", source, reason)


def entry_from_tuple(fields: Sequence[Any], source: Any = None) -> TraceEntry:
    method, candidate, scores, dropped_by, reason = fields
    return TraceEntry(method, candidate, dict(scores), dropped_by, source, reason)


def candidates_traced(entries: Iterable[TraceEntry]) -> int:
    """How many of ``entries`` are candidates (not a row's lack of any)."""
    return sum(1 for entry in entries if entry.candidate is not None)


def score_names(entries: Iterable[TraceEntry]) -> list[str]:
    """Every score name the entries carry, in order of first appearance."""
    names: dict[str, None] = {}
    for entry in entries:
        for name in entry.scores:
            names.setdefault(name, None)
    return list(names)


def trace_rows(entries: Iterable[TraceEntry], scores: Sequence[str]) -> list[list[Any]]:
    """The entries as table rows: :data:`TRACE_COLUMNS`, then one value per score in
    ``scores`` (None where a candidate has none: a step dropped it before scoring)."""
    return [
        [entry.source, entry.method, entry.candidate, entry.fate, entry.dropped_by, entry.reason,
         *(entry.scores.get(name) for name in scores)]
        for entry in entries
    ]


def trace_columns(scores: Sequence[str]) -> list[str]:
    return [*TRACE_COLUMNS, *(SCORE_PREFIX + name for name in scores)]


def trace_frame(entries: Sequence[TraceEntry], scores: Sequence[str] | None = None) -> Any:
    """The trace as a pandas DataFrame: one row per candidate (and one per source row that
    got none), in source order then generation order; columns :data:`TRACE_COLUMNS` and ``score_<name>`` per score."""
    import pandas as pd

    names = list(scores) if scores is not None else score_names(entries)
    frame = pd.DataFrame(trace_rows(entries, names), columns=trace_columns(names))
    for name in names:
        frame[SCORE_PREFIX + name] = frame[SCORE_PREFIX + name].astype(float)
    return frame
