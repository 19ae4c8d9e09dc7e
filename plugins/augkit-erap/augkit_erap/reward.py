"""ERAP's evaluator: the scores of a paraphrase and their combination, equation 5 with the
thresholds of footnote 1 (Sancheti et al. 2022, section 2.2-2.3).

For an input X, a paraphrase Y and the relation R it should hold:

- r_l(X, Y, R) = O(l = R | X, Y): the oracle's likelihood of R (relation consistency);
- p_l(Y, R) = A(l = R | Y): the hypothesis-only adversary's likelihood of R, counted only
  when R is the adversary's own prediction (a wrong guess means no heuristic was used);
- r_s(X, Y): semantic similarity (MoverScore in the paper; here any scorer, by default the
  cosine of all-MiniLM-L6-v2 embeddings), kept when 0.3 <= r_s <= 0.98 and 0 otherwise;
- r_d(X, Y) = 1 - BLEU(Y, X), BLEU without brevity penalty, on a 0-1 scale (equation 1);

f = alpha * (r_l - p_l) + beta * r_s + delta * r_d (equation 5, alpha = beta = 0.4,
delta = 0.2), where r_l, p_l and r_d count only when the thresholded r_s is above 0: a
copy of the input (r_s near 1) or a paraphrase that lost the meaning (r_s < 0.3) gets 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from augkit.plugin import PARAPHRASE_RELATIONS, InvalidParameterError, renamed_keywords

#: Equation 5's weights (section 2.3).
ALPHA, BETA, DELTA = 0.4, 0.4, 0.2
#: Footnote 1: similarity outside [min, max] zeroes every score.
SIMILARITY_FLOOR, SIMILARITY_CEILING = 0.3, 0.98
#: augkit's one name per idea (docs/plugin-authors.md): bounds are min and max; the old
#: names of the window work, with a warning, until augkit 0.3.
RENAMED_WINDOW = {"similarity_floor": "similarity_min", "similarity_ceiling": "similarity_max"}

#: A similarity scorer: one value per (source, candidate) pair, higher is closer.
SimilarityScorer = Callable[[Sequence[str], Sequence[str]], Sequence[float]]


class HypothesisOnlyAdversary(Protocol):
    """What the evaluator asks of a hypothesis-only adversary A(l | Y): for each text, the
    probability of each paraphrase relation (``equivalence``, ``forward``, ``reverse``)."""

    def relation_probabilities(self, texts: Sequence[str]) -> list[dict[str, float]]: ...


@dataclass(frozen=True)
class RewardWeights:
    """Equation 5's weights and footnote 1's similarity window (the paper's values)."""

    alpha: float = ALPHA
    beta: float = BETA
    delta: float = DELTA
    similarity_min: float = SIMILARITY_FLOOR
    similarity_max: float = SIMILARITY_CEILING

    def __post_init__(self) -> None:
        for name in ("alpha", "beta", "delta", "similarity_min", "similarity_max"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise InvalidParameterError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.similarity_min > self.similarity_max:
            raise InvalidParameterError(
                f"similarity_min ({self.similarity_min}) must not exceed similarity_max ({self.similarity_max})"
            )


RewardWeights.__init__ = renamed_keywords(RENAMED_WINDOW, "RewardWeights")(RewardWeights.__init__)


@dataclass(frozen=True)
class RewardParts:
    """The scores of one paraphrase after footnote 1's thresholds, and their combination
    ``reward`` (equation 5's f for one sample). ``raw_similarity`` is r_s before them."""

    consistency: float
    penalty: float
    similarity: float
    diversity: float
    reward: float
    raw_similarity: float


def combine(consistency: float, penalty: float, similarity: float, diversity: float,
            weights: RewardWeights = RewardWeights()) -> RewardParts:
    """Equation 5 for one sample, after footnote 1: r_s outside the window becomes 0, and then
    r_l, p_l and r_d are 0 too (so is the reward).

    >>> combine(0.9, 0.0, 0.8, 0.5).reward   # 0.4 * 0.9 + 0.4 * 0.8 + 0.2 * 0.5
    0.78
    >>> combine(0.9, 0.0, 0.99, 0.5).reward  # a near copy: nothing
    0.0
    """
    kept = similarity if weights.similarity_min <= similarity <= weights.similarity_max else 0.0
    if kept <= 0:
        return RewardParts(0.0, 0.0, 0.0, 0.0, 0.0, float(similarity))
    reward = weights.alpha * (consistency - penalty) + weights.beta * kept + weights.delta * diversity
    return RewardParts(float(consistency), float(penalty), float(kept), float(diversity), round(float(reward), 12),
                       float(similarity))


def adversary_penalty(probabilities: dict[str, float], relation: str) -> float:
    """p_l: the adversary's likelihood of ``relation``, when ``relation`` is its likeliest
    prediction (ties go to the first of equivalence, forward, reverse); 0 otherwise."""
    predicted = max(PARAPHRASE_RELATIONS, key=lambda r: (probabilities.get(r, 0.0), -PARAPHRASE_RELATIONS.index(r)))
    return float(probabilities.get(relation, 0.0)) if predicted == relation else 0.0


def diversity_rewards(sources: Sequence[str], candidates: Sequence[str]) -> list[float]:
    """r_d = 1 - BLEU(candidate, source) on a 0-1 scale, BLEU without brevity penalty
    (sacrebleu sentence BLEU, effective order, exp smoothing), clipped to [0, 1]."""
    from augkit.plugin import sentence_bleu

    scores = sentence_bleu(list(candidates), list(sources), brevity_penalty=False)
    return [min(1.0, max(0.0, 1.0 - score / 100.0)) for score in scores]


def minilm_similarity(model: str | None = None) -> SimilarityScorer:
    """The default r_s: cosine of sentence embeddings (all-MiniLM-L6-v2 unless ``model``
    names another sentence-transformers model), as a scorer of (sources, candidates)."""

    def similarity(sources: Sequence[str], candidates: Sequence[str]) -> list[float]:
        from augkit.plugin import semantic_similarity

        if not sources:
            return []
        return [float(v) for v in semantic_similarity(list(sources), list(candidates), model=model)]

    return similarity


class ErapEvaluator:
    """Scores paraphrases as ERAP's evaluator does: the oracle's consistency, the adversary's
    penalty (none when ``adversary`` is None, as in re-ranking with no trained adversary),
    similarity, diversity, and equation 5 over them. Everything is batched: one oracle call,
    one similarity call, one adversary call per :meth:`evaluate`.

    ``oracle`` is an :class:`augkit.plugin.EntailmentOracle`; ``similarity`` any
    :data:`SimilarityScorer` (default :func:`minilm_similarity`).
    """

    def __init__(self, oracle, *, similarity: SimilarityScorer | None = None,
                 adversary: HypothesisOnlyAdversary | None = None, weights: RewardWeights = RewardWeights()):
        self.oracle = oracle
        self.similarity = similarity or minilm_similarity()
        self.adversary = adversary
        self.weights = weights

    def evaluate(self, sources: Sequence[str], candidates: Sequence[str], relations: Sequence[str]) -> list[RewardParts]:
        """The :class:`RewardParts` of ``candidates[i]`` as a paraphrase of ``sources[i]``
        holding ``relations[i]``."""
        return [parts for parts, _ in self.judge(sources, candidates, relations)]

    def judge(self, sources: Sequence[str], candidates: Sequence[str], relations: Sequence[str]) -> list[tuple[RewardParts, Any]]:
        """:meth:`evaluate`'s parts, each with the oracle's
        :class:`~augkit.plugin.RelationJudgement` of the pair (which relation it holds)."""
        if not len(sources) == len(candidates) == len(relations):
            raise InvalidParameterError(
                f"evaluate needs one source and one relation per candidate: {len(sources)} sources, "
                f"{len(candidates)} candidates, {len(relations)} relations"
            )
        for relation in set(relations):
            if relation not in PARAPHRASE_RELATIONS:
                raise InvalidParameterError(f"relation must be one of {', '.join(PARAPHRASE_RELATIONS)}; got {relation!r}")
        if not candidates:
            return []
        judgements = self.oracle.judge(list(sources), list(candidates))
        similarities = self.similarity(list(sources), list(candidates))
        diversities = diversity_rewards(sources, candidates)
        if self.adversary is not None:
            guesses = self.adversary.relation_probabilities(list(candidates))
            penalties = [adversary_penalty(g, r) for g, r in zip(guesses, relations, strict=True)]
        else:
            penalties = [0.0] * len(candidates)
        return [
            (combine(j.probabilities[r], p, float(s), d, self.weights), j)
            for j, r, p, s, d in zip(judgements, relations, penalties, similarities, diversities, strict=True)
        ]
