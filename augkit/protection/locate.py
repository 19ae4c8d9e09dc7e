"""Finding a row's protected spans again in a rewrite of it: which survived (and where), which
were lost, and the BIO tags of the rewrite.

A span survives when its text occurs in the rewrite as whole words, in any case and spacing,
once for each time the source protects it; spans are matched longest first, each to the first
occurrence no other span took.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from augkit.steps.protected_spans import SLOT, ProtectedSpan, RowProtection

_WHITESPACE_WORD = re.compile(r"\S+")
#: A candidate of any kind (a string, an :class:`augkit.Candidate`).
T = TypeVar("T")


def locate(spans: RowProtection, text: str) -> list[tuple[int, int] | None]:
    """Where each of ``spans`` occurs in ``text`` (``(start, end)``), or None where it was lost."""
    found: list[tuple[int, int] | None] = [None] * len(spans)
    taken: list[tuple[int, int]] = []
    for index in sorted(range(len(spans)), key=lambda i: (-len(spans[i].text), spans[i].start)):
        for match in _span_pattern(spans[index].text).finditer(text):
            start, end = match.span()
            if not any(start < other_end and other_start < end for other_start, other_end in taken):
                found[index] = (start, end)
                taken.append((start, end))
                break
    return found


def lost_spans(spans: RowProtection, text: str) -> list[ProtectedSpan]:
    """The spans of ``spans`` that ``text`` does not keep."""
    return [span for span, place in zip(spans, locate(spans, text)) if place is None]


def spans_kept_first(candidates: Iterable[T], spans: RowProtection, text: Callable[[T], str] = str) -> list[T]:
    """``candidates`` with those that keep every span of ``spans`` first, each group in its
    own order: what a method that cannot keep spans itself (a model's paraphrases) offers,
    so that cutting to ``n`` keeps the candidates the ``protected`` step will not drop.
    ``text`` reads a candidate's text (default: the candidate is a string).

    >>> from augkit.steps.protected_spans import ProtectedSpan
    >>> spans_kept_first(["book a table", "book one at lax", "a table at lax"], (ProtectedSpan(0, 3, "lax", "code"),))
    ['book one at lax', 'a table at lax', 'book a table']
    """
    found = list(candidates)
    if not spans:
        return found
    return sorted(found, key=lambda candidate: bool(lost_spans(spans, text(candidate))))


def relocated(spans: RowProtection, text: str) -> RowProtection:
    """``spans`` as they stand in ``text`` (a rewrite of their row), those it lost left out:
    the protection a chain's next step gets for a candidate."""
    moved = [ProtectedSpan(place[0], place[1], text[place[0]:place[1]], span.kind, span.label)
             for span, place in zip(spans, locate(spans, text)) if place is not None]
    return tuple(sorted(moved, key=lambda span: span.start))


def is_slot(span: ProtectedSpan) -> bool:
    """Whether a span came from BIO tags."""
    return span.kind == SLOT


def bio_tags(text: str, spans: RowProtection) -> str:
    """The BIO tags of ``text`` (one per whitespace-separated word) for the slots among
    ``spans``: a word overlapping a slot is tagged ``B-type`` (its first word) or ``I-type``,
    every other word ``O``. Raises ValueError when ``text`` lost a slot.

    >>> from augkit.protection.reading import bio_spans
    >>> source = "add step to me to the 50 clasicos playlist"
    >>> slots = tuple(bio_spans(source, "O B-entity_name I-entity_name I-entity_name O O B-playlist I-playlist O".split()))
    >>> bio_tags("add step to me , to the 50 clasicos playlist !", slots)
    'O B-entity_name I-entity_name I-entity_name O O O B-playlist I-playlist O O'
    """
    slots = tuple(span for span in spans if is_slot(span))
    places = locate(slots, text)
    lost = [span.text for span, place in zip(slots, places) if place is None]
    if lost:
        raise ValueError(f"{text!r} lost the slot(s) {', '.join(map(repr, lost))}; its tags cannot be re-aligned")
    tags = []
    started: set[int] = set()
    for word in _WHITESPACE_WORD.finditer(text):
        tag = "O"
        for index, (span, place) in enumerate(zip(slots, places)):
            if word.start() < place[1] and place[0] < word.end():
                tag = f"{'I' if index in started else 'B'}-{span.label}"
                started.add(index)
                break
        tags.append(tag)
    return " ".join(tags)


def describe_lost(spans: Sequence[ProtectedSpan]) -> str:
    """``"protected span lost: 'judge jules' (entity_name), 'h' (code)"``."""
    return "protected span lost: " + ", ".join(f"{span.text!r} ({span.name})" for span in spans)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _span_pattern(text: str) -> re.Pattern[str]:
    pattern = _PATTERNS.get(text)
    if pattern is None:
        body = r"\s+".join(map(re.escape, text.split()))
        pattern = re.compile(r"(?<!\w)" + body + r"(?!\w)", re.IGNORECASE)
        if len(_PATTERNS) > 4096:
            _PATTERNS.clear()
        _PATTERNS[text] = pattern
    return pattern
