"""A run in which nothing worked is not a success, and ``strict`` counts a row an augmenter could
not produce for (:attr:`augkit.GeneratedRow.failed`) as a failure, as it counts a row it raised on.

- Without ``strict``, a run in which a step failed on every row asked raises
  :class:`augkit.NothingAugmentedError` (the command line exits 1 and writes no output), with
  the reasons counted; one row that worked, or rows whose candidates a filter removed, make it
  a run that worked. Rows with a blank text were never asked.
- With ``strict``, a row whose augmenter returns ``GeneratedRow([], failed=True)`` stops the run,
  naming the row and counting its batch's failures.

On CLINC150 validation rows, in this process and in worker processes."""

from __future__ import annotations

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.plugin import EditRatioFilter


class Answers(augkit.Augmenter):
    """Stands in for a method asking a server: rows whose text holds ``unusable`` get no usable
    answer (a failed row), rows holding ``repeats`` an answer that only repeats them (not a
    failure), the others one paraphrase."""

    name = "answers"
    usage = ("requests",)

    def __init__(self, unusable: str = "weather", repeats: str = "\x00none"):
        self.unusable = unusable
        self.repeats = repeats

    def augment_batch(self, texts, n, rngs):
        rows = []
        for text in texts:
            if self.unusable in text:
                rows.append(augkit.GeneratedRow([], reason="answers: no JSON list in the reply", failed=True,
                                                usage={"requests": 1}))
            elif self.repeats in text:
                rows.append(augkit.GeneratedRow([], reason="answers: every text repeats the source", usage={"requests": 1}))
            else:
                rows.append(augkit.GeneratedRow([f"please, {text}"], usage={"requests": 1}))
        return rows


@pytest.fixture(scope="module")
def rows(shared_data) -> pd.DataFrame:
    """20 CLINC150 validation rows: 10 about the weather, 10 others."""
    folder = shared_data / "clinc150" / "jianguoz" / "valid"
    frame = pd.DataFrame({"text": (folder / "seq.in").read_text().splitlines(),
                          "label": (folder / "label").read_text().splitlines()})
    weather = frame[frame["text"].str.contains("weather")].head(10)
    other = frame[~frame["text"].str.contains("weather")].head(10)
    return pd.concat([weather, other]).reset_index(drop=True)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_run_in_which_every_row_asked_failed_raises_with_the_reasons(rows, workers):
    weather = rows[rows["text"].str.contains("weather")]
    blank = pd.DataFrame({"text": ["", None], "label": ["x", "y"]})  # never asked: not failures
    table = pd.concat([weather, blank], ignore_index=True)
    with pytest.raises(augkit.NothingAugmentedError, match="a step failed on all 10 rows asked: "
                       "10 answers: no JSON list in the reply") as caught:
        augkit.augment(table, Answers(), n=1, seed=0, batch_size=3, workers=workers)
    report = caught.value.report
    assert report.rows_read == 12 and report.rows_asked == 10 and report.rows_failed == 10
    assert report.failures == {"augmentation failed (answers: no JSON list in the reply)": 10}
    assert report.usage == {"requests": 10}
    assert isinstance(caught.value, augkit.AugmentationFailedError)


def test_one_row_that_worked_makes_a_run_that_worked(rows):
    out, report = augkit.augment_with_report(rows, Answers(), n=1, seed=0, batch_size=4)
    assert report.rows_augmented == 10 and report.rows_failed == 10
    assert "10 augmentation failed (answers: no JSON list in the reply)" in report.summary()
    assert out.loc[out["augkit_method"].isna(), "text"].tolist() == rows["text"].tolist(), "every original row is kept"


def test_rows_whose_replies_only_repeat_them_or_whose_candidates_a_filter_removed_did_not_fail(rows):
    repeats = Answers(unusable="\x00none", repeats="weather")
    weather = rows[rows["text"].str.contains("weather")]
    _, report = augkit.augment_with_report(weather, repeats, n=1, seed=0, strict=True)
    assert report.rows_augmented == 0 and report.rows_failed == 0
    assert report.without_augmentation == {"answers: every text repeats the source": 10}
    _, filtered = augkit.augment_with_report(weather, augkit.Pipeline(Answers(unusable="\x00none"), [EditRatioFilter(min=0.99)]),
                                             n=1, seed=0, strict=True)
    assert filtered.rows_augmented == 0 and filtered.without_augmentation == {"all candidates removed by filter 'edit_ratio'": 10}


@pytest.mark.parametrize("workers", [1, 2])
def test_strict_stops_at_a_row_an_augmenter_could_not_produce_for_counting_its_batch(rows, workers):
    first = rows["text"].iloc[0]
    with pytest.raises(augkit.AugmentationFailedError, match=f"augmenting {first!r} failed: answers: no JSON list in the "
                       "reply \\(strict\\); 4 of 5 rows of its batch failed: 4 answers: no JSON list in the reply"):
        augkit.augment(rows.iloc[[0, 10, 1, 2, 3]], Answers(), n=1, seed=0, batch_size=5, strict=True, workers=workers)


def test_strict_stops_when_one_member_of_an_interleave_failed_even_if_another_gave_candidates(rows):
    weather = rows[rows["text"].str.contains("weather")].head(2)
    both = augkit.Interleave(Answers(), "aeda")
    out, report = augkit.augment_with_report(weather, both, n=2, seed=0)
    assert report.rows_augmented == 2 and report.rows_failed == 0, "aeda's candidates make the rows augmented"
    with pytest.raises(augkit.AugmentationFailedError, match="answers: no JSON list in the reply \\(strict\\)"):
        augkit.augment(weather, both, n=2, seed=0, strict=True)


def test_the_command_line_exits_1_writes_nothing_and_keeps_no_job(rows, tmp_path, capsys, installed_test_plugins):
    weather = rows[rows["text"].str.contains("weather")]
    for suffix in ("csv", "xlsx"):  # streamed chunk by chunk, and read and written whole
        table = tmp_path / f"weather.{suffix}"
        (weather.to_csv(table, index=False) if suffix == "csv" else weather.to_excel(table, index=False))
        output = tmp_path / f"out.{suffix}"
        code = main(["augment", str(table), "-m", "fragile", "-p", "trigger=weather", "-n", "1", "--seed", "0",
                     "--chunk-rows", "4", "--no-progress", "-o", str(output)])
        err = capsys.readouterr().err
        assert code == 1, err
        assert "augkit: failed: nothing was augmented: a step failed on all 10 rows asked: 10 ValueError" in err
        assert f"{output} was not written" in err
        assert not output.exists() and not list(tmp_path.glob(".*augkit-job"))
    code = main(["augment", str(tmp_path / "weather.csv"), "-m", "fragile", "-p", "trigger=weather", "-n", "1", "--seed",
                 "0", "--drop-original", "-n", "0", "--no-progress", "-o", str(tmp_path / "none.csv")])
    assert code == 0, "n=0 asks nothing: nothing failed"
    capsys.readouterr()
