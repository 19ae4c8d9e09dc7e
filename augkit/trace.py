"""The trace of a run: every candidate a pipeline generated and what became of it.

With ``trace=True`` (:func:`augkit.augment`, :meth:`augkit.Pipeline.run_batch`, ``augkit
augment --trace FILE``) a pipeline records, for each candidate, its source row, the
generator that produced it, every score any step gave it, and its fate: ``kept``, or
``dropped`` with the step that dropped it (a filter's name, ``semantic#2`` for a second use,
or ``beyond n`` for a candidate every filter kept but over the ``n`` asked for). Kept plus
dropped per step equals generated, row by row.

Off by default: a run without a trace does no bookkeeping at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

KEPT, DROPPED = "kept", "dropped"
#: Columns of :func:`trace_frame`, before the score columns (``score_<name>``).
TRACE_COLUMNS = ("source", "method", "candidate", "fate", "dropped_by")
SCORE_PREFIX = "score_"


@dataclass(slots=True)
class TraceEntry:
    """One candidate of one source row: ``dropped_by`` is empty when it was kept."""

    method: str
    candidate: str
    scores: dict[str, float] = field(default_factory=dict)
    dropped_by: str = ""
    #: The source row: its position in the batch inside a pipeline, its index label (or
    #: position) in the caller's data once the run hands the trace back.
    source: Any = None

    @property
    def fate(self) -> str:
        return DROPPED if self.dropped_by else KEPT

    def as_tuple(self) -> tuple:
        """Plain fields, to cross a process boundary cheaply (see :func:`entry_from_tuple`)."""
        return (self.method, self.candidate, self.scores, self.dropped_by)


def entry_from_tuple(fields: Sequence[Any], source: Any = None) -> TraceEntry:
    method, candidate, scores, dropped_by = fields
    return TraceEntry(method, candidate, dict(scores), dropped_by, source)


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
        [entry.source, entry.method, entry.candidate, entry.fate, entry.dropped_by,
         *(entry.scores.get(name) for name in scores)]
        for entry in entries
    ]


def trace_columns(scores: Sequence[str]) -> list[str]:
    return [*TRACE_COLUMNS, *(SCORE_PREFIX + name for name in scores)]


def trace_frame(entries: Sequence[TraceEntry], scores: Sequence[str] | None = None) -> Any:
    """The trace as a pandas DataFrame: one row per candidate, in source order then
    generation order; columns :data:`TRACE_COLUMNS` and ``score_<name>`` per score."""
    import pandas as pd

    names = list(scores) if scores is not None else score_names(entries)
    frame = pd.DataFrame(trace_rows(entries, names), columns=trace_columns(names))
    for name in names:
        frame[SCORE_PREFIX + name] = frame[SCORE_PREFIX + name].astype(float)
    return frame
