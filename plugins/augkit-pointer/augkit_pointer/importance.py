"""How important each word of a sentence is, for POINTER's progressive stages: the least important
words are removed first, so the insertion model learns to write them last.

POINTER (Zhang et al. 2020, section 3.1) scores a token as the sum of a TF-IDF, a POS and a
YAKE term and lowers repeated tokens. Here a word's importance is

    w_tfidf * tfidf / max tfidf of the sentence                 (idf from the training corpus)
  + w_yake  * [the word is one of YAKE's keywords of the sentence]
  + w_lm    * scorer's score rescaled to [0, 1] in the sentence  (only when a scorer is given)

and a word already seen earlier in the sentence has its importance divided by
:data:`REPEAT_DIVISOR`, as POINTER's data preparation does. The POS term is left out: it needs a
tagger (POINTER uses spaCy's) and YAKE already favours content words over function words.
A language-model term comes in through :class:`WordScorer`; none is used by default.

Words are compared lower-cased. Everything here is deterministic.

>>> importance = WordImportance([["i", "lost", "my", "card"], ["where", "is", "my", "card", "?"]])
>>> [round(x, 2) for x in importance([["i", "lost", "my", "card"]])[0]]   # doctest: +SKIP
[1.0, 2.0, 0.0, 1.0]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from augkit_pointer import keywords

#: POINTER divides the score of a token already seen earlier in the sentence by 10
#: (generate_training_data.py, ``create_masked_lm_predictions``: ``prob_list[i] /= 10``).
REPEAT_DIVISOR = 10.0
#: YAKE's candidates per sentence: as many as the generator's keyword extraction draws its
#: keywords from (:mod:`augkit_pointer.keywords`: k + 2, the authors' settings).
YAKE_CANDIDATES = keywords.DEFAULT_KEYWORDS + keywords.CANDIDATE_SURPLUS


class WordScorer(Protocol):
    """An extra importance term, e.g. from a language model: for each sentence (its words, in
    order) one score per word, higher for a word that matters more (say, the surprisal of the
    word under a masked language model given the rest). Scores are rescaled to [0, 1] within
    each sentence before :attr:`ImportanceWeights.scorer` weighs them, so any scale works.

    ``name`` is recorded in the training record.
    """

    name: str

    def __call__(self, sentences: Sequence[Sequence[str]]) -> Sequence[Sequence[float]]: ...


@dataclass(frozen=True)
class ImportanceWeights:
    """The weights of the terms of a word's importance (POINTER adds its terms unweighted)."""

    tfidf: float = 1.0
    yake: float = 1.0
    scorer: float = 1.0


class WordImportance:
    """Importance of the words of sentences, with the idf of ``corpus`` (word lists, the
    sentences the model trains on); ``scorer`` adds a language-model term.

    Call it with a batch of sentences (word lists); it gives one list of scores per sentence.
    """

    def __init__(
        self,
        corpus: Sequence[Sequence[str]],
        *,
        weights: ImportanceWeights = ImportanceWeights(),
        scorer: WordScorer | None = None,
    ):
        self.weights = weights
        self.scorer = scorer
        self.documents = len(corpus)
        frequency: Counter[str] = Counter()
        for words in corpus:
            frequency.update({word.lower() for word in words})
        self.idf = {word: math.log(self.documents / count) for word, count in frequency.items()}
        # the generator's YAKE, with the authors' settings (single words, dedup 0.9 seqm, window 1)
        self._keywords = keywords.yake_extractor(YAKE_CANDIDATES, keywords.MAX_NGRAM_SIZE)

    def __call__(self, sentences: Sequence[Sequence[str]]) -> list[list[float]]:
        extra = self.scorer(sentences) if self.scorer is not None else [None] * len(sentences)
        if len(extra) != len(sentences):
            raise ValueError(f"the word scorer gave {len(extra)} score lists for {len(sentences)} sentences")
        return [self._sentence(list(words), scores) for words, scores in zip(sentences, extra)]

    def describe(self) -> dict[str, Any]:
        """What the scores are made of, for the training record."""
        yake = {"candidates": YAKE_CANDIDATES, "max_ngram_size": keywords.MAX_NGRAM_SIZE, "lower_cased": True}
        return {"weights": vars(self.weights), "yake": yake, "repeat_divisor": REPEAT_DIVISOR,
                "scorer": getattr(self.scorer, "name", type(self.scorer).__name__) if self.scorer else None,
                "idf_documents": self.documents}

    def _sentence(self, words: list[str], extra: Sequence[float] | None) -> list[float]:
        lowered = [word.lower() for word in words]
        counts = Counter(lowered)
        unseen = math.log(max(self.documents, 1))  # a word outside the corpus counts as seen once
        tfidf = [counts[w] / len(words) * self.idf.get(w, unseen) for w in lowered]
        yake_words = self.keywords(words)
        scores = [self.weights.tfidf * value + self.weights.yake * (w in yake_words)
                  for value, w in zip(_scaled_by_max(tfidf), lowered)]
        if extra is not None:
            if len(extra) != len(words):
                raise ValueError(f"the word scorer gave {len(extra)} scores for the {len(words)} words of {' '.join(words)!r}")
            scores = [s + self.weights.scorer * e for s, e in zip(scores, _rescaled(extra))]
        seen: set[str] = set()
        for i, word in enumerate(lowered):
            if word in seen:
                scores[i] /= REPEAT_DIVISOR
            seen.add(word)
        return scores

    def keywords(self, words: Sequence[str]) -> set[str]:
        """YAKE's keywords of the sentence made of ``words`` (lower-cased)."""
        if not words:
            return set()
        return {keyword.lower() for keyword, _score in self._keywords.extract_keywords(" ".join(words).lower())}


def _scaled_by_max(values: Sequence[float]) -> list[float]:
    top = max(values, default=0.0)
    return [v / top if top > 0 else 0.0 for v in values]


def _rescaled(values: Sequence[float]) -> list[float]:
    low, high = min(values, default=0.0), max(values, default=0.0)
    return [(v - low) / (high - low) if high > low else 0.0 for v in values]
