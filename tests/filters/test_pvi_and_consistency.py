"""The selection filters that judge a candidate with a classifier trained on the run's
originals: ``pvi`` (pointwise V-information, ICDA) and ``consistency`` (the label's margin
over the runner-up).

The hand-checked set: the 5-shot BANKING77 originals of its first 8 labels (40 rows), and 40
candidates taken from BANKING77's test split, 5 per label. The first 3 of each label are
handed to a source of their own label (right); the last 2 to a source of the next label
(wrong: "how old do we have to be?" as an ``apple_pay_or_google_pay`` rewrite). Read by
hand, the test texts are what their labels say, so a filter should keep the 24 right ones
and drop the 16 wrong ones.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.errors import InputError, InvalidParameterError
from augkit.filters import ConsistencyFilter, PviFilter
from augkit.filters import originals_classifier as originals_module
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext, DatasetContext

LABELS = 8
PER_LABEL = 5
RIGHT_PER_LABEL = 3


def _split(shared_data: Path, name: str) -> pd.DataFrame:
    folder = shared_data / "banking77" / "jianguoz" / name
    return pd.DataFrame({"text": (folder / "seq.in").read_text(encoding="utf-8").splitlines(),
                         "label": (folder / "label").read_text(encoding="utf-8").splitlines()})


@pytest.fixture(scope="module")
def hand_checked(shared_data):
    """(originals frame, sources, candidate texts, row labels, which are right)."""
    train, test = _split(shared_data, "train_5"), _split(shared_data, "test")
    labels = sorted(train.label.unique())[:LABELS]
    originals = train[train.label.isin(labels)].reset_index(drop=True)
    sources, texts, row_labels, right = [], [], [], []
    for position, label in enumerate(labels):
        other = labels[(position + 1) % LABELS]
        for rank, text in enumerate(test[test.label == label].text[:PER_LABEL]):
            owner = label if rank < RIGHT_PER_LABEL else other
            sources.append(originals[originals.label == owner].text.iloc[rank])
            texts.append(text)
            row_labels.append(owner)
            right.append(rank < RIGHT_PER_LABEL)
    return originals, sources, texts, row_labels, right


def _judge(step, hand_checked) -> tuple[list[bool], list[Candidate]]:
    originals, sources, texts, labels, _ = hand_checked
    step.prepare(DatasetContext(originals.text.tolist(), originals.label.tolist()))
    candidates = [[Candidate(text)] for text in texts]
    kept = step.filter_batch(sources, candidates, BatchContext(labels=labels))
    return [bool(row) for row in kept], [row[0] for row in candidates]


def test_consistency_keeps_the_right_candidates_and_drops_the_wrong_ones(hand_checked):
    kept, candidates = _judge(ConsistencyFilter(), hand_checked)
    assert kept == hand_checked[4]
    labels = hand_checked[3]
    for candidate, keep, label in zip(candidates, kept, labels):
        assert (candidate.scores["consistency"] >= 0) == keep
        if not keep:  # the reason names the label the classifier preferred: the candidate's real one
            preferred = candidate.drop_reason.split("gives '", 1)[1].split("'", 1)[0]
            assert preferred != label
            assert preferred in hand_checked[0].label.tolist()


def test_pvi_drops_the_wrong_candidates_and_the_least_informative_right_one(hand_checked):
    kept, candidates = _judge(PviFilter(), hand_checked)
    right = hand_checked[4]
    assert not any(k for k, r in zip(kept, right) if not r)  # every wrong one dropped
    lost = [c.text for k, c, r in zip(kept, candidates, right) if r and not k]
    # the default threshold is each label's 0.1 quantile of its originals' (cross-fitted) PVIs:
    # a right but bare request falls just under it
    assert lost == ["could you please activate my card"]
    wrong = [c.scores["pvi"] for c, r in zip(candidates, right) if not r]
    assert max(wrong) < min(c.scores["pvi"] for c, r in zip(candidates, right) if r)
    assert all("quantile=0.1 of the PVIs of the originals (cross-fitted) of label" in c.drop_reason
               for c, k in zip(candidates, kept) if not k)


def test_pvi_with_a_global_threshold_in_bits(hand_checked):
    kept, candidates = _judge(PviFilter(min=0), hand_checked)
    for candidate, keep in zip(candidates, kept):
        assert keep == (candidate.scores["pvi"] >= 0)
        if not keep:
            assert candidate.drop_reason.startswith(f"PVI {candidate.scores['pvi']:.2f} bits below min=0 for label ")
    # log2 p(y|x) - log2 p(y): with 8 equally frequent labels, PVI never exceeds log2(8) = 3 bits
    assert max(c.scores["pvi"] for c in candidates) <= 3


@pytest.fixture(scope="module")
def sample(shared_data) -> pd.DataFrame:
    train = _split(shared_data, "train_5")
    return train[train.label.isin(sorted(train.label.unique())[:12])].reset_index(drop=True)


def _augmented(sample: pd.DataFrame, spec: str, **options) -> pd.DataFrame:
    out, trace = augkit.augment(sample, spec, n=4, seed=37, label_column="label", trace=True, progress=False, **options)
    return out, trace


@pytest.mark.parametrize("classifier", ["logreg", "tfidf"])
def test_the_result_does_not_depend_on_the_batch_size_or_the_workers(sample, classifier):
    spec = f"eda|pvi(classifier={classifier!r})|consistency(classifier={classifier!r}, min=0.2)"
    reference, trace = _augmented(sample, spec, batch_size=64)
    assert (trace.dropped_by == "pvi").sum() > 0 and (trace.dropped_by == "consistency").sum() > 0
    runs = [{"batch_size": 1}, {"batch_size": 7}]
    if classifier == "tfidf":
        runs.append({"batch_size": 7, "workers": 2})
    for options in runs:
        out, other = _augmented(sample, spec, **options)
        pd.testing.assert_frame_equal(out, reference)
        pd.testing.assert_frame_equal(other, trace)


def test_the_classifiers_are_trained_on_the_originals_only(sample, monkeypatch):
    seen: list[list[str]] = []
    fit = originals_module.OriginalsClassifier.fit

    def recording_fit(self, texts, labels):
        seen.append(list(texts))
        return fit(self, texts, labels)

    monkeypatch.setattr(originals_module.OriginalsClassifier, "fit", recording_fit)
    out, trace = _augmented(sample, "eda|pvi(classifier='tfidf')|consistency(classifier='tfidf')")
    assert len(seen) == 2  # one full fit per filter; the folds refit on the same features
    for texts in seen:
        assert texts == sample.text.tolist()
    assert not set(trace.candidate) & set(seen[0])


def test_cross_fitting_is_what_lets_paraphrases_of_a_source_fail(sample):
    """Judged by a classifier that saw its source, an EDA rewrite looks as sure as the source:
    without cross-fitting the filters keep far more."""
    counts = {}
    for cross_fit in (True, False):
        out, _ = _augmented(sample, f"eda|consistency(classifier='tfidf', min=0.2, cross_fit={cross_fit})")
        counts[cross_fit] = int(out.augkit_method.notna().sum())
    assert counts[False] > counts[True] * 1.2


def test_pvi_thresholds_from_a_validation_table(sample, shared_data, tmp_path):
    valid = _split(shared_data, "valid")
    valid = valid[valid.label.isin(sample.label.unique())].rename(columns={"text": "question", "label": "intent"})
    path = tmp_path / "valid.csv"
    valid.to_csv(path, index=False)
    spec = f"eda|pvi(classifier='tfidf', quantile=0.5, validation={str(path)!r}, validation_text='question', validation_label='intent')"
    out, trace = _augmented(sample, spec)
    reasons = trace[trace.dropped_by == "pvi"].reason
    assert len(reasons) > 0
    assert reasons.str.contains("quantile=0.5 of the PVIs of the validation rows of label").all()
    with pytest.raises(InputError, match=r"has no column 'text' \(columns: question, intent\)"):
        _augmented(sample, f"eda|pvi(quantile=0.5, validation={str(path)!r})")


@pytest.mark.parametrize("step", [PviFilter(classifier="tfidf", quantile=0.9), ConsistencyFilter(classifier="tfidf", min=0.5)])
def test_a_row_without_a_label_passes_with_a_nan_score(hand_checked, step):
    """augkit.augment leaves rows without a label unaugmented; a caller of the filter itself
    may still hand it one, and it passes rather than being judged against no label."""
    originals, sources, texts, labels, _ = hand_checked
    step.prepare(DatasetContext(originals.text.tolist(), originals.label.tolist()))
    labels = [None, math.nan, *labels[2:]]
    candidates = [[Candidate(text)] for text in texts]
    kept = step.filter_batch(sources, candidates, BatchContext(labels=labels))
    assert kept[0] and kept[1]
    assert math.isnan(candidates[0][0].scores[step.name]) and math.isnan(candidates[1][0].scores[step.name])
    assert not all(kept[2:])


@pytest.mark.parametrize("spec, error, message", [
    ("eda|pvi(classifier='bert')", InvalidParameterError, "unknown classifier 'bert'; available: logreg, tfidf"),
    ("eda|pvi(quantile=1.5)", InvalidParameterError, r"quantile must lie in \[0, 1\]"),
    ("eda|consistency(folds=1)", InvalidParameterError, "folds must be at least 2"),
    ("eda|consistency(C=0)", InvalidParameterError, "C must be positive"),
])
def test_bad_parameters_are_refused_naming_them(sample, spec, error, message):
    with pytest.raises(error, match=message):
        augkit.augment(sample, spec, n=2, seed=0, label_column="label")


@pytest.mark.parametrize("name", ["pvi", "consistency"])
def test_the_filters_need_two_labels_and_the_label_column(sample, name):
    with pytest.raises(InputError, match=f"filter '{name}' trains a classifier on the originals' labels: pass label_column="):
        augkit.augment(sample, f"eda|{name}", n=2, seed=0)
    one_label = sample[sample.label == sample.label[0]]
    with pytest.raises(InputError, match="needs originals of at least two labels"):
        augkit.augment(one_label, f"eda|{name}", n=2, seed=0, label_column="label")


def test_the_originals_classifier_probabilities_cover_every_label(sample):
    judge = originals_module.OriginalsClassifier("tfidf").fit(sample.text.tolist(), sample.label.tolist())
    chances = judge.probabilities(sample.text.tolist()[:5])
    assert chances.shape == (5, sample.label.nunique())
    np.testing.assert_allclose(chances.sum(axis=1), 1.0)
    assert judge.column("no such label") == -1


@pytest.mark.slow
def test_a_fine_tuned_classifier_judges_the_same_whatever_the_batch_size(sample, tiny_masked_lm, monkeypatch):
    """``classifier="finetune"``: mechanics only, with a tiny random BERT fine-tuned in place
    of MiniLM (one fine-tuning on all originals, one per fold), for 20 steps of 8."""
    monkeypatch.setitem(originals_module.FINETUNE_SETTINGS, "steps", 20)
    monkeypatch.setitem(originals_module.FINETUNE_SETTINGS, "batch_size", 8)
    spec = f"eda|consistency(classifier='finetune', model={str(tiny_masked_lm)!r}, folds=2, min=-0.05)"
    frame = sample.head(24)
    reference, trace = _augmented(frame, spec, batch_size=64)
    scores = trace.score_consistency.dropna()
    assert len(scores) > 0 and scores.between(-1, 1).all() and scores.nunique() > 1
    out, other = _augmented(frame, spec, batch_size=5)
    pd.testing.assert_frame_equal(out, reference)
    pd.testing.assert_frame_equal(other, trace)
