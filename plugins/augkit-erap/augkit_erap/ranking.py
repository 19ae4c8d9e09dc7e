"""ERAP's re-ranking as pipeline steps: ``erap_relation`` scores each candidate by equation 5's
reward for the wanted relation (and, with ``require_relation``, drops those the oracle judges
to hold another), then augkit's ``rank`` orders them by that score (Sancheti et al. 2022,
section 4.1, the RR baselines). :func:`reward_ranking` is that ``rank`` step; the ``erap``
method ranks pairs' paraphrases with the same two steps (:meth:`augkit_erap.ERAP.reranked`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from augkit.plugin import (
    BatchContext,
    Candidate,
    Filter,
    InvalidParameterError,
    ModelNeed,
    check_sources,
)
from augkit_erap.projection import EQUIVALENCE
from augkit_erap.relations import checked_relation
from augkit_erap.reward import ErapEvaluator, RewardWeights, minilm_similarity

#: The score ``erap_relation`` adds (column ``augkit_erap_reward``, trace ``score_erap_reward``).
REWARD_SCORE = "erap_reward"


class ErapRelationFilter(Filter):
    """Scores each candidate by ERAP's reward for a relation to its source (equation 5) and, by
    default, drops those the NLI oracle finds holding another relation.

    The score ``erap_reward`` is equation 5's f for the candidate as a paraphrase of its source
    holding ``relation``: alpha times the oracle's likelihood of the relation, plus beta times
    the similarity, plus delta times the diversity (1 - BLEU to the source), all 0 when the
    similarity is outside footnote 1's window (a copy, or a paraphrase that lost the meaning).
    Ranking is a later step's job: ``rank(erap_reward=1, normalize=raw)`` orders the candidates
    by it, ties in their arrival order, as the ``erap`` method's own pipeline does
    (``erap(sample_from=...)`` runs ``erap_relation`` and that ``rank`` after its sampler).
    Every candidate of a batch is judged in one oracle call and one similarity call.

    Parameters
    ----------
    relation : str
        What each candidate should be to its source: ``equivalence`` (same meaning),
        ``forward`` (more general: the source entails it) or ``reverse`` (more specific).
    require_relation : bool
        Drop candidates the oracle judges to hold another relation (default), saying which;
        False keeps them all, scored, as the paper's RR baselines do.
    oracle : str, optional
        The 3-class NLI classifier of the oracle (default ``FacebookAI/roberta-large-mnli``).
    similarity_model : str, optional
        Sentence-transformers model of the similarity reward (default all-MiniLM-L6-v2;
        MoverScore in the paper).
    alpha : float
        Equation 5's weight of relation consistency (the oracle's likelihood of the relation).
    beta : float
        Equation 5's weight of similarity.
    delta : float
        Equation 5's weight of diversity (1 - BLEU to the source, no brevity penalty).
    device : str
        Where to run the models.
    """

    name = "erap_relation"
    scores = (REWARD_SCORE,)
    uses_model = True  # the NLI oracle and the sentence encoder

    def __init__(self, relation: str = EQUIVALENCE, require_relation: bool = True, oracle: str | None = None,
                 similarity_model: str | None = None, alpha: float = 0.4, beta: float = 0.4, delta: float = 0.2,
                 device: str = "auto"):
        self.relation = checked_relation(relation)
        if not isinstance(require_relation, bool):
            raise InvalidParameterError(f"erap_relation: require_relation must be True or False, got {require_relation!r}")
        self.require_relation = require_relation
        self.oracle = oracle
        self.similarity_model = similarity_model
        self.weights = RewardWeights(alpha=alpha, beta=beta, delta=delta)
        self.alpha, self.beta, self.delta = alpha, beta, delta
        self.device = device
        self._evaluator: ErapEvaluator | None = None

    def __getstate__(self) -> dict:
        # The loaded oracle and encoder are loaded again where unpickled (a worker).
        return {**self.__dict__, "_evaluator": None}

    def required_models(self) -> list[ModelNeed]:
        """The NLI oracle and the similarity encoder."""
        from augkit.plugin import DEFAULT_NLI_MODEL

        return [ModelNeed(self.oracle or DEFAULT_NLI_MODEL, "pair", "oracle", "NLI oracle"),
                ModelNeed(self.similarity_model, "sentence-transformers", "similarity_model", "similarity reward")]

    @property
    def evaluator(self) -> ErapEvaluator:
        """Equation 5 on this step's oracle, encoder and weights, created on first use (the
        models load then)."""
        if self._evaluator is None:
            from augkit.plugin import EntailmentOracle

            self._evaluator = ErapEvaluator(EntailmentOracle(self.oracle, device=self.device),
                                            similarity=minilm_similarity(self.similarity_model), weights=self.weights)
        return self._evaluator

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return self.filter_batch([source], [candidates], BatchContext())[0]

    def filter_batch(self, sources: list[str], candidates: list[list[Candidate]],
                     context: BatchContext) -> list[list[Candidate]]:
        check_sources(self.name, sources, candidates)
        return self.scored(sources, candidates, [self.relation] * len(sources))

    def scored(self, sources: Sequence[str], candidates: Sequence[list[Candidate]],
               relations: Sequence[str]) -> list[list[Candidate]]:
        """Each source's candidates, in their order, with their reward for ``relations[i]`` as
        the score ``erap_reward``; with ``require_relation``, only those the oracle judges to
        hold it (each other one says what it was judged). One oracle call for all of them: the
        ``erap`` method scores its pairs' paraphrases here too, each request with its relation."""
        flat = [(row, candidate) for row, found in enumerate(candidates) for candidate in found]
        if not flat:
            return [[] for _ in candidates]
        judged = self.evaluator.judge([sources[row] for row, _ in flat], [candidate.text for _, candidate in flat],
                                      [relations[row] for row, _ in flat])
        kept: list[list[Candidate]] = [[] for _ in candidates]
        for (row, candidate), (parts, judgement) in zip(flat, judged, strict=True):
            candidate.scores[REWARD_SCORE] = parts.reward
            if self.require_relation and judgement.relation != relations[row]:
                candidate.drop_reason = (f"judged {judgement.relation!r} by the oracle, not {relations[row]!r} "
                                         "(require_relation=false keeps it)")
            else:
                kept[row].append(candidate)
        return kept


def reward_ranking(k: int | None = None) -> Any:
    """The ``rank`` step that orders candidates by ``erap_reward`` as given, best first, ties in
    their arrival order (sample order): ``rank(erap_reward=1, normalize=raw)``. Raw, because
    only the reward's order matters, and min-max scaling could merge two rewards a hair apart."""
    from augkit.plugin import RankFilter

    return RankFilter(k=k, normalize="raw", **{REWARD_SCORE: 1.0})
