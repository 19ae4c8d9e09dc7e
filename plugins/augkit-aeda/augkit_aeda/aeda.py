"""The AEDA augmenter (Karimi, Rossi and Prati, Findings of EMNLP 2021): insert random
punctuation marks between words."""

from __future__ import annotations

import random
from collections.abc import Sequence

import augkit
from augkit.plugin import (
    RowProtection,
    WordSequence,
    first_distinct,
    insert_before_word,
    join_words,
    span_of_words,
    split_words,
    splits_a_span,
)

#: Why a row got no augmentation, in the words of the run's summary.
NO_WORDS = "aeda: the text has no words to put a mark before"
#: Attempts per requested augmentation before accepting fewer distinct ones (short texts
#: have few distinct insertions).
ATTEMPTS_PER_OUTPUT = 3


class AEDA(augkit.Augmenter):
    """An Easier Data Augmentation (Karimi et al. 2021): insert random punctuation marks at random positions.

    For a text of ``l`` words, draws ``q`` uniformly from ``1 .. int(punc_ratio * l + 1)``
    (never more than ``l``), picks ``q`` distinct words and puts a mark drawn from
    ``punctuation`` before each, as a separate token, exactly as the paper's code does.
    Original casing, punctuation and spacing are kept. No mark goes inside a protected span
    (between two of its words); ``q`` is then drawn as before and capped by the places left.

    Parameters
    ----------
    punc_ratio : float
        Upper bound of inserted marks as a share of the words (the paper's 0.3).
    punctuation : str or list of str
        Marks to draw from; default the paper's ``. , ! ? ; :``. A string is split into
        characters, so ``".,"`` means ``[".", ","]``.
    """

    name = "aeda"
    protects = True

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
        return self._augment(text, n, rng, ())

    def augment_batch(self, texts: list[str], n: int, rngs: list[random.Random],
                      context: augkit.BatchContext | None = None) -> list[list[str]]:
        """:meth:`augment` per text, never putting a mark inside a protected span of its row."""
        protected = context.protected if context is not None else None
        if protected is None:
            return [self._augment(text, n, rng, ()) for text, rng in zip(texts, rngs, strict=True)]
        return [self._augment(text, n, rng, spans) for text, rng, spans in zip(texts, rngs, protected, strict=True)]

    def _augment(self, text: str, n: int, rng: random.Random, protected: RowProtection) -> list[str]:
        sequence = split_words(text)
        if not sequence.words:
            return augkit.GeneratedRow([], reason=NO_WORDS) if n > 0 else []
        places: range | list[int] = range(len(sequence.words))
        if protected:
            owners = span_of_words(sequence, protected)
            places = [index for index in places if not splits_a_span(owners, index)]
        attempts = (self._insert_marks(sequence, places, rng) for _ in range(n * ATTEMPTS_PER_OUTPUT))
        return first_distinct(text, attempts, n)

    def _insert_marks(self, sequence: WordSequence, places: range | list[int], rng: random.Random) -> str:
        """Marks before ``q`` distinct words drawn among ``places`` (every word, or those a
        mark may precede without splitting a protected span)."""
        word_count = len(sequence.words)
        result = sequence.copy()
        count = min(len(places), rng.randint(1, int(self.punc_ratio * word_count + 1)))
        for position in rng.sample(places, count):
            insert_before_word(result, position, self._marks[int(rng.random() * len(self._marks))])
        return join_words(result)
