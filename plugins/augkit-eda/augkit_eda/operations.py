"""EDA's four operations (Wei and Zou 2019, section 2) on a text split into words and glue.

Each function takes a :class:`PreparedText`, a ``random.Random`` and the operation's
strength, and returns a new :class:`~augkit.text.WordSequence`; its input is left alone.
Only words move, change or disappear; punctuation, emoji and spacing live in the glue and
stay in place. Words of a protected span (``PreparedText.owners``) are never replaced,
swapped or deleted, nothing is inserted between two of them, and they lend no synonyms to
insertion; a text without protected words gets exactly the draws it got before protection
existed. Random indices come from ``int(rng.random() * size)``: one C call instead of
``randrange``'s Python-level rejection loop (EDA runs these millions of times).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Protocol

from augkit.plugin import (
    FREE_WORD,
    RowProtection,
    WordSequence,
    delete_words,
    insert_word,
    match_case,
    span_of_words,
    split_words,
)


@dataclass(slots=True)
class PreparedText:
    """A text's words with their lower-case forms and synonyms, computed once per text and
    shared by every candidate generated from it."""

    sequence: WordSequence
    lowered: list[str]
    synonyms: list[tuple[str, ...]]
    #: What synonym replacement groups words by (every word with the same key gets the same
    #: synonym): the lower-case form, or form and part of speech for the safe synonyms.
    keys: list[str] = field(default=None)  # type: ignore[assignment]  # default: ``lowered``
    #: Per word, the protected span it belongs to (:data:`FREE_WORD` for none); None when the
    #: text has no protected word.
    owners: list[int] | None = None
    #: Distinct keys of words that have synonyms, in order of first appearance.
    replaceable: list[str] = field(init=False)
    synonyms_of: dict[str, tuple[str, ...]] = field(init=False)

    def __post_init__(self) -> None:
        if self.keys is None:
            self.keys = self.lowered
        self.synonyms_of = {key: syns for key, syns in zip(self.keys, self.synonyms) if syns}
        self.replaceable = list(self.synonyms_of)


class SynonymSource(Protocol):
    """Gives each word of a text its synonyms (see :mod:`augkit_eda.synonyms`)."""

    def for_words(self, sequence: WordSequence, lowered: list[str]) -> tuple[list[str], list[tuple[str, ...]]]:
        """(grouping key per word, synonyms per word) for a text's words."""


def prepare_text(text: str, source: SynonymSource, protected: RowProtection = ()) -> PreparedText:
    """Split ``text`` and find each word's synonyms with ``source``; a word of a ``protected``
    span gets none (so it is never replaced, nor lends a synonym to insertion)."""
    sequence = split_words(text)
    lowered = [word.lower() for word in sequence.words]
    keys, synonyms = source.for_words(sequence, lowered)
    owners = span_of_words(sequence, protected) if protected else None
    if owners is not None and all(owner == FREE_WORD for owner in owners):
        owners = None
    if owners is not None:
        synonyms = [() if owner != FREE_WORD else syns for syns, owner in zip(synonyms, owners)]
    return PreparedText(sequence, lowered, synonyms, keys, owners)


def free_positions(text: PreparedText) -> list[int] | None:
    """The positions of the words an operation may edit, move or delete; None when all may."""
    if text.owners is None:
        return None
    return [index for index, owner in enumerate(text.owners) if owner == FREE_WORD]


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
    each; every occurrence of a chosen word (every word with its key) changes, keeping each
    occurrence's casing, except an occurrence whose own context does not allow that synonym
    (the default synonyms are chosen per occurrence, by the words around it: in "to rate to
    rate" only the second "rate" may become "grade")."""
    if not text.replaceable:
        return text.sequence.copy()
    chosen = {}
    for key in pick_distinct(text.replaceable, rng, count):
        options = text.synonyms_of[key]
        chosen[key] = options[_index(rng, len(options))]
    words = [
        match_case(word, chosen[key]) if key in chosen and chosen[key] in allowed else word
        for word, key, allowed in zip(text.sequence.words, text.keys, text.synonyms)
    ]
    return WordSequence(words, list(text.sequence.glue))


def random_insertion(text: PreparedText, rng: random.Random, count: int) -> WordSequence:
    """``count`` times, insert a random synonym of a random word (among those with
    synonyms) before a random word of the text (never between two words of a protected span)."""
    result = text.sequence.copy()
    sources = [syns for syns in text.synonyms if syns]  # by occurrence, as the reference draws
    if not sources:
        return result
    if text.owners is None:
        for _ in range(count):
            options = sources[_index(rng, len(sources))]
            insert_word(result, _index(rng, len(result.words)), options[_index(rng, len(options))])
        return result
    # Never between two words of one span: a word "inside" is one whose predecessor is in its span.
    inside = [index > 0 and owner != FREE_WORD and owner == text.owners[index - 1] for index, owner in enumerate(text.owners)]
    for _ in range(count):
        options = sources[_index(rng, len(sources))]
        allowed = [index for index, flag in enumerate(inside) if not flag]
        position = allowed[_index(rng, len(allowed))]
        insert_word(result, position, options[_index(rng, len(options))])
        inside.insert(position, False)
    return result


def random_swap(text: PreparedText, rng: random.Random, count: int) -> WordSequence:
    """``count`` times, swap two distinct random words (words of protected spans stay where they are)."""
    sequence = text.sequence
    words = list(sequence.words)
    free = free_positions(text)
    size = len(words) if free is None else len(free)
    if size >= 2:
        for _ in range(count):
            first = _index(rng, size)
            second = _index(rng, size - 1)
            second += second >= first
            if free is not None:
                first, second = free[first], free[second]
            words[first], words[second] = words[second], words[first]
    return WordSequence(words, list(sequence.glue))


def random_deletion(text: PreparedText, rng: random.Random, probability: float) -> WordSequence:
    """Delete each word with ``probability`` (never a protected one); a one-word text is left
    alone and at least one word always survives."""
    sequence = text.sequence
    size = len(sequence.words)
    if size < 2:
        return sequence.copy()
    free = free_positions(text)
    if free is None:
        doomed = bernoulli_positions(rng, size, probability)
    else:  # protected words always survive, so the text never loses every word
        doomed = [free[position] for position in bernoulli_positions(rng, len(free), probability)]
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
