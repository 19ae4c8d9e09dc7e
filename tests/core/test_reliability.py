"""Reliability across entry points: odd texts pass through or are augmented without losing a
row; broken files get a clear error; a property test over random tables checks that original
rows come out equal to the input and that every augmented row carries its source's other
columns."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import augkit
from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.cli.main import main

ODD_TEXTS = [
    None, float("nan"), "", "   ", "\t\n", "x" * 100_000, "tab\there\x00nul\x07bell", "مرحبا كيف حالك",
    "Hello мир 你好 שלום", "I lost my card 😀🙈", "\u202eright-to-left override", "card\r\nrefund",
]


@pytest.mark.parametrize("method", ["eda", "aeda", "eda+aeda|dedup"])
def test_odd_texts_keep_every_row_through_lists_frames_and_datasets(method):
    texts = [t for t in ODD_TEXTS]
    as_list = augkit.augment(texts, method, n=2, seed=0)
    assert len(as_list) == len(texts)
    frame = pd.DataFrame({"text": pd.Series(texts, dtype=object), "label": range(len(texts))})
    out = augkit.augment(frame, method, n=2, seed=0)
    originals = out[out[METHOD_COLUMN].isna()]
    assert originals["label"].tolist() == list(range(len(texts)))
    for kept, given_text in zip(originals["text"], texts):
        assert kept == given_text or (kept is None and given_text is None) or (isinstance(kept, float) and math.isnan(kept))
    report = out.attrs["augkit_report"]
    assert report["without_augmentation"].get("missing text (None/NaN)") == 2
    assert report["without_augmentation"].get("empty or whitespace text") == 3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "is empty"),
        ('text,label\n"an unterminated quote,1\nanother,2\n', "cannot read"),
    ],
)
def test_broken_files_get_a_clear_error(tmp_path, content, message, capsys):
    path = tmp_path / "in.csv"
    path.write_text(content)
    assert main(["augment", str(path), "-m", "eda", "-o", str(tmp_path / "out.csv"), "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.glob(".*augkit-job"))


def test_a_header_only_file_gives_a_header_only_output(tmp_path, capsys):
    path = tmp_path / "in.csv"
    path.write_text("text,label\n")
    assert main(["augment", str(path), "-m", "eda", "-o", str(tmp_path / "out.csv"), "--no-progress"]) == 0
    assert (tmp_path / "out.csv").read_text().splitlines()[0] == "text,label,augkit_source,augkit_method"
    assert "read 0 rows" in capsys.readouterr().err


texts = st.one_of(st.none(), st.just(float("nan")), st.text(max_size=60), st.sampled_from(ODD_TEXTS[2:]))
cells = st.one_of(st.integers(-5, 5), st.text(max_size=5), st.none(), st.booleans())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(st.tuples(texts, cells, cells), min_size=1, max_size=12),
    n=st.integers(0, 3),
    seed=st.integers(0, 2**32),
    keep_original=st.booleans(),
)
def test_property_originals_survive_and_augmentations_carry_their_sources_columns(rows, n, seed, keep_original):
    frame = pd.DataFrame(rows, columns=["text", "label", "extra"]).astype(object)
    frame.index = [f"r{i}" for i in range(len(frame))]
    out = augkit.augment(frame, "eda+aeda", n=n, seed=seed, keep_original=keep_original)
    originals = out[out[METHOD_COLUMN].isna()]
    if keep_original:
        assert originals[SOURCE_COLUMN].tolist() == frame.index.tolist()
        restored = originals.drop(columns=[SOURCE_COLUMN, METHOD_COLUMN]).set_axis(frame.index)
        pd.testing.assert_frame_equal(restored.astype(object), frame, check_dtype=False)
    else:
        assert originals.empty
    added = out[out[METHOD_COLUMN].notna()]
    for _, row in added.iterrows():
        source = frame.loc[row[SOURCE_COLUMN]]
        for column in ("label", "extra"):
            assert row[column] == source[column] or (pd.isna(row[column]) and pd.isna(source[column]))
        assert isinstance(row["text"], str) and row["text"].strip()
    assert len(added) <= n * len(frame)
