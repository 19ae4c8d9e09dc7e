"""The :class:`Filter` interface: keep, drop or re-rank candidates of each source text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from augkit.candidate import Candidate
from augkit.configurable import Configurable


@dataclass(frozen=True)
class BatchContext:
    """What a filter may know beyond the texts: labels of the batch's sources (when the
    caller named a label column), aligned with the sources."""

    labels: Sequence[Any] | None = None


class Filter(Configurable):
    """Base class of candidate filters and rankers.

    A subclass sets ``name``, takes its configuration as constructor keyword arguments and
    implements :meth:`filter` (one source at a time) or :meth:`filter_batch` (a batch, for
    filters that embed or score with a model). A filter may add scores to
    ``candidate.scores``; it must return a subset of the candidates it received, in the order
    it prefers.
    """

    name: ClassVar[str] = ""

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        """Return the candidates of ``source`` to keep."""
        raise NotImplementedError(f"{type(self).__name__} must implement filter()")

    def filter_batch(
        self,
        sources: list[str],
        candidates: list[list[Candidate]],
        context: BatchContext,
    ) -> list[list[Candidate]]:
        """Filter the candidates of many sources; defaults to :meth:`filter` per source."""
        return [self.filter(source, cands) for source, cands in zip(sources, candidates, strict=True)]
