"""The ``protected`` step: drops a candidate that lost or altered a protected span of its row.

Every pipeline runs it right after exact-duplicate removal (``[protected=false]`` leaves it
out), so whatever a method does, no output changes a span the caller protected: methods that
honour protection themselves (EDA, AEDA, ...) never lose one, the others (a translation, a
language model) have their candidates checked here, and the trace says which span each
dropped candidate lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from augkit.candidate import Candidate
from augkit.errors import UsageError
from augkit.filters.base import BatchContext, Filter, check_sources
from augkit.protection.locate import describe_lost, lost_spans

if TYPE_CHECKING:
    from augkit.pipeline import Pipeline


class ProtectedSpansFilter(Filter):
    """Drops a candidate that does not keep every protected span of its row (``protect=``,
    ``protect_column=``, and the codes protected by default): each span's words must occur
    in the candidate, in any case and spacing, as often as the row protects them.

    Added to every pipeline by default; a row without protected spans is not looked at.
    """

    name = "protected"

    def filter_batch(self, sources: list[str], candidates: list[list[Candidate]], context: BatchContext) -> list[list[Candidate]]:
        check_sources(self.name, sources, candidates)
        protected = context.protected
        if protected is None:
            return candidates
        kept_rows = []
        for spans, row in zip(protected, candidates, strict=True):
            if not spans or not row:
                kept_rows.append(row)
                continue
            kept = []
            for candidate in row:
                lost = lost_spans(spans, candidate.text)
                if lost:
                    candidate.drop_reason = describe_lost(lost)
                else:
                    kept.append(candidate)
            kept_rows.append(kept)
        return kept_rows

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return candidates  # without a batch context there is nothing protected


def check_protect_column(pipeline: Pipeline, protect_column: str | None) -> None:
    """A protect column needs the ``protected`` step: without it a candidate could lose a
    tagged slot, and its BIO tags could not be re-aligned."""
    if protect_column is not None and not any(isinstance(step, ProtectedSpansFilter) for step in pipeline.filters):
        raise UsageError(f"protect_column={protect_column!r} needs the pipeline's 'protected' step, which "
                         f"{pipeline.spec!r} leaves out ([protected=false]); drop that option")
