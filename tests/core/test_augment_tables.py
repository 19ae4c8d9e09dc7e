"""``augment`` on lists, DataFrames and Hugging Face datasets: shapes, provenance, labels."""

from __future__ import annotations

import datasets
import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN


def test_list_in_gives_list_of_lists_in_order(banking77_sentences):
    texts = banking77_sentences[:20]
    out = augkit.augment(texts, "eda", n=3, seed=0)
    assert len(out) == len(texts)
    for source, augmentations in zip(texts, out):
        assert 1 <= len(augmentations) <= 3
        assert source not in augmentations
        assert all(isinstance(a, str) and a.strip() for a in augmentations)


def test_dataframe_keeps_original_rows_and_copies_other_columns(banking77_10shot):
    frame = banking77_10shot.head(30).copy()
    frame["id"] = np.arange(100, 130)
    frame.index = [f"row{i}" for i in range(30)]
    out = augkit.augment(frame, "eda", n=2, seed=0)

    originals = out[out[METHOD_COLUMN].isna()]
    restored = originals.drop(columns=[SOURCE_COLUMN, METHOD_COLUMN]).set_axis(originals[SOURCE_COLUMN].tolist())
    pd.testing.assert_frame_equal(restored, frame)

    augmented = out[out[METHOD_COLUMN].notna()]
    assert len(augmented) > 0 and set(augmented[METHOD_COLUMN]) == {"eda"}
    sources = frame.loc[augmented[SOURCE_COLUMN]]
    assert augmented["label"].tolist() == sources["label"].tolist()
    assert augmented["id"].tolist() == sources["id"].tolist()
    assert (augmented["text"].to_numpy() != sources["text"].to_numpy()).all()
    assert list(out.columns) == ["text", "label", "id", SOURCE_COLUMN, METHOD_COLUMN]


def test_each_original_is_followed_by_its_augmentations(banking77_10shot):
    frame = banking77_10shot.head(10)
    out = augkit.augment(frame, "aeda", n=2, seed=3)
    expected_order = [label for label in frame.index for _ in range(3)]
    assert out[SOURCE_COLUMN].tolist() == expected_order


def test_keep_original_false_returns_only_augmentations(banking77_10shot):
    frame = banking77_10shot.head(10)
    out = augkit.augment(frame, "aeda", n=2, seed=0, keep_original=False)
    assert out[METHOD_COLUMN].notna().all()
    assert len(out) == 20


def test_custom_text_column_and_dtypes_are_preserved(banking77_10shot):
    frame = banking77_10shot.head(8).rename(columns={"text": "utterance"})
    frame["label"] = frame["label"].astype("category")
    frame["weight"] = np.float32(1.5)
    out = augkit.augment(frame, "eda", n=1, seed=0, text_column="utterance", label_column="label")
    assert out["label"].dtype == frame["label"].dtype
    assert out["weight"].dtype == np.float32
    assert out["utterance"].dtype == frame["utterance"].dtype


def test_n_zero_returns_the_input_rows_only(banking77_10shot):
    frame = banking77_10shot.head(5)
    out = augkit.augment(frame, "eda", n=0, seed=0)
    assert out["text"].tolist() == frame["text"].tolist()


def test_report_is_attached_to_the_dataframe(banking77_10shot):
    frame = banking77_10shot.head(10)
    out = augkit.augment(frame, "eda", n=2, seed=0)
    report = out.attrs["augkit_report"]
    assert report["rows_read"] == 10
    assert report["augmentations"] == int(out[METHOD_COLUMN].notna().sum())
    assert report["rows_written"] == len(out)


def test_dataset_round_trip_matches_the_dataframe_path(banking77_10shot):
    frame = banking77_10shot.head(25).reset_index(drop=True)
    label_names = sorted(set(frame["label"]))
    dataset = datasets.Dataset.from_pandas(frame).cast_column("label", datasets.ClassLabel(names=label_names))
    out = augkit.augment(dataset, "eda", n=2, seed=5, batch_size=7)

    assert isinstance(out, datasets.Dataset)
    assert out.features["label"] == dataset.features["label"]
    expected = augkit.augment(frame, "eda", n=2, seed=5)
    assert out["text"] == expected["text"].tolist()
    assert out[SOURCE_COLUMN] == expected[SOURCE_COLUMN].tolist()
    assert out[METHOD_COLUMN] == [None if pd.isna(m) else m for m in expected[METHOD_COLUMN]]
    names = dataset.features["label"].names
    assert [names[i] for i in out["label"]] == expected["label"].tolist()


def test_unsupported_container_is_a_clear_error():
    with pytest.raises(augkit.InputError, match="expected a list of str, a pandas.DataFrame, a datasets.Dataset or a ray.data.Dataset"):
        augkit.augment({"text": "x"}, "eda")
    with pytest.raises(augkit.InputError, match="single str"):
        augkit.augment("hello world", "eda")
