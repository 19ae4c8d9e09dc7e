"""The EDA augmenter (Wei and Zou, EMNLP 2019): synonym replacement, random insertion,
random swap and random deletion, with the paper's defaults and counting rule."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from itertools import chain

import augkit
from augkit.augmenter import first_distinct
from augkit.text import WordSequence, join_words

from augkit_eda.operations import (
    PreparedText,
    prepare_text,
    random_deletion,
    random_insertion,
    pick_distinct,
    random_swap,
    synonym_replacement,
)
from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_eda.wordnet import default_lexicon

#: After the reference's planned candidates, extra random operations tried per missing
#: output before returning fewer than ``n`` (short texts have few distinct edits).
TOP_UP_ATTEMPTS_PER_OUTPUT = 3
#: Operation plans are cached per word count up to this length (a plan depends only on it).
MAX_CACHED_PLAN_WORDS = 256
#: An operation: (prepared text, generator, strength) -> edited words.
Operation = Callable[[PreparedText, random.Random, float], WordSequence]
_NOT_LOWER_LETTER = re.compile(r"[^a-z ]")
_SPACES = re.compile(r" +")


class EDA(augkit.Augmenter):
    """Easy Data Augmentation (Wei and Zou 2019): WordNet synonym replacement, random insertion, random swap and random deletion.

    Each augmentation applies one operation. Per the reference implementation, a sentence of
    ``l`` words gets ``n_sr = max(1, int(alpha_sr * l))`` replacements (likewise insertions
    and swaps), deletion removes each word with probability ``p_rd``, and ``n // 4 + 1``
    candidates per operation are shuffled and cut to ``n``. Stop words are never replaced or
    used for insertion, nor are words containing digits. Casing, punctuation and spacing are
    kept unless ``normalize`` is set.

    Parameters
    ----------
    alpha_sr : float
        Share of words replaced by a WordNet synonym (0 disables synonym replacement).
    alpha_ri : float
        Share of words inserted as synonyms of other words (0 disables random insertion).
    alpha_rs : float
        Share of words swapped pairwise (0 disables random swap).
    p_rd : float
        Probability that each word is deleted (0 disables random deletion).
    normalize : bool
        Apply the reference implementation's normalisation first: lower-case, letters a-z and
        single spaces only (as the paper's experiments did); outputs are normalised too.
    stop_words : list of str, optional
        Words never replaced nor used for insertion; default: the EDA paper's list. A
        string is read as a comma-separated list.
    """

    name = "eda"

    def __init__(
        self,
        alpha_sr: float = 0.1,
        alpha_ri: float = 0.1,
        alpha_rs: float = 0.1,
        p_rd: float = 0.1,
        normalize: bool = False,
        stop_words: Iterable[str] | str | None = None,
    ):
        for name, value in (("alpha_sr", alpha_sr), ("alpha_ri", alpha_ri), ("alpha_rs", alpha_rs), ("p_rd", p_rd)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
        if not any((alpha_sr, alpha_ri, alpha_rs, p_rd)):
            raise ValueError("at least one of alpha_sr, alpha_ri, alpha_rs, p_rd must be above 0")
        self.alpha_sr = alpha_sr
        self.alpha_ri = alpha_ri
        self.alpha_rs = alpha_rs
        self.p_rd = p_rd
        self.normalize = normalize
        self.stop_words = stop_words
        self._stop_words = _stop_word_set(stop_words)
        self._synonym_cache: dict[str, tuple[str, ...]] = {}
        self._plans: dict[int, list[tuple[Operation, float]]] = {}

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        source = normalize_like_reference(text) if self.normalize else text
        prepared = prepare_text(source, self._synonym_cache, self._synonyms_of_lowered)
        if not prepared.lowered or n <= 0:
            return []
        word_count = len(prepared.lowered)
        operations = self._plans.get(word_count) or self._operations(word_count)
        if word_count <= MAX_CACHED_PLAN_WORDS:
            self._plans[word_count] = operations
        # The reference: n // 4 + 1 candidates per operation, shuffled, the first n kept.
        planned = [operation for operation in operations for _ in range(n // 4 + 1)]
        planned = pick_distinct(planned, rng, len(planned))
        # Then, if some were copies (nothing deleted, ...), random operations top them up.
        top_up = (operations[int(rng.random() * len(operations))] for _ in range(TOP_UP_ATTEMPTS_PER_OUTPUT * n))
        finish = normalize_like_reference if self.normalize else _unchanged
        outputs = (
            finish(join_words(operation(prepared, rng, strength))) for operation, strength in chain(planned, top_up)
        )
        return first_distinct(source, outputs, n)

    def synonyms(self, word: str) -> tuple[str, ...]:
        """The synonyms EDA may use for ``word``: WordNet lemma names of all its synsets,
        without the word itself; none for stop words and words with digits."""
        return self._synonyms_of_lowered(word.lower())

    def _synonyms_of_lowered(self, key: str) -> tuple[str, ...]:
        try:
            return self._synonym_cache[key]
        except KeyError:
            found = self._synonym_cache[key] = self._find_synonyms(key)
            return found

    def _find_synonyms(self, key: str) -> tuple[str, ...]:
        if key in self._stop_words or any(ch.isdigit() for ch in key):
            return ()
        found: dict[str, None] = {}
        for name in default_lexicon().lemma_names(key):
            if self.normalize:  # the reference's letters-only, lower-case synonyms
                synonym = _NOT_LOWER_LETTER.sub("", name.replace("_", " ").replace("-", " ").lower())
                synonym = _SPACES.sub(" ", synonym).strip()
            else:
                synonym = name.replace("_", " ")
            if synonym and synonym.lower() != key:
                found[synonym] = None
        return tuple(found)

    def _operations(self, word_count: int) -> list[tuple[Operation, float]]:
        """The enabled operations with their strength for a text of ``word_count`` words:
        ``max(1, int(alpha * word_count))`` edits, or the deletion probability ``p_rd``."""
        operations: list[tuple[Operation, float]] = []
        for operation, alpha in (
            (synonym_replacement, self.alpha_sr),
            (random_insertion, self.alpha_ri),
            (random_swap, self.alpha_rs),
        ):
            if alpha > 0:
                operations.append((operation, max(1, int(alpha * word_count))))
        if self.p_rd > 0:
            operations.append((random_deletion, self.p_rd))
        return operations


def normalize_like_reference(text: str) -> str:
    """The EDA reference's cleaning: drop apostrophes, hyphens and other non-letters become
    spaces, lower-case, single spaces.

    >>> normalize_like_reference("I can't log-in to my Account #2!")
    'i cant log in to my account'
    """
    text = text.replace("’", "").replace("'", "").lower()
    return _SPACES.sub(" ", _NOT_LOWER_LETTER.sub(" ", text)).strip()


def _unchanged(text: str) -> str:
    return text


def _stop_word_set(stop_words: Iterable[str] | str | None) -> frozenset[str]:
    if stop_words is None:
        return EDA_STOP_WORDS
    if isinstance(stop_words, str):
        stop_words = [word.strip() for word in stop_words.split(",")]
    words = list(stop_words)
    if not all(isinstance(word, str) for word in words):
        raise ValueError("stop_words must be strings")
    return frozenset(word.lower() for word in words if word)
