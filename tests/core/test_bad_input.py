"""Bad input: clear errors or a documented pass-through; no row or label is ever lost."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN


@pytest.fixture
def frame_with_gaps(banking77_10shot):
    texts = banking77_10shot["text"].head(6).tolist()
    frame = pd.DataFrame(
        {
            "text": pd.Series([texts[0], None, np.nan, "", "   \t", texts[1]], dtype=object),
            "label": banking77_10shot["label"].head(6).tolist(),
        }
    )
    return frame


def test_missing_empty_and_blank_texts_pass_through_and_are_counted(frame_with_gaps):
    out = augkit.augment(frame_with_gaps, "eda", n=2, seed=0)
    originals = out[out[METHOD_COLUMN].isna()].reset_index(drop=True)
    assert originals["label"].tolist() == frame_with_gaps["label"].tolist()
    kept = originals["text"].tolist()
    assert kept[0] == frame_with_gaps["text"][0] and kept[5] == frame_with_gaps["text"][5]
    assert kept[1] is None and isinstance(kept[2], float) and math.isnan(kept[2])
    assert kept[3:5] == ["", "   \t"]
    augmented_sources = set(out.loc[out[METHOD_COLUMN].notna(), SOURCE_COLUMN])
    assert augmented_sources == {0, 5}
    report = out.attrs["augkit_report"]
    assert report["without_augmentation"] == {"missing text (None/NaN)": 2, "empty or whitespace text": 2}


def test_list_input_with_gaps_gives_empty_lists(banking77_sentences):
    out = augkit.augment([banking77_sentences[0], None, "", " "], "aeda", n=2, seed=0)
    assert len(out[0]) == 2 and out[1:] == [[], [], []]


def test_non_string_text_names_column_row_and_type(banking77_10shot):
    frame = banking77_10shot.head(3).astype({"text": object}).set_axis(["a", "b", "c"])
    frame.loc["b", "text"] = 42
    with pytest.raises(augkit.InputError) as caught:
        augkit.augment(frame, "eda", n=1, seed=0)
    assert "column 'text', row 'b': expected text (str), got int 42" in str(caught.value)
    assert "coerce=True" in str(caught.value)


def test_coerce_turns_values_into_strings(banking77_10shot):
    frame = pd.DataFrame({"text": [12345, 3.5], "label": ["x", "y"]})
    out = augkit.augment(frame, "aeda", n=1, seed=0, coerce=True)
    originals = out[out[METHOD_COLUMN].isna()]
    assert originals["text"].tolist() == [12345, 3.5]  # originals untouched
    augmented = out[out[METHOD_COLUMN].notna()]
    assert all(isinstance(t, str) for t in augmented["text"])
    assert augmented["label"].tolist() == ["x", "y"]


def test_missing_column_lists_the_columns(banking77_10shot):
    with pytest.raises(augkit.InputError, match="text column 'sentence' not found; columns are: text, label"):
        augkit.augment(banking77_10shot, "eda", text_column="sentence")
    with pytest.raises(augkit.InputError, match="label column 'intent' not found"):
        augkit.augment(banking77_10shot, "eda", label_column="intent")


def test_provenance_columns_in_the_input_are_refused(banking77_10shot):
    once = augkit.augment(banking77_10shot.head(3), "eda", n=1, seed=0)
    with pytest.raises(augkit.InputError, match="already has augkit provenance column"):
        augkit.augment(once, "eda", n=1, seed=0)


@pytest.mark.parametrize("n", [-1, 1.5, True, "2"])
def test_invalid_n_is_refused(n, banking77_sentences):
    with pytest.raises(augkit.InvalidParameterError, match="n must be a non-negative int"):
        augkit.augment(banking77_sentences[:2], "eda", n=n)


def test_invalid_parameter_value_names_the_method(banking77_sentences):
    with pytest.raises(augkit.InvalidParameterError, match="eda: alpha_sr must be a number in \\[0, 1\\]"):
        augkit.augment(banking77_sentences[:2], "eda", alpha_sr=2)


class ReturnsNone(augkit.Augmenter):
    name = "returns-none"

    def augment(self, text, n, rng):
        return None


class ReturnsNumbers(augkit.Augmenter):
    name = "returns-numbers"

    def augment(self, text, n, rng):
        return [1, 2]


@pytest.mark.parametrize(
    "augmenter, kind, message",
    [(ReturnsNone(), "returned NoneType", "never None"), (ReturnsNumbers(), "returned a int candidate", "candidates must be str")],
)
def test_augmenter_breaking_the_contract_is_named(augmenter, kind, message, banking77_sentences):
    texts = banking77_sentences[:2]
    with pytest.raises(augkit.NothingAugmentedError, match=f"failed on all 2 rows asked: 2 augmenter {augmenter.name!r} {kind}"
                       ) as failed:
        augkit.augment_with_report(texts, augmenter, n=2, seed=0)
    report = failed.value.report
    assert report.rows_augmented == 0
    assert report.without_augmentation == {
        f"augmentation failed (augmenter {augmenter.name!r} {kind}; strict mode stops and shows it)": 2
    }
    with pytest.raises(augkit.AugmentationFailedError, match=message) as caught:
        augkit.augment(texts, augmenter, n=2, seed=0, strict=True)
    assert augmenter.name in str(caught.value) and texts[0][:40] in str(caught.value)
    assert isinstance(caught.value.__cause__, augkit.AugmenterOutputError)


def test_no_row_or_label_is_lost_on_random_tables(banking77_10shot):
    rng = random.Random(0)
    pool = banking77_10shot["text"].tolist() + [None, "", "  ", "😀", "ok"]
    for _ in range(10):
        size = rng.randint(1, 25)
        frame = pd.DataFrame(
            {"text": pd.Series([rng.choice(pool) for _ in range(size)], dtype=object), "label": [rng.randint(0, 9) for _ in range(size)]},
            index=rng.sample(range(1000), size),
        )
        out = augkit.augment(frame, "eda+aeda", n=rng.randint(0, 3), seed=rng.randint(0, 99))
        originals = out[out[METHOD_COLUMN].isna()]
        assert originals[SOURCE_COLUMN].tolist() == frame.index.tolist()
        assert originals["label"].tolist() == frame["label"].tolist()
        augmented = out[out[METHOD_COLUMN].notna()]
        assert augmented["label"].tolist() == frame.loc[augmented[SOURCE_COLUMN].tolist(), "label"].tolist()


def test_contract_errors_in_worker_processes_reach_the_caller(banking77_sentences):
    with pytest.raises(augkit.AugmentationFailedError, match="never None"):
        augkit.augment(banking77_sentences[:40], ReturnsNone(), n=2, seed=0, batch_size=5, workers=2, strict=True)
