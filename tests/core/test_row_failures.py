"""An augmenter or filter that raises on one row, or returns something outside its contract
there: the row is kept unaugmented, the failure is counted with its reason, every other row gets
exactly the output it would have had; with ``strict`` the run stops naming the row.
Configuration errors still stop at once."""

from __future__ import annotations

import random
import re

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.errors import AugmentationFailedError, InvalidParameterError
from conftest import read_lines


@pytest.fixture(scope="module")
def fragile(installed_test_plugins):
    """The test plugin ``augkit-fragile``: its method raises on texts containing "refund"."""
    from augkit_fragile import Fragile

    return Fragile


class Misconfigured(augkit.Augmenter):
    name = "misconfigured"

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        raise InvalidParameterError("misconfigured: a parameter is wrong for every row")


@pytest.fixture(scope="module")
def frame(banking77_10shot) -> pd.DataFrame:
    return banking77_10shot.head(80).reset_index(drop=True)


def test_a_failing_row_is_kept_counted_and_the_others_are_unchanged(frame, fragile):
    failing = frame["text"].str.contains("refund")
    assert 0 < failing.sum() < len(frame)
    out, report = augkit.augment_with_report(frame, fragile(), n=2, seed=4, batch_size=16)
    healthy, _ = augkit.augment_with_report(frame[~failing], fragile(trigger="\x00never"), n=2, seed=4, batch_size=16)
    originals = out[out["augkit_method"].isna()].drop(columns=["augkit_source", "augkit_method"]).reset_index(drop=True)
    assert originals.equals(frame)  # every row kept, unchanged
    added = out[out["augkit_method"].notna()]
    assert set(added["augkit_source"]) == set(frame.index[~failing])
    assert added["text"].tolist() == healthy[healthy["augkit_method"].notna()]["text"].tolist()
    reasons = report.without_augmentation
    assert reasons["augmentation failed (ValueError; strict mode stops and shows it)"] == failing.sum()
    assert f"{failing.sum()} augmentation failed (ValueError" in report.summary()


def test_strict_stops_naming_the_row(frame, fragile):
    first = frame.loc[frame["text"].str.contains("refund"), "text"].iloc[0]
    with pytest.raises(AugmentationFailedError, match=f"augmenting {first[:80]!r} failed with ValueError"):
        augkit.augment(frame, fragile(), n=1, seed=0, strict=True)


def test_a_configuration_error_stops_at_once(frame):
    with pytest.raises(InvalidParameterError, match="wrong for every row"):
        augkit.augment(frame, Misconfigured(), n=1, seed=0)


def test_workers_isolate_failures_too(frame, fragile):
    single = augkit.augment(frame, fragile(), n=2, seed=4)
    double = augkit.augment(frame, fragile(), n=2, seed=4, workers=2, batch_size=10)
    assert double.equals(single)


