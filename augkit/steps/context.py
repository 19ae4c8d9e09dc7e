"""What a step may know beyond the texts it rewrites or judges: per batch (:class:`BatchContext`)
the rows' labels, context columns and protected spans; per run (:class:`DatasetContext`) every
original with the same."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from augkit.steps.protected_spans import RowProtection


@dataclass(frozen=True)
class BatchContext:
    """What a step may know beyond the texts, aligned with the batch's source rows: their
    labels (when the caller named a label column) and their context columns, by the logical
    names steps declare (``{"premise": [...]}``; see :attr:`augkit.Augmenter.context_columns`)."""

    labels: Sequence[Any] | None = None
    columns: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    #: Per row, the spans of its text no step may change (:class:`augkit.protection.ProtectedSpan`,
    #: in order); None when the run protects nothing.
    protected: Sequence[RowProtection] | None = None

    def take(self, positions: Sequence[int]) -> BatchContext:
        """The context of the rows at ``positions`` (which may repeat), in that order: for a
        batch run again row by row, or a chain step rewriting each candidate of a row."""
        return BatchContext(
            labels=None if self.labels is None else [self.labels[i] for i in positions],
            columns={name: [values[i] for i in positions] for name, values in self.columns.items()},
            protected=None if self.protected is None else [self.protected[i] for i in positions],
        )


@dataclass(frozen=True)
class DatasetContext:
    """Every original text of the run (missing and blank ones left out) with its label
    (when the caller named a label column) and its context columns (by logical name, as in
    :class:`BatchContext`), given to :meth:`Filter.prepare` and :meth:`augkit.Augmenter.prepare`
    once per run."""

    texts: Sequence[str]
    labels: Sequence[Any] | None = None
    columns: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    #: Per text, its protected spans (as in :class:`BatchContext`); None when the run protects nothing.
    protected: Sequence[RowProtection] | None = None
