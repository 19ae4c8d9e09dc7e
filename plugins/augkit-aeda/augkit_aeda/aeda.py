"""The AEDA augmenter (Karimi, Rossi and Prati, Findings of EMNLP 2021): insert random
punctuation marks between words."""

from __future__ import annotations

import random
from collections.abc import Sequence

import augkit
from augkit.plugin import WordSequence, first_distinct, insert_before_word, join_words, split_words

#: Attempts per requested augmentation before accepting fewer distinct ones (short texts
#: have few distinct insertions).
ATTEMPTS_PER_OUTPUT = 3


class AEDA(augkit.Augmenter):
    """An Easier Data Augmentation (Karimi et al. 2021): insert random punctuation marks at random positions.

    For a text of ``l`` words, draws ``q`` uniformly from ``1 .. int(punc_ratio * l + 1)``
    (never more than ``l``), picks ``q`` distinct words and puts a mark drawn from
    ``punctuation`` before each, as a separate token, exactly as the paper's code does.
    Original casing, punctuation and spacing are kept.

    Parameters
    ----------
    punc_ratio : float
        Upper bound of inserted marks as a share of the words (the paper's 0.3).
    punctuation : str or list of str
        Marks to draw from; default the paper's ``. , ! ? ; :``. A string is split into
        characters, so ``".,"`` means ``[".", ","]``.
    """

    name = "aeda"

    def __init__(self, punc_ratio: float = 0.3, punctuation: Sequence[str] | str = (".", ",", "!", "?", ";", ":")):
        if isinstance(punc_ratio, bool) or not isinstance(punc_ratio, (int, float)) or not 0 < punc_ratio <= 1:
            raise ValueError(f"punc_ratio must be a number in (0, 1], got {punc_ratio!r}")
        marks = list(punctuation) if isinstance(punctuation, str) else list(punctuation)
        if not marks or not all(isinstance(m, str) and m.strip() for m in marks):
            raise ValueError("punctuation must be a non-empty list of non-blank strings")
        self.punc_ratio = punc_ratio
        self.punctuation = punctuation
        self._marks = marks

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        sequence = split_words(text)
        if not sequence.words:
            return []
        attempts = (self._insert_marks(sequence, rng) for _ in range(n * ATTEMPTS_PER_OUTPUT))
        return first_distinct(text, attempts, n)

    def _insert_marks(self, sequence: WordSequence, rng: random.Random) -> str:
        word_count = len(sequence.words)
        result = sequence.copy()
        count = min(word_count, rng.randint(1, int(self.punc_ratio * word_count + 1)))
        for position in rng.sample(range(word_count), count):
            insert_before_word(result, position, self._marks[int(rng.random() * len(self._marks))])
        return join_words(result)
