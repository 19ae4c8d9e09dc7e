"""Texts as words plus the exact "glue" between them, for word-level augmenters.

Word-level operations (swap, delete, insert, replace) must not destroy what surrounds the
words: casing, punctuation, emoji and spacing all survive. :func:`split_words` cuts a text
into ``words`` and ``glue`` (``len(glue) == len(words) + 1``: what comes before the first
word, between each pair, and after the last), with one regular-expression call;
:func:`join_words` rebuilds the exact original from an unmodified split. Operations edit the
two lists; punctuation lives in the glue, so it stays where it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

#: A word: letters, digits or underscores, with inner hyphens or apostrophes ("e-mail",
#: "don't"). ``\w`` rather than "letters and digits only" because it splits 1.7x faster.
_WORD = re.compile(r"(\w+(?:[-'’]\w+)*)")


@dataclass(slots=True)
class WordSequence:
    """The words of a text and the exact text around them.

    ``glue[i]`` precedes ``words[i]``; ``glue[-1]`` follows the last word.
    """

    words: list[str]
    glue: list[str]

    def copy(self) -> WordSequence:
        return WordSequence(list(self.words), list(self.glue))


_TOKEN = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")


class SpacingKey:
    """What :func:`spacing_key` returns: equal for two texts with the same words and marks in
    the same order, whatever the spacing between them.

    Cheap in the common case: the hash is that of the text without its whitespace, and the
    tokens are compared only when two such texts are equal ("apart" against "a part"). Exact,
    because the tokens, joined, are the text without its whitespace: texts whose tokens are
    equal are equal without whitespace. A regular-expression split per output cost a
    bridged synonym replacement about a tenth of its time.
    """

    __slots__ = ("_squeezed", "_text", "_tokens")

    def __init__(self, text: str):
        self._text = text
        self._squeezed = "".join(text.split())
        self._tokens: tuple[str, ...] | None = None

    @property
    def tokens(self) -> tuple[str, ...]:
        """The words and punctuation marks, in order."""
        if self._tokens is None:
            self._tokens = tuple(_TOKEN.findall(self._text))
        return self._tokens

    def __hash__(self) -> int:
        return hash(self._squeezed)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SpacingKey):
            return NotImplemented
        return self._squeezed == other._squeezed and (self._text == other._text or self.tokens == other.tokens)

    def __repr__(self) -> str:
        return f"SpacingKey({self._text!r})"


def spacing_key(text: str) -> SpacingKey:
    """A key shared by texts that differ only in spacing ("Aspen ?" and "Aspen?", as a
    detokenizer re-spaces them), and by no others: their words and punctuation marks, in
    order, are the same.

    >>> spacing_key("How far is it to Aspen ?") == spacing_key("How far is it to  Aspen?")
    True
    >>> spacing_key("It is apart") == spacing_key("It is a part")
    False
    """
    return SpacingKey(text)


def distinct_by_spacing(source: str, candidates: Iterable[str], n: int) -> list[str]:
    """The first ``n`` of ``candidates`` that differ from ``source`` and from each other by
    :func:`spacing_key`: what ``first_distinct(source, candidates, n, key=spacing_key)``
    returns, without a key object per text: each text's whitespace-free form is compared
    first, and :class:`SpacingKey`'s rule decides only when those agree. A bridged nlpaug
    method compares every output it gets this way.

    >>> distinct_by_spacing("Aspen ?", ["Aspen?", "Aspen !", "Aspen  !", "a spen!"], 3)
    ['Aspen !', 'a spen!']
    """
    found: list[str] = []
    if n <= 0:
        return found
    seen: dict[str, list[str]] = {"".join(source.split()): [source]}
    for candidate in candidates:
        squeezed = "".join(candidate.split())
        same = seen.get(squeezed)
        if same is None:
            seen[squeezed] = [candidate]
        elif candidate in same or any(SpacingKey(candidate) == SpacingKey(text) for text in same):
            continue  # (the same text again, as nlpaug returns one it could not change: no key objects)
        else:
            same.append(candidate)
        found.append(candidate)
        if len(found) == n:
            break
    return found


def split_words(text: str) -> WordSequence:
    """Split ``text`` into words and glue.

    >>> split_words("Hi, I'm here 😀!")
    WordSequence(words=['Hi', "I'm", 'here'], glue=['', ', ', ' ', ' 😀!'])
    >>> join_words(split_words("Hi, I'm here 😀!"))
    "Hi, I'm here 😀!"
    """
    parts = _WORD.split(text)
    return WordSequence(parts[1::2], parts[0::2])


def word_offsets(sequence: WordSequence) -> list[tuple[int, int]]:
    """The character span ``(start, end)`` of each word of ``sequence`` in the text it was
    split from.

    >>> word_offsets(split_words("Hi, I'm here"))
    [(0, 2), (4, 7), (8, 12)]
    """
    offsets = []
    position = 0
    for glue, word in zip(sequence.glue, sequence.words):
        start = position + len(glue)
        position = start + len(word)
        offsets.append((start, position))
    return offsets


def join_words(sequence: WordSequence) -> str:
    """Rebuild the text: glue, word, glue, ..., word, glue."""
    parts = [""] * (2 * len(sequence.words) + 1)
    parts[0::2] = sequence.glue
    parts[1::2] = sequence.words
    return "".join(parts)


def delete_words(sequence: WordSequence, positions: list[int]) -> WordSequence:
    """A copy without the words at ``positions`` (sorted, distinct).

    The glue around a deleted word merges: the whitespace that preceded the word goes
    with it ("my card?" without "card" is "my?"), a deleted first word leaves the text's
    leading whitespace in place, and punctuation always stays.
    """
    words, glue = sequence.words, sequence.glue
    kept_words: list[str] = []
    kept_glue = [glue[0]]
    start = 0
    for position in positions:
        kept_words += words[start:position]
        kept_glue += glue[start + 1 : position + 1]
        after = glue[position + 1]
        if kept_words:
            kept_glue[-1] = kept_glue[-1].rstrip() + after
        else:
            kept_glue[-1] = kept_glue[-1] + after.lstrip()
        start = position + 1
    kept_words += words[start:]
    kept_glue += glue[start + 1 :]
    return WordSequence(kept_words, kept_glue)


def insert_word(sequence: WordSequence, position: int, word: str) -> None:
    """Insert ``word`` before ``words[position]`` (in place), followed by a space."""
    sequence.words.insert(position, word)
    sequence.glue.insert(position + 1, " ")


def insert_before_word(sequence: WordSequence, position: int, mark: str) -> None:
    """Put ``mark`` and a space right before ``words[position]`` (in place)."""
    sequence.glue[position] += mark + " "


def match_case(model: str, word: str) -> str:
    """Give ``word`` the casing pattern of ``model`` (UPPER, Title or as-is).

    >>> match_case("Bank", "depository financial institution")
    'Depository financial institution'
    """
    if len(model) > 1 and model.isupper():
        return word.upper()
    if model[:1].isupper() and word[:1].islower():
        return word[:1].upper() + word[1:]
    return word
