"""Protected spans: the parts of a row's text no method may change (a slot value, a number, a
name, a code), as character offsets into that text.

A row's protection is a tuple of :class:`ProtectedSpan`, sorted by position and never
overlapping. Steps receive it aligned with their texts (``context.protected[i]`` in a
:class:`augkit.BatchContext`, ``dataset.protected[i]`` in :meth:`augkit.Augmenter.prepare`).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Where a span's protection came from: a slot of a BIO tag column, a phrase or character span
#: (the caller's ``protect=`` list, or a protect column's phrases and spans), or a code
#: protected by default (a short all-capital or single-letter token).
SLOT, PHRASE, CODE = "slot", "phrase", "code"


@dataclass(frozen=True, slots=True)
class ProtectedSpan:
    """``text[start:end]`` of a row must survive every rewrite, as written (up to case).

    ``kind`` says where the protection came from (:data:`SLOT`, :data:`PHRASE` or
    :data:`CODE`); ``label`` is a slot's type (``"playlist"``), or the label a character span
    was given, else empty.
    """

    start: int
    end: int
    text: str
    kind: str = PHRASE
    label: str = ""

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end or self.end - self.start != len(self.text):
            raise ValueError(f"a protected span needs 0 <= start < end and end - start == len(text); got {self!r}")

    @property
    def name(self) -> str:
        """What messages call it: its label, else its kind (``playlist``, ``code``)."""
        return self.label or self.kind


#: One row's protection: spans in order of position, none overlapping.
RowProtection = tuple[ProtectedSpan, ...]
