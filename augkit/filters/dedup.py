"""Exact-duplicate removal: the filter every method gets by default."""

from __future__ import annotations

from augkit.candidate import Candidate
from augkit.filters.base import BatchContext, Filter


class ExactDuplicateFilter(Filter):
    """Drops candidates identical to their source or to an earlier candidate.

    A candidate that also rewrites other columns or the label (pair augmentation) is a
    duplicate only of one that rewrites them the same way.

    Texts are compared after collapsing runs of whitespace (so ``"a  b"`` equals ``"a b"``),
    and case-insensitively when ``ignore_case`` is true.

    Parameters
    ----------
    ignore_case : bool
        Treat texts differing only in letter case as duplicates.
    """

    name = "dedup"

    def __init__(self, ignore_case: bool = False):
        self.ignore_case = ignore_case

    def _key(self, text: str) -> str:
        key = " ".join(text.split())
        return key.casefold() if self.ignore_case else key

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return self.filter_batch([source], [candidates], BatchContext())[0]

    def filter_batch(self, sources, candidates, context):
        # One loop for the whole batch: this filter runs on every row of every method.
        key = self._key
        result = []
        for source, row in zip(sources, candidates):
            seen = {key(source)}
            kept = []
            for candidate in row:
                candidate_key = key(candidate.text)
                if candidate.fields or candidate.label is not None:
                    # pair augmentation: a row differing in another column or its label is new
                    candidate_key = (candidate_key, tuple(sorted(candidate.fields.items())), repr(candidate.label))
                if candidate_key not in seen:
                    seen.add(candidate_key)
                    kept.append(candidate)
            result.append(kept)
        return result
