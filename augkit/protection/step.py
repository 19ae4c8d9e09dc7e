"""The ``protected`` step: drops a candidate that lost or altered a protected span of its row.

Every pipeline runs it right after exact-duplicate removal (``[protected=false]`` leaves it
out), so whatever a method does, no output changes a span the caller protected: methods that
honour protection themselves (EDA, AEDA, ...) never lose one, the others (a translation, a
language model) have their candidates checked here, and the trace says which span each
dropped candidate lost.
"""

from __future__ import annotations

from augkit.protection.locate import describe_lost, lost_spans
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.filter import Filter, check_sources


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


