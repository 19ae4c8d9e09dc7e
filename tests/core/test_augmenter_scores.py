"""Augmenters that attach scores: declared names become augkit_<name> columns in every
output kind, with NaN/None where a candidate has no score."""

from __future__ import annotations

import math

import pytest

import augkit


class Ranked(augkit.Augmenter):
    """Scores its candidates by their length; plain strings carry no score."""

    name = "ranked-test"
    scores = ("length",)

    def augment(self, text, n, rng):
        scored = augkit.Candidate(text.upper(), "", {"length": float(len(text))})
        return [scored, text.lower() + "!"][:n]


def test_scores_become_columns_and_unscored_candidates_get_nan(banking77_10shot):
    frame = banking77_10shot.head(4)
    out = augkit.augment(frame, Ranked(), n=2, seed=0)
    augmented = out[out["augkit_method"] == "ranked-test"]
    assert augmented["augkit_length"].iloc[0::2].tolist() == [float(len(t)) for t in frame["text"]]
    assert augmented["augkit_length"].iloc[1::2].isna().all()
    assert out[out["augkit_method"].isna()]["augkit_length"].isna().all()


def test_a_declared_score_column_exists_even_when_no_candidate_has_it(banking77_10shot):
    class Silent(Ranked):
        name = "silent-test"

        def augment(self, text, n, rng):
            return [text + "!"]

    out = augkit.augment(banking77_10shot.head(2), Silent(), n=1, seed=0)
    assert "augkit_length" in out.columns and out["augkit_length"].isna().all()


def test_a_dataset_gets_the_same_scores(banking77_10shot):
    datasets = pytest.importorskip("datasets")
    frame = banking77_10shot.head(4)
    from_frame = augkit.augment(frame, Ranked(), n=2, seed=0)
    from_dataset = augkit.augment(datasets.Dataset.from_pandas(frame), Ranked(), n=2, seed=0).to_pandas()
    assert from_dataset["text"].tolist() == from_frame["text"].tolist()
    left = [None if (isinstance(v, float) and math.isnan(v)) else v for v in from_frame["augkit_length"]]
    right = [None if (isinstance(v, float) and math.isnan(v)) else v for v in from_dataset["augkit_length"]]
    assert left == right


def test_a_candidate_whose_text_is_not_a_string_is_refused():
    class Broken(augkit.Augmenter):
        name = "broken-test"

        def augment(self, text, n, rng):
            return [augkit.Candidate(None, "", {})]

    with pytest.raises(augkit.AugmentationFailedError, match="candidates must be str") as caught:
        augkit.augment(["I lost my card"], Broken(), n=1, strict=True)
    assert isinstance(caught.value.__cause__, augkit.AugmenterOutputError)
    with pytest.raises(augkit.NothingAugmentedError, match="failed on the only row asked") as failed:
        augkit.augment_with_report(["I lost my card"], Broken(), n=1)
    assert failed.value.report.without_augmentation == {
        "augmentation failed (augmenter 'broken-test' returned a Candidate whose text is NoneType; "
        "strict mode stops and shows it)": 1
    }

