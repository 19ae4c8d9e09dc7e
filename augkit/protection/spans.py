"""Protected spans: the parts of a row's text no method may change (a slot value, a number, a
name, a code), as character offsets into that text.

A row's protection is a tuple of :class:`ProtectedSpan`, sorted by position and never
overlapping. Steps receive it aligned with their texts (``context.protected[i]`` in a
:class:`augkit.BatchContext`, ``dataset.protected[i]`` in :meth:`augkit.Augmenter.prepare`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ProtectedSpan:
    """``text[start:end]`` of a row must survive every rewrite, as written (up to case).

    ``kind`` says where the protection came from: a slot type read from a BIO tag column
    (``"playlist"``), ``"phrase"`` for a word or phrase the caller listed, ``"code"`` for the
    short all-capital and single-letter tokens protected by default.
    """

    start: int
    end: int
    text: str
    kind: str = "phrase"

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end or self.end - self.start != len(self.text):
            raise ValueError(f"a protected span needs 0 <= start < end and end - start == len(text); got {self!r}")


#: One row's protection: spans in order of position, none overlapping.
RowProtection = tuple[ProtectedSpan, ...]
