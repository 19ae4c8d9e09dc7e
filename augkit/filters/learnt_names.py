"""Names learnt from the data set being augmented, for lower-case rows: what lets ``entities``
protect "jules" in "play jules" when casing says nothing.

:func:`learn_names` reads every original of a run (:meth:`augkit.Filter.prepare`) and
builds a :class:`NameGazetteer` from three sources, each a reason a person could check:

- ``capitalised``: a word or phrase written capitalised in the middle of a sentence in the
  data ("Jules", "Apple Pay"), at least as often as it is written in lower case there (rows
  written all in lower case, all in capitals or in Title Case say nothing about names and
  are not counted): "us" stays a pronoun although "US" is a name.
- ``protected``: the spans of ``dataset.protected`` (slot values read from a BIO column,
  phrases the caller listed), applied to every row, not only their own.
- ``rare``: a word rare in English (not among the most common words of ``wordfreq``, Zipf
  frequency below 3, that is under once per million words) that recurs in at least
  :data:`RARE_MIN_ROWS` rows, and is neither a plural, a possessive nor a one-letter slip
  of a common word ("recieve", "transfering"). Most such words in intent data are names
  ("amex", "gatlinburg") or the domain's own terms ("contactless", "pto"), which a rewrite
  should keep as well.
"""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from augkit.errors import MissingDependencyError

#: Where a name can be learnt from, in the order a gazetteer reports them.
SOURCES = ("capitalised", "protected", "rare")
#: The common English words (``wordfreq`` 3.1, English, Zipf frequency >= 3.0: once per
#: million words or more), one a line; built by ``scripts/build_common_english_words.py``.
COMMON_WORDS_FILE = "common-english-words.txt.gz"
#: Rows a rare word must occur in to be taken for a name: once may be a slip; names of an
#: intent data set recur (CLINC150's "amex" is in 56 training rows).
RARE_MIN_ROWS = 2
#: Shortest rare word taken for a name: two letters are mostly abbreviations of common words.
RARE_MIN_LETTERS = 3
#: Shortest rare word checked for a one-letter slip of a common word: shorter words are a
#: slip away from many common words ("ihop" from "hop", "usaa" from "usa").
TYPO_MIN_LETTERS = 6
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class LearntName:
    """A name of the gazetteer: its lower-case word keys, how the data writes it, and why it
    was learnt."""

    words: tuple[str, ...]
    written: str
    why: str


@dataclass
class NameGazetteer:
    """Learnt names, found in a text's word keys (longest first, left to right, not overlapping)."""

    names: dict[tuple[str, ...], LearntName] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._by_first: dict[str, list[tuple[str, ...]]] = {}
        for words in sorted(self.names, key=len, reverse=True):
            self._by_first.setdefault(words[0], []).append(words)

    def __len__(self) -> int:
        return len(self.names)

    def find(self, keys: Sequence[str]) -> list[tuple[int, int, LearntName]]:
        """(start, end, name) of each learnt name in ``keys``."""
        found = []
        index = 0
        while index < len(keys):
            for words in self._by_first.get(keys[index], ()):
                if tuple(keys[index : index + len(words)]) == words:
                    found.append((index, index + len(words), self.names[words]))
                    index += len(words)
                    break
            else:
                index += 1
        return found


def learn_names(
    texts: Sequence[str],
    protected: Sequence[Iterable] | None,
    sources: Iterable[str],
    *,
    keyed_words: Callable[[str], list[tuple[str, str]]],
    capitalised_in: Callable[[str], list[tuple[tuple[str, ...], str]] | None],
    is_name_word: Callable[[str], bool],
) -> NameGazetteer:
    """The gazetteer of ``texts`` (and their ``protected`` spans) from ``sources``.

    ``keyed_words(text)`` gives a text's words as (lower-case key, as written);
    ``capitalised_in(text)`` the (word keys, as written) of the names its casing shows, or
    None when its casing says nothing (all lower case, all capitals, Title Case);
    ``is_name_word(key)`` is False for words that are never names ("the", "i").
    """
    sources = set(sources)
    names: dict[tuple[str, ...], LearntName] = {}
    if "protected" in sources and protected is not None:
        for row in protected:
            for span in row or ():
                words = tuple(key for key, _ in keyed_words(span.text))
                if _may_be_a_name(words, is_name_word):
                    names.setdefault(words, LearntName(words, span.text, f"protected as {span.kind} in the data"))
    if "capitalised" in sources:
        for words, written in _capitalised_names(texts, keyed_words, capitalised_in):
            if _may_be_a_name(words, is_name_word):
                names.setdefault(words, LearntName(words, written, f"written {written!r} in the data"))
    if "rare" in sources:
        for word, written, rows in _rare_words(texts, keyed_words, is_name_word):
            names.setdefault((word,), LearntName((word,), written, f"rare in English, in {rows} rows of the data"))
    return NameGazetteer(names)


