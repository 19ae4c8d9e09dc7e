"""Carrying protected spans through a round trip as placeholders.

A translation model rewrites whatever it is given: "fare code h" comes back "the fare code",
"ryō" comes back "ry" (the Bergamot models have no "ō"). Each protected span, and each word
holding a letter outside ASCII, is replaced by a placeholder (``X1``, ``X2``, ...) before the
forward translation and put back after the backward one. Measured on 150 CLINC150 requests
with digits (docs/methods/backtranslation.md): the Bergamot round trip kept every digit-bearing
word of 119 texts as they were, and every ``X<n>`` placeholder of all 150.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from augkit.plugin import ProtectedSpan, RowProtection, split_words

#: A placeholder: an upper-case X and a number, which the models copy as it is.
PLACEHOLDER = "X{number}"


@dataclass(frozen=True)
class MaskedText:
    """A text with its protected spans replaced by placeholders: ``text`` is what is
    translated, ``spans`` pairs each placeholder with the span it stands for."""

    text: str
    spans: tuple[tuple[str, ProtectedSpan], ...] = ()


def mask(text: str, protected: RowProtection, *, non_ascii: bool = True) -> MaskedText:
    """``text`` with each protected span (and, with ``non_ascii``, each other word holding a
    letter outside ASCII) replaced by a placeholder that does not occur in it.

    >>> from augkit.plugin import ProtectedSpan
    >>> mask("what is fare code h", (ProtectedSpan(18, 19, "h", "code"),)).text
    'what is fare code X1'
    >>> mask("play the song ryō by hikaru utada", ()).text
    'play the song X1 by hikaru utada'
    """
    spans = list(protected)
    if non_ascii:
        spans += [span for span in foreign_words(text) if not any(span.start < p.end and p.start < span.end for p in protected)]
    if not spans:
        return MaskedText(text)
    spans.sort(key=lambda span: span.start)
    taken = {word.lower() for word in split_words(text).words}
    names = _placeholders(len(spans), taken)
    parts, position = [], 0
    for name, span in zip(names, spans):
        parts += [text[position:span.start], name]
        position = span.end
    parts.append(text[position:])
    return MaskedText("".join(parts), tuple(zip(names, spans)))


def unmask(masked: MaskedText, translated: str) -> tuple[str, list[ProtectedSpan]]:
    """``translated`` with each placeholder put back as its span's text, and the spans whose
    placeholder did not come back (their text is then missing from the result)."""
    lost = []
    for name, span in masked.spans:
        pattern = re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", re.IGNORECASE)
        translated, count = pattern.subn(lambda _: span.text, translated)
        if not count:
            lost.append(span)
    return translated, lost


def foreign_words(text: str) -> list[ProtectedSpan]:
    """The words of ``text`` holding a letter outside ASCII ("ryō", "café"), which an
    English translation model may drop or replace."""
    spans = []
    position = 0
    sequence = split_words(text)
    for glue, word in zip(sequence.glue, sequence.words):
        position += len(glue)
        if any(not char.isascii() and char.isalpha() for char in word):
            spans.append(ProtectedSpan(position, position + len(word), word, "code", "non-ASCII word"))
        position += len(word)
    return spans


def lost_letters(source: str, text: str) -> list[str]:
    """Letters outside ASCII that ``source`` holds and ``text`` does not."""
    return sorted({char for char in source if not char.isascii() and char.isalpha()} - set(text))


def _placeholders(count: int, taken: set[str]) -> list[str]:
    names, number = [], 1
    while len(names) < count:
        name = PLACEHOLDER.format(number=number)
        if name.lower() not in taken:
            names.append(name)
        number += 1
    return names
