"""Drop candidates caught in a repetition loop: "first class afternoon first class first class
flight", "book add book track book springtime book".

Decoders (a translation model, a paraphraser, an insertion model left under-trained) fall into
loops that no similarity filter sees: the loop repeats words of the source, so it stays close
to it. This rule needs no model: word n-gram counts of the source and the candidate.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from augkit.filters.label_safety import LabelSafetyFilter, Mismatch
from augkit.text import split_words

#: Longest word n-gram looked at ("first class", "book a table for").
MAX_LOOP_WORDS = 4
#: An n-gram loops when it occurs at least this many times in the candidate ...
MIN_LOOP_COUNT = 3
#: ... and this many times more than in the source (a long paraphrase may well say "the"
#: once more than its source; it rarely says a phrase twice more).
MIN_LOOP_EXCESS = 2


def repetition_loop(source: str, text: str) -> str:
    """The loop ``text`` falls into that ``source`` does not, in words
    (``"'first class' repeated back to back"``, ``"'book' 4 times"``), or ``""``.

    A loop is a run of 1 to 4 words said twice back to back where the source does not say it
    so, or said at least 3 times and at least twice more often than in the source.

    >>> repetition_loop("first class afternoon flight", "first class afternoon first class first class flight")
    "'first class' 3 times (source: 1)"
    >>> repetition_loop("book a first class flight", "book a first class first class flight")
    "'first class' repeated back to back"
    >>> repetition_loop("book a track by springtime", "book add book track book springtime book")
    "'book' 4 times (source: 1)"
    >>> repetition_loop("a very very long day", "a very very long day indeed")
    ''
    """
    words = _words(text)
    if len(words) < 2:
        return ""
    source_words = _words(source)
    for size in range(MAX_LOOP_WORDS, 0, -1):
        source_grams = _grams(source_words, size)
        grams = _grams(words, size)
        for gram, count in grams.items():
            if count >= MIN_LOOP_COUNT and count - source_grams[gram] >= MIN_LOOP_EXCESS:
                return f"{' '.join(gram)!r} {count} times (source: {source_grams[gram]})"
        for start in range(len(words) - 2 * size + 1):
            gram = tuple(words[start : start + size])
            if gram == tuple(words[start + size : start + 2 * size]) and not _back_to_back(source_words, gram):
                return f"{' '.join(gram)!r} repeated back to back"
    return ""


def _words(text: str) -> list[str]:
    return [word.lower() for word in split_words(text).words]


def _grams(words: list[str], size: int) -> Counter:
    return Counter(tuple(words[start : start + size]) for start in range(len(words) - size + 1))


def _back_to_back(words: list[str], gram: tuple[str, ...]) -> bool:
    size = len(gram)
    return any(tuple(words[start : start + size]) == gram == tuple(words[start + size : start + 2 * size])
               for start in range(len(words) - 2 * size + 1))


class RepetitionFilter(LabelSafetyFilter):
    """Drops a candidate caught in a repetition loop its source is not in: a run of one to
    four words said twice back to back ("first class first class"), or said at least three
    times and twice more often than in the source ("book add book track book springtime
    book"). Adds the score ``repetition`` (1 for a dropped candidate, 0 otherwise);
    ``explain(source, text)`` names the loop.
    """

    name = "repetition"
    scores: ClassVar[tuple[str, ...]] = ("repetition",)

    def clues(self, text: str) -> str:
        return text

    def compare(self, source_clues: str, candidate_clues: str) -> Mismatch:
        loop = repetition_loop(source_clues, candidate_clues)
        return Mismatch(1, f"repetition loop: {loop}") if loop else Mismatch()
