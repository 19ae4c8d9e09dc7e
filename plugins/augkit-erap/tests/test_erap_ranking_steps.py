"""ERAP's re-ranking as pipeline steps: ``erap_relation`` scores each candidate by equation 5's
reward and drops, saying why, those the oracle judges to hold another relation; ``rank`` on
that score orders them as the ``erap`` method does. On CLINC150 test questions (every 450th,
read by no other ERAP test) with the tiny random oracle and encoder of the root conftest."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from augkit_erap.ranking import REWARD_SCORE, ErapRelationFilter
from augkit_erap.reward import ErapEvaluator, minilm_similarity

import augkit
from augkit.plugin import EntailmentOracle, InvalidParameterError, Pipeline

#: Every how many lines of CLINC150's test split a question is taken (20 questions, 150 intents).
STRIDE = 450
#: EDA rewriting half the words: the tiny encoder finds EDA's default rewrites above footnote
#: 1's similarity ceiling (0.98), where every reward is 0.
BOLD_EDA = "eda(alpha_sr=0.5, alpha_ri=0.5, alpha_rs=0.5, p_rd=0.5)"
SCORE_COLUMN = f"score_{REWARD_SCORE}"


@pytest.fixture(scope="module")
def questions(shared_data) -> list[str]:
    lines = (shared_data / "clinc150" / "jianguoz" / "test" / "seq.in").read_text(encoding="utf-8").splitlines()
    return lines[7::STRIDE]


@pytest.fixture(scope="module")
def models(tiny_pair_classifier, tiny_encoder_dir) -> dict:
    return {"oracle": str(tiny_pair_classifier), "similarity_model": str(tiny_encoder_dir), "device": "cpu"}


def _relation_step(models: dict, **options) -> str:
    """The ``erap_relation`` step with the tiny models, as a pipeline string writes it."""
    arguments = {**models, **options}
    return "erap_relation(" + ", ".join(f"{name}={value!r}" for name, value in arguments.items()) + ")"


def _traced(questions: list[str], spec: str, n: int = 4) -> pd.DataFrame:
    _, trace = augkit.augment(questions, spec, n=n, seed=36, trace=True)
    return trace[trace.candidate.notna()]


def test_each_candidates_score_is_equation_5s_reward_for_the_relation(questions, models):
    trace = _traced(questions, f"{BOLD_EDA}|{_relation_step(models, relation='forward', require_relation=False)}")
    assert len(trace) > len(questions) and (trace.fate == "kept").all()
    evaluator = ErapEvaluator(EntailmentOracle(models["oracle"], device="cpu"),
                              similarity=minilm_similarity(models["similarity_model"]))
    sources = [questions[row] for row in trace.source]
    rewards = [parts.reward for parts in evaluator.evaluate(sources, list(trace.candidate),
                                                            ["forward"] * len(trace))]
    assert list(trace[SCORE_COLUMN]) == pytest.approx(rewards, abs=1e-9)
    assert len(set(rewards)) > 1, "the rewards separate the candidates: a score that could be constant proves nothing"


def test_require_relation_drops_what_the_oracle_judges_otherwise_and_names_it(questions, models):
    trace = _traced(questions, f"eda|{_relation_step(models)}")
    oracle = EntailmentOracle(models["oracle"], device="cpu")
    judged = [j.relation for j in oracle.judge([questions[row] for row in trace.source], list(trace.candidate))]
    dropped = trace.fate == "dropped"
    assert dropped.any()
    assert [relation != "equivalence" for relation in judged] == list(dropped)
    assert list(trace.dropped_by[dropped]) == ["erap_relation"] * int(dropped.sum())
    expected = [f"judged {relation!r} by the oracle, not 'equivalence' (require_relation=false keeps it)"
                for relation, drop in zip(judged, dropped, strict=True) if drop]
    assert list(trace.reason[dropped]) == expected
    assert trace[SCORE_COLUMN].map(math.isfinite).all(), "a dropped candidate keeps its score in the trace"


def test_a_hand_written_pipeline_gives_the_erap_methods_outputs(questions, models):
    sampled = {"sample_from": "eda", "num_return": 6}
    n = 2
    by_method = augkit.augment(questions, "erap", n=n, seed=36, require_relation=False, **sampled, **models)
    # the sampler's every sample reaches the steps: n * oversample >= num_return
    spec = (f"[oversample={sampled['num_return'] / n}] erap(sample_from='eda', num_return={sampled['num_return']}, "
            f"aware=false)|{_relation_step(models, require_relation=False)}|rank(erap_reward=1, normalize=raw)")
    by_hand = augkit.augment(questions, Pipeline.from_string(spec), n=n, seed=36)
    assert by_hand == by_method
    unranked = augkit.augment(questions, "erap", n=n, seed=36, aware=False, **sampled)
    assert unranked != by_method, "the ranking changes what is kept: equal outputs would prove nothing"


def test_the_trace_of_a_hand_written_erap_pipeline_shows_the_scores_drops_and_ranks(questions, models):
    spec = (f"[oversample=3] erap(sample_from='eda', num_return=6, aware=false)|{_relation_step(models)}"
            "|rank(erap_reward=1, normalize=raw)")
    trace = _traced(questions, spec, n=2)
    assert "erap_relation" in set(trace.dropped_by)
    kept = trace[trace.fate == "kept"]
    assert len(kept) > 0 and kept["score_rank"].equals(kept[SCORE_COLUMN])
    for _, row in kept.groupby("source", sort=False):
        assert list(row[SCORE_COLUMN]) == sorted(row[SCORE_COLUMN], reverse=True), "kept best first"


@pytest.mark.parametrize(("options", "message"), [
    ({"relation": "equivalance"}, r"relation must be one of equivalence, forward, reverse.*got 'equivalance'"),
    ({"require_relation": "yes"}, r"erap_relation: require_relation must be True or False, got 'yes'"),
    ({"alpha": -1}, r"alpha must be a finite number >= 0, got -1"),
])
def test_a_wrong_parameter_is_refused_with_what_is_wrong(options, message):
    with pytest.raises(InvalidParameterError, match=message):
        ErapRelationFilter(**options)
