"""The EDA augmenter (Wei and Zou, EMNLP 2019): synonym replacement, random insertion,
random swap and random deletion, with the paper's defaults and counting rule."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

import augkit
from augkit.text import TokenizedText, detokenize, tokenize

from augkit_eda.operations import random_deletion, random_insertion, random_swap, synonym_replacement
from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_eda.wordnet import default_lexicon

#: Rounds of generation (each the paper's full set) before giving up on finding ``n``
#: distinct augmentations; the first round alone is exactly the reference procedure.
MAX_ROUNDS = 4
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

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        source = normalize_like_reference(text) if self.normalize else text
        tokenized = tokenize(source)
        word_count = len(tokenized.word_positions())
        if word_count == 0 or n <= 0:
            return []
        operations = self._operations(word_count)
        per_operation = n // 4 + 1
        seen = {source}
        found: list[str] = []
        for _ in range(MAX_ROUNDS):
            round_outputs = [
                operation(tokenized, rng) for operation in operations for _ in range(per_operation)
            ]
            rng.shuffle(round_outputs)
            for output in round_outputs:
                candidate = self._finish(output)
                if candidate not in seen:
                    seen.add(candidate)
                    found.append(candidate)
            if len(found) >= n:
                break
        return found[:n]

    def synonyms(self, word: str) -> tuple[str, ...]:
        """The synonyms EDA may use for ``word``: WordNet lemma names of all its synsets,
        without the word itself; none for stop words and words with digits."""
        key = word.lower()
        cached = self._synonym_cache.get(key)
        if cached is None:
            cached = self._find_synonyms(key)
            self._synonym_cache[key] = cached
        return cached

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

    def _operations(self, word_count: int):
        operations = []
        if self.alpha_sr > 0:
            count = max(1, int(self.alpha_sr * word_count))
            operations.append(lambda t, rng: synonym_replacement(t, rng, count, self.synonyms))
        if self.alpha_ri > 0:
            count = max(1, int(self.alpha_ri * word_count))
            operations.append(lambda t, rng: random_insertion(t, rng, count, self.synonyms))
        if self.alpha_rs > 0:
            count = max(1, int(self.alpha_rs * word_count))
            operations.append(lambda t, rng: random_swap(t, rng, count))
        if self.p_rd > 0:
            operations.append(lambda t, rng: random_deletion(t, rng, self.p_rd))
        return operations

    def _finish(self, output: TokenizedText) -> str:
        text = detokenize(output)
        return normalize_like_reference(text) if self.normalize else text


def normalize_like_reference(text: str) -> str:
    """The EDA reference's cleaning: drop apostrophes, hyphens and other non-letters become
    spaces, lower-case, single spaces.

    >>> normalize_like_reference("I can't log-in to my Account #2!")
    'i cant log in to my account'
    """
    text = text.replace("’", "").replace("'", "").lower()
    return _SPACES.sub(" ", _NOT_LOWER_LETTER.sub(" ", text)).strip()


def _stop_word_set(stop_words: Iterable[str] | str | None) -> frozenset[str]:
    if stop_words is None:
        return EDA_STOP_WORDS
    if isinstance(stop_words, str):
        stop_words = [word.strip() for word in stop_words.split(",")]
    words = list(stop_words)
    if not all(isinstance(word, str) for word in words):
        raise ValueError("stop_words must be strings")
    return frozenset(word.lower() for word in words if word)
