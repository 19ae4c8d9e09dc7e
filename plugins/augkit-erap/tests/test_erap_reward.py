"""Equation 5 and footnote 1 on hand cases: the weights, the similarity window and what it
zeroes, the adversary's penalty, the diversity reward as BLEU without brevity penalty, and
the evaluator putting the oracle's likelihood of the asked relation into r_l."""

from __future__ import annotations

import pytest
from augkit_erap.reward import (
    ErapEvaluator,
    RewardWeights,
    adversary_penalty,
    combine,
    diversity_rewards,
)

from augkit.plugin import (
    InvalidParameterError,
    RelationJudgement,
    relation_probabilities,
)


def test_equation_5_weighs_consistency_minus_penalty_similarity_and_diversity():
    parts = combine(consistency=0.7, penalty=0.2, similarity=0.6, diversity=0.5)
    assert parts.reward == pytest.approx(0.4 * (0.7 - 0.2) + 0.4 * 0.6 + 0.2 * 0.5)
    weighted = combine(0.7, 0.2, 0.6, 0.5, RewardWeights(alpha=1.0, beta=0.0, delta=0.0))
    assert weighted.reward == pytest.approx(0.5)


@pytest.mark.parametrize(("similarity", "kept"), [(0.29, False), (0.3, True), (0.98, True), (0.981, False), (1.0, False)])
def test_footnote_1_similarity_outside_the_window_zeroes_every_term(similarity, kept):
    parts = combine(0.9, 0.1, similarity, 0.8)
    if kept:
        assert parts.similarity == similarity and parts.consistency == 0.9 and parts.diversity == 0.8
        assert parts.reward == pytest.approx(0.4 * 0.8 + 0.4 * similarity + 0.2 * 0.8)
    else:
        assert (parts.consistency, parts.penalty, parts.similarity, parts.diversity, parts.reward) == (0, 0, 0, 0, 0)
    assert parts.raw_similarity == similarity


def test_the_adversary_penalises_only_when_its_prediction_is_the_relation():
    guess = {"equivalence": 0.2, "forward": 0.7, "reverse": 0.1}
    assert adversary_penalty(guess, "forward") == 0.7
    assert adversary_penalty(guess, "equivalence") == 0.0
    assert adversary_penalty(guess, "reverse") == 0.0


def test_diversity_is_one_minus_bleu_without_brevity_penalty():
    source = "a man is playing a guitar on the stage"
    copy, prefix, other = diversity_rewards([source] * 3, [source, "a man is playing", "two dogs run in the snow"])
    assert copy == pytest.approx(0.0)
    assert prefix == pytest.approx(0.0), "a shortened copy is not diverse: no brevity penalty to make it look so"
    assert other > 0.85, "a sentence sharing one word with the source is nearly fully diverse"


def test_weights_are_checked():
    with pytest.raises(InvalidParameterError, match="alpha"):
        RewardWeights(alpha=-1)
    with pytest.raises(InvalidParameterError, match="similarity_min"):
        RewardWeights(similarity_min=0.9, similarity_max=0.5)


class FixedOracle:
    """Every pair gets the same NLI probabilities both ways."""

    def __init__(self, forward, backward):
        self.forward, self.backward = forward, backward

    def judge(self, sources, candidates):
        p = relation_probabilities(self.forward, self.backward)
        return [RelationJudgement(max(p, key=p.get), p, self.forward, self.backward) for _ in sources]


class FixedAdversary:
    def relation_probabilities(self, texts):
        return [{"equivalence": 0.1, "forward": 0.6, "reverse": 0.3} for _ in texts]


def test_the_evaluator_uses_the_likelihood_of_the_asked_relation_and_the_adversary():
    oracle = FixedOracle({"entailment": 0.8, "neutral": 0.2, "contradiction": 0.0},
                         {"entailment": 0.5, "neutral": 0.5, "contradiction": 0.0})
    similarity = lambda sources, candidates: [0.6] * len(sources)  # noqa: E731
    evaluator = ErapEvaluator(oracle, similarity=similarity, adversary=FixedAdversary())
    sources = ["a man is slicing a tomato"] * 2
    candidates = ["a person is cutting a tomato"] * 2
    forward, equivalence = evaluator.evaluate(sources, candidates, ["forward", "equivalence"])
    assert forward.consistency == pytest.approx(0.8 * 0.5) and forward.penalty == pytest.approx(0.6)
    assert equivalence.consistency == pytest.approx(0.8 * 0.5) and equivalence.penalty == 0.0
    diversity = diversity_rewards(sources[:1], candidates[:1])[0]
    assert forward.reward == pytest.approx(0.4 * (0.4 - 0.6) + 0.4 * 0.6 + 0.2 * diversity)
    with pytest.raises(InvalidParameterError, match="relation must be one of"):
        evaluator.evaluate(sources[:1], candidates[:1], ["neutral"])