def _may_be_a_name(words: tuple[str, ...], is_name_word: Callable[[str], bool]) -> bool:
    """Whether a phrase may name something in other rows: not made only of words that are
    never names, of numbers (the ``numbers`` filter's) or of single characters ("U", "A")."""
    from augkit.filters.number_vocabulary import NUMBER_WORDS

    return any(is_name_word(word) and len(word) > 1 and not word.isdigit() and word not in NUMBER_WORDS for word in words)


def _capitalised_names(
    texts: Sequence[str],
    keyed_words: Callable[[str], list[tuple[str, str]]],
    capitalised_in: Callable[[str], list[tuple[tuple[str, ...], str]] | None],
) -> list[tuple[tuple[str, ...], str]]:
    """Names written capitalised in the data in at least as many rows as in lower case
    (rows whose casing tells), each with its first capitalised spelling."""
    capitalised: Counter = Counter()
    spelling: dict[tuple[str, ...], str] = {}
    cased_rows = []
    for text in texts:
        found = capitalised_in(text)
        if found is None:
            continue
        cased_rows.append(text)
        for words, written in found:
            spelling.setdefault(words, written)
        capitalised.update({words for words, _ in found})
    gazetteer = NameGazetteer({words: LearntName(words, spelling[words], "") for words in capitalised})
    lower_case: Counter = Counter()
    for text in cased_rows if capitalised else ():
        pairs = keyed_words(text)
        found = gazetteer.find([key for key, _ in pairs])
        lower_case.update({name.words for start, _, name in found if pairs[start][1][:1].islower()})
    return [(words, spelling[words]) for words in sorted(capitalised) if capitalised[words] >= lower_case[words]]


def _rare_words(
    texts: Sequence[str], keyed_words: Callable[[str], list[tuple[str, str]]], is_name_word: Callable[[str], bool]
) -> list[tuple[str, str, int]]:
    """Words rare in English that recur in ``texts``: (key, first spelling, rows they are in)."""
    rows: Counter = Counter()
    spellings: dict[str, set[str]] = {}
    for text in texts:
        pairs = keyed_words(text)
        rows.update({key for key, _ in pairs})
        for key, written in pairs:
            spellings.setdefault(key, set()).add(written.lower())
    common = common_english_words()
    return [
        (word, min(spellings[word]), count) for word, count in sorted(rows.items())
        if count >= RARE_MIN_ROWS and len(word) >= RARE_MIN_LETTERS and set(word) <= _LETTERS and is_name_word(word)
        and not any(_common_form(spelling, common) for spelling in spellings[word])
    ]


def _common_form(word: str, common: frozenset[str]) -> bool:
    """``word`` is a common word, a plural of one, or one letter away from one (a letter
    dropped, added, changed or two swapped: "recieve", "transfering", "beneficiery"), for
    words long enough."""
    if word in common or (word.endswith("s") and word[:-1] in common):
        return True
    return len(word) >= TYPO_MIN_LETTERS and any(variant in common for variant in _one_slip_away(word))


def _one_slip_away(word: str) -> Iterable[str]:
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    for left, right in splits:
        if right:
            yield left + right[1:]
        if len(right) > 1:
            yield left + right[1] + right[0] + right[2:]
        for letter in _LETTERS:
            yield left + letter + right
            if right:
                yield left + letter + right[1:]


@cache
def common_english_words() -> frozenset[str]:
    """The words of :data:`COMMON_WORDS_FILE` (read once per process)."""
    shipped = resources.files("augkit.filters").joinpath("data", COMMON_WORDS_FILE)
    try:
        data = shipped.read_bytes()
    except FileNotFoundError as error:  # a wheel built without its package data
        raise MissingDependencyError(f"augkit's list of common English words is missing from this install "
                                     f"({shipped}): pip install --force-reinstall augkit") from error
    lines = gzip.decompress(data).decode("utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))
