"""ERAP's oracle (equation 7) and the ``entailment`` filter: the full truth table, relation
likelihoods, label names read from the model's config, batched judgements equal to one pair
at a time, and the filter keeping exactly the candidates of the asked relation, on SICK pairs
with the tiny random NLI classifier."""

from __future__ import annotations

import itertools
import json
import shutil

import pandas as pd
import pytest

import augkit
from augkit.errors import InputError, InvalidParameterError
from augkit.metrics import (
    RELATIONS,
    EntailmentOracle,
    entailment_relation,
    relation_of,
    relation_probabilities,
)

NLI = ("entailment", "neutral", "contradiction")
EXPECTED = {
    ("entailment", "entailment"): "equivalence",
    ("entailment", "neutral"): "forward",
    ("neutral", "entailment"): "reverse",
    ("contradiction", "contradiction"): "contradiction",
    ("neutral", "neutral"): "neutral",
}


@pytest.mark.parametrize(("forward", "backward"), list(itertools.product(NLI, NLI)))
def test_equation_7_truth_table(forward, backward):
    assert relation_of(forward, backward) == EXPECTED.get((forward, backward), "invalid")


def test_an_unknown_label_is_refused():
    with pytest.raises(InvalidParameterError, match="entailment, neutral, contradiction"):
        relation_of("entails", "neutral")


def test_relation_likelihoods_multiply_the_directions_and_sum_to_one():
    forward = {"entailment": 0.6, "neutral": 0.3, "contradiction": 0.1}
    backward = {"entailment": 0.2, "neutral": 0.5, "contradiction": 0.3}
    p = relation_probabilities(forward, backward)
    assert p["equivalence"] == pytest.approx(0.12)
    assert p["forward"] == pytest.approx(0.30)
    assert p["reverse"] == pytest.approx(0.06)
    assert p["contradiction"] == pytest.approx(0.03)
    assert p["neutral"] == pytest.approx(0.15)
    assert p["invalid"] == pytest.approx(1 - 0.12 - 0.30 - 0.06 - 0.03 - 0.15)
    assert set(p) == set(RELATIONS) and sum(p.values()) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def sick_pairs(shared_data) -> list[tuple[str, str]]:
    frame = pd.read_csv(shared_data / "sick" / "kkalouli" / "SICK.txt", sep="\t", dtype=str, keep_default_na=False)
    return list(zip(frame["sentence_A"].head(24), frame["sentence_B"].head(24)))


def test_judgements_are_equation_7_on_both_directions_of_the_classifier(tiny_pair_classifier, sick_pairs):
    from augkit.models import load_pair_classifier

    sources, candidates = [a for a, _ in sick_pairs], [b for _, b in sick_pairs]
    judgements = EntailmentOracle(str(tiny_pair_classifier), device="cpu").judge(sources, candidates)
    classifier = load_pair_classifier(str(tiny_pair_classifier), device="cpu")
    forward = classifier.predict(list(zip(sources, candidates)))
    backward = classifier.predict(list(zip(candidates, sources)))
    # the oracle runs both directions as one batch, the classifier here each direction alone:
    # float32 logits of a pair differ with the batch it is in by about 1e-6 relative, as the
    # CPU's kernels go (1.05e-6 on one machine), so the probabilities are compared to 1e-5
    for judgement, f, b in zip(judgements, forward, backward):
        assert judgement.relation == relation_of(max(f, key=f.get), max(b, key=b.get))
        assert judgement.forward == pytest.approx(f, abs=1e-5) and judgement.backward == pytest.approx(b, abs=1e-5)
        assert judgement.probabilities == pytest.approx(relation_probabilities(f, b), abs=1e-5)
    assert len({j.relation for j in judgements}) > 1, "random weights should not put every pair in one relation"


