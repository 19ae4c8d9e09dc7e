"""EDA's four operations (Wei and Zou 2019, section 2) on a text split into words and glue.

Each function takes a :class:`PreparedText`, a ``random.Random`` and the operation's
strength, and returns a new :class:`~augkit.text.WordSequence`; its input is left alone.
Only words move, change or disappear; punctuation, emoji and spacing live in the glue and
stay in place. Random indices come from ``int(rng.random() * size)``: one C call instead of
``randrange``'s Python-level rejection loop (EDA runs these millions of times).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from augkit.text import WordSequence, delete_words, insert_word, match_case, split_words


@dataclass(slots=True)
class PreparedText:
    """A text's words with their lower-case forms and synonyms, computed once per text and
    shared by every candidate generated from it."""

    sequence: WordSequence
    lowered: list[str]
    synonyms: list[tuple[str, ...]]
    #: Distinct lower-case words that have synonyms, in order of first appearance.
    replaceable: list[str] = field(init=False)
    synonyms_of: dict[str, tuple[str, ...]] = field(init=False)

    def __post_init__(self) -> None:
        self.synonyms_of = {low: syns for low, syns in zip(self.lowered, self.synonyms) if syns}
        self.replaceable = list(self.synonyms_of)


def prepare_text(
    text: str, known: dict[str, tuple[str, ...]], look_up: Callable[[str], tuple[str, ...]]
) -> PreparedText:
    """Split ``text`` and find each word's synonyms (by its lower-case form) in ``known``,
    calling ``look_up`` for words not there yet (it is expected to add them)."""
    sequence = split_words(text)
    lowered = [word.lower() for word in sequence.words]
    synonyms = [known[low] if low in known else look_up(low) for low in lowered]
    return PreparedText(sequence, lowered, synonyms)


def _index(rng: random.Random, size: int) -> int:
    return int(rng.random() * size)


def pick_distinct(items: list, rng: random.Random, count: int) -> list:
    """``count`` distinct items in random order (a partial Fisher-Yates shuffle of a copy;
    ``count=len(items)`` shuffles). Draws from ``rng.random()``: ``random.shuffle`` and
    ``random.sample`` call the slower Python-level ``_randbelow`` per item."""
    pool = list(items)
    size = len(pool)
    for first in range(min(count, size)):
        other = first + _index(rng, size - first)
        pool[first], pool[other] = pool[other], pool[first]
    return pool[:count]


def synonym_replacement(text: PreparedText, rng: random.Random, count: int) -> WordSequence:
    """Replace ``count`` distinct words (among those with synonyms) by a random synonym
    each; every occurrence of a chosen word changes, keeping each occurrence's casing."""
    if not text.replaceable:
        return text.sequence.copy()
    chosen = {}
    for form in pick_distinct(text.replaceable, rng, count):
        options = text.synonyms_of[form]
        chosen[form] = options[_index(rng, len(options))]
    words = [
        match_case(word, chosen[low]) if low in chosen else word
        for word, low in zip(text.sequence.words, text.lowered)
    ]
    return WordSequence(words, list(text.sequence.glue))


def random_insertion(text: PreparedText, rng: random.Random, count: int) -> WordSequence:
    """``count`` times, insert a random synonym of a random word (among those with
    synonyms) before a random word of the text."""
    result = text.sequence.copy()
    sources = [syns for syns in text.synonyms if syns]  # by occurrence, as the reference draws
    if not sources:
        return result
    for _ in range(count):
        options = sources[_index(rng, len(sources))]
        insert_word(result, _index(rng, len(result.words)), options[_index(rng, len(options))])
    return result


def random_swap(text: PreparedText, rng: random.Random, count: int) -> WordSequence:
    """``count`` times, swap two distinct random words."""
    sequence = text.sequence
    words = list(sequence.words)
    size = len(words)
    if size >= 2:
        for _ in range(count):
            first = _index(rng, size)
            second = _index(rng, size - 1)
            second += second >= first
            words[first], words[second] = words[second], words[first]
    return WordSequence(words, list(sequence.glue))


def random_deletion(text: PreparedText, rng: random.Random, probability: float) -> WordSequence:
    """Delete each word with ``probability``; a one-word text is left alone and at least
    one word always survives."""
    sequence = text.sequence
    size = len(sequence.words)
    if size < 2:
        return sequence.copy()
    doomed = bernoulli_positions(rng, size, probability)
    if len(doomed) == size:
        doomed.pop(_index(rng, size))
    return delete_words(sequence, doomed)


def bernoulli_positions(rng: random.Random, size: int, probability: float) -> list[int]:
    """The positions among ``range(size)`` that independent ``probability`` coin flips hit.

    Draws the geometric gaps between hits instead of flipping every coin: the same
    distribution, about ``size * probability + 1`` draws instead of ``size``.
    """
    if probability >= 1:
        return list(range(size))
    log_miss = math.log1p(-probability) if probability > 0 else 0.0
    if log_miss == 0.0:  # probability 0, or too small to ever hit
        return []
    hits = []
    position = -1
    while True:
        gap = math.log(1.0 - rng.random()) / log_miss  # misses before the next hit
        if position + 1 + gap >= size:
            return hits
        position += 1 + int(gap)
        hits.append(position)
