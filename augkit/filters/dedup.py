"""Exact-duplicate removal: the filter every method gets by default."""

from __future__ import annotations

from augkit.candidate import Candidate
from augkit.filters.base import Filter


class ExactDuplicateFilter(Filter):
    """Drops candidates identical to their source or to an earlier candidate.

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
        seen = {self._key(source)}
        kept = []
        for candidate in candidates:
            key = self._key(candidate.text)
            if key not in seen:
                seen.add(key)
                kept.append(candidate)
        return kept