def test_a_pair_judged_alone_equals_it_judged_in_a_batch(tiny_pair_classifier, sick_pairs):
    oracle = EntailmentOracle(str(tiny_pair_classifier), device="cpu")
    batch = oracle.judge([a for a, _ in sick_pairs], [b for _, b in sick_pairs])
    alone = [oracle.judge([a], [b])[0] for a, b in sick_pairs[:6]]
    for one, batched in zip(alone, batch):
        assert one.relation == batched.relation
        assert one.probabilities == pytest.approx(batched.probabilities, abs=1e-6)


def test_label_order_comes_from_the_config(tiny_pair_classifier, sick_pairs, tmp_path):
    """The same weights with id2label reversed: what was 'entailment' is now 'contradiction'."""
    folder = tmp_path / "reversed"
    shutil.copytree(tiny_pair_classifier, folder)
    config = json.loads((folder / "config.json").read_text())
    config["id2label"] = {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}
    config["label2id"] = {"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2}
    (folder / "config.json").write_text(json.dumps(config))
    a, b = sick_pairs[0]
    original = EntailmentOracle(str(tiny_pair_classifier), device="cpu").judge([a], [b])[0]
    swapped = EntailmentOracle(str(folder), device="cpu").judge([a], [b])[0]
    assert swapped.forward["entailment"] == pytest.approx(original.forward["contradiction"])
    assert swapped.forward["contradiction"] == pytest.approx(original.forward["entailment"])


def test_a_classifier_without_label_names_is_refused_with_the_fix(tiny_pair_classifier, tmp_path):
    folder = tmp_path / "unnamed"
    shutil.copytree(tiny_pair_classifier, folder)
    config = json.loads((folder / "config.json").read_text())
    config["id2label"] = {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}
    config["label2id"] = {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2}
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(InputError, match="LABEL_0.*id2label"):
        entailment_relation(["a"], ["b"], model=str(folder), device="cpu")


def test_the_metric_checks_its_inputs():
    with pytest.raises(InvalidParameterError, match="single str"):
        entailment_relation("a dog runs", ["a dog is running"])
    with pytest.raises(InvalidParameterError):
        entailment_relation(["a", "b"], ["a"])
    assert entailment_relation([], []) == []


def test_filter_keeps_exactly_the_candidates_holding_the_relation(tiny_pair_classifier, sick_pairs):
    texts = [a for a, _ in sick_pairs[:12]]
    relations = {}
    for keep in ("equivalence", "forward,reverse"):
        out, trace = augkit.augment(texts, f"eda|entailment(keep={keep!r})", n=3, seed=1, trace=True,
                                    **{"entailment.model": str(tiny_pair_classifier), "entailment.device": "cpu"})
        generated = trace[["source", "candidate", "fate", "dropped_by", "score_entailment"]]
        judged = entailment_relation([texts[i] for i in generated["source"]], list(generated["candidate"]),
                                     model=str(tiny_pair_classifier), device="cpu", details=True)
        wanted = keep.split(",")
        for (_, row), judgement in zip(generated.iterrows(), judged):
            held = judgement.relation in wanted
            assert (row["fate"] == "kept") == held or row["dropped_by"] not in ("entailment", None)
            if row["dropped_by"] == "entailment":
                assert not held
            assert row["score_entailment"] == pytest.approx(sum(judgement.probabilities[r] for r in wanted), abs=1e-6)
        relations[keep] = sum(len(row) for row in out)
    assert any(relations.values()), "some candidates should pass on random weights"


def test_filter_as_a_scorer_keeps_everything(tiny_pair_classifier, sick_pairs):
    texts = [a for a, _ in sick_pairs[:6]]
    params = {"entailment.model": str(tiny_pair_classifier), "entailment.device": "cpu"}
    scored = augkit.augment(texts, "eda|entailment(drop=false)", n=2, seed=3, **params)
    plain = augkit.augment(texts, "eda", n=2, seed=3)
    assert scored == plain


def test_filter_refuses_an_unknown_relation():
    with pytest.raises(InvalidParameterError, match="equivalence, forward, reverse"):
        augkit.augment(["a text"], "eda|entailment(keep='synonym')", n=1, seed=0)