def test_the_command_line_goes_on_or_stops_with_strict(tmp_path, frame, installed_test_plugins, capsys):
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    failing = int(frame["text"].str.contains("refund").sum())
    output = tmp_path / "out.csv"
    assert main(["augment", str(path), "-m", "fragile", "-n", "1", "--seed", "0", "-o", str(output), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert f"{failing} rows got no augmentation: {failing} augmentation failed (ValueError; strict mode stops and shows it)" in err
    out = pd.read_csv(output, dtype=str, keep_default_na=False)
    assert len(out) == 2 * len(frame) - failing
    assert main(["augment", str(path), "-m", "fragile", "-n", "1", "--seed", "0", "-o", str(tmp_path / "strict.csv"),
                 "--no-progress", "--strict"]) == 1
    assert "failed with ValueError: cannot shout" in capsys.readouterr().err
    assert not (tmp_path / "strict.csv").exists() and not list(tmp_path.glob(".*augkit-job"))


BAD_OUTPUT_REASONS = {
    "none": "augmentation failed (augmenter 'fragile' returned NoneType; strict mode stops and shows it)",
    "number": "augmentation failed (augmenter 'fragile' returned a int candidate; strict mode stops and shows it)",
}


def _augmented_texts(out: pd.DataFrame) -> list[str]:
    return out.loc[out["augkit_method"].notna(), "text"].tolist()


@pytest.mark.parametrize("failure", ["none", "number"])
def test_a_row_with_bad_output_is_kept_counted_and_the_others_are_unchanged(frame, fragile, failure):
    failing = frame["text"].str.contains("refund")
    out, report = augkit.augment_with_report(frame, fragile(failure=failure), n=2, seed=4, batch_size=16)
    healthy = augkit.augment(frame[~failing], fragile(trigger="\x00never"), n=2, seed=4, batch_size=16)
    assert out[out["augkit_method"].isna()].drop(columns=["augkit_source", "augkit_method"]).reset_index(drop=True).equals(frame)
    assert _augmented_texts(out) == _augmented_texts(healthy)
    assert report.without_augmentation == {BAD_OUTPUT_REASONS[failure]: failing.sum()}


@pytest.mark.parametrize("failure, returned", [("none", "returned None for a text; augment() must return a list"),
                                               ("number", "returned the candidate 42 (int); candidates must be str")])
def test_strict_stops_on_bad_output_naming_the_row_and_what_was_returned(frame, fragile, failure, returned):
    first = frame.loc[frame["text"].str.contains("refund"), "text"].iloc[0]
    with pytest.raises(AugmentationFailedError, match=f"augmenting {re.escape(repr(first[:80]))} failed: augmenter 'fragile' {re.escape(returned)}"):
        augkit.augment(frame, fragile(failure=failure), n=1, seed=0, strict=True)


def test_workers_isolate_bad_output_too(frame, fragile):
    single = augkit.augment(frame, fragile(failure="none"), n=2, seed=4)
    double = augkit.augment(frame, fragile(failure="none"), n=2, seed=4, workers=2, batch_size=10)
    assert double.equals(single)


class DropsLastRowOfBatches(augkit.Augmenter):
    """A batching bug: ``augment_batch`` loses the last row of any batch of two or more."""

    name = "drops-last-row"

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        return [text.upper()]

    def augment_batch(self, texts, n, rngs):
        rows = super().augment_batch(texts, n, rngs)
        return rows[:-1] if len(rows) > 1 else rows


class ReturnsNoRows(augkit.Augmenter):
    """A bug no row causes: ``augment_batch`` always returns an empty list."""

    name = "returns-no-rows"

    def augment_batch(self, texts, n, rngs):
        return []


def test_a_wrong_row_count_for_a_batch_is_decided_row_by_row(frame):
    out, report = augkit.augment_with_report(frame, DropsLastRowOfBatches(), n=1, seed=0, batch_size=16)
    assert _augmented_texts(out) == frame["text"].str.upper().tolist()
    assert not report.without_augmentation


def test_a_wrong_row_count_on_every_row_fails_every_row_with_the_diagnosis(frame):
    with pytest.raises(augkit.NothingAugmentedError, match=f"a step failed on all {len(frame)} rows asked") as caught:
        augkit.augment_with_report(frame, ReturnsNoRows(), n=1, seed=0, batch_size=16)
    report = caught.value.report
    assert report.rows_augmented == 0 and report.rows_failed == len(frame)
    assert report.without_augmentation == {
        "augmentation failed (augmenter 'returns-no-rows' returned 0 rows for 1 text; strict mode stops and shows it)": len(frame)
    }
    with pytest.raises(AugmentationFailedError, match="augment_batch\\(\\) returned 0 rows for 1 text"):
        augkit.augment(frame, ReturnsNoRows(), n=1, seed=0, strict=True)


class LosesRefunds(augkit.Filter):
    """A filter with a bug: returns None instead of a list for sources that mention a refund."""

    name = "loses-refunds"

    def filter(self, source, candidates):
        return None if "refund" in source else candidates


def test_a_filter_with_bad_output_on_a_row_fails_that_row_only(frame):
    failing = frame["text"].str.contains("refund")
    pipeline = augkit.Pipeline("eda", [LosesRefunds()])
    out, report = augkit.augment_with_report(frame, pipeline, n=2, seed=3, batch_size=16)
    expected = augkit.augment(frame[~failing], "eda", n=2, seed=3)
    assert _augmented_texts(out) == _augmented_texts(expected)
    assert report.without_augmentation == {
        "augmentation failed (filter 'loses-refunds' returned NoneType; strict mode stops and shows it)": failing.sum()
    }


@pytest.fixture(scope="module")
def clinc_valid(shared_data) -> pd.DataFrame:
    """The first 300 rows of CLINC150's validation split; 19 of them mention a card."""

    folder = shared_data / "clinc150" / "jianguoz" / "valid"
    return pd.DataFrame({"text": read_lines(folder / "seq.in"), "label": read_lines(folder / "label")}).head(300)


#: What the summary says of the rows ``fragile(trigger="card")`` fails on in ``clinc_valid``:
#: the first three by row number and the start of their text, the count of the others.
NAMED_FAILURES = (
    "19 augmentation failed (ValueError; strict mode stops and shows it): row 184 'will getting a credit card hel...', "
    "row 260 \"what's the time of arrival on...\", row 262 'is it a short time before i re...' and 16 more "
    "(the trace lists every row)"
)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_summary_names_the_first_failed_rows_and_the_trace_all_of_them(clinc_valid, fragile, workers):
    failing = clinc_valid.index[clinc_valid["text"].str.contains("card")].tolist()
    _, report = augkit.augment_with_report(clinc_valid, fragile(trigger="card"), n=1, seed=0, batch_size=16,
                                           workers=workers, trace=True)
    assert NAMED_FAILURES in report.summary()
    reason = "augmentation failed (ValueError; strict mode stops and shows it)"
    assert sorted(entry.source for entry in report.trace if entry.reason == reason) == failing


def test_a_dataset_run_names_them_too(clinc_valid, fragile):
    datasets = pytest.importorskip("datasets")
    _, report = augkit.augment_with_report(datasets.Dataset.from_pandas(clinc_valid), fragile(trigger="card"), n=1,
                                           seed=0, batch_size=16, workers=2)
    assert NAMED_FAILURES in report.summary()


@pytest.mark.parametrize("chunk_rows", [50, 50_000])
def test_the_command_line_names_them_by_input_row_across_chunks(tmp_path, clinc_valid, installed_test_plugins, chunk_rows,
                                                                 capsys):
    path = tmp_path / "valid.csv"
    clinc_valid.to_csv(path, index=False)
    output = tmp_path / "out.csv"
    code = main(["augment", str(path), "-m", "fragile", "-p", "trigger=card", "--seed", "0", "--chunk-rows", str(chunk_rows),
                 "-o", str(output), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert NAMED_FAILURES in err
