"""Protected spans as word-level methods see them: which words of a
:class:`~augkit.text.WordSequence` each span covers."""

from __future__ import annotations

from augkit.steps.protected_spans import RowProtection
from augkit.text import WordSequence, word_offsets

#: What :func:`span_of_words` gives a word no span covers.
FREE = -1


def span_of_words(sequence: WordSequence, spans: RowProtection) -> list[int]:
    """Per word of ``sequence`` (split from the text the spans point into), the index of the
    protected span it overlaps, or :data:`FREE`: a word-level method never edits, moves or
    deletes a word that is not free, and never puts anything between two words of one span.

    >>> from augkit.protection.reading import read_protection
    >>> from augkit.text import split_words
    >>> text = "add judge jules to instrumental study"
    >>> span_of_words(split_words(text), read_protection(text, phrases=["judge jules"])[0])
    [-1, 0, 0, -1, -1, -1]
    """
    owners = [FREE] * len(sequence.words)
    if not spans:
        return owners
    current = 0
    for index, (start, end) in enumerate(word_offsets(sequence)):
        while current < len(spans) and spans[current].end <= start:
            current += 1
        if current < len(spans) and spans[current].start < end:
            owners[index] = current
    return owners


def splits_a_span(owners: list[int], index: int) -> bool:
    """Whether putting something right before word ``index`` would fall inside a span (the
    word and the one before it belong to the same span)."""
    return 0 < index < len(owners) and owners[index] != FREE and owners[index] == owners[index - 1]
