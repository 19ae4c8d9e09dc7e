"""The closing summary says what happened: candidates generated, how many each pipeline step
dropped, how many rows got none and why; never "every row got at least one augmentation"
when nothing was asked for or nothing was read. The counts are the same through every
backend (lists, frames, worker processes, datasets, streamed files)."""

from __future__ import annotations

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.testing import run_command_captured


@pytest.fixture(scope="module")
def clinc(shared_data) -> pd.DataFrame:
    folder = shared_data / "clinc150" / "jianguoz" / "valid"
    texts = (folder / "seq.in").read_text(encoding="utf-8").splitlines()[:400]
    labels = (folder / "label").read_text(encoding="utf-8").splitlines()[:400]
    frame = pd.DataFrame({"text": texts, "label": labels})
    frame.loc[3, "text"] = "   "  # a blank row: counted apart from the pipeline's drops
    return frame


PIPELINE = "eda+aeda|edit_ratio(min=0.1)|length(max=1.2)"


def test_every_candidate_is_accounted_for(clinc):
    out, report = augkit.augment_with_report(clinc, PIPELINE, n=2, seed=3)
    counts = report.candidates
    assert list(counts) == ["generated", "dedup", "protected", "edit_ratio", "length", "beyond n"]
    dropped = sum(count for name, count in counts.items() if name != "generated")
    assert counts["generated"] - dropped == report.augmentations == int(out["augkit_method"].notna().sum())
    assert counts["edit_ratio"] > 0 and counts["length"] > 0 and counts["beyond n"] > 0
    summary = report.summary()
    assert (f"generated {counts['generated']} candidates, dropped {counts['dedup']} by dedup, "
            f"{counts['protected']} by protected, {counts['edit_ratio']} by edit_ratio, {counts['length']} by length, {counts['beyond n']} beyond n=2") in summary
    assert "1 empty or whitespace text" in summary and "every row" not in summary


def test_counts_are_the_same_through_every_backend(clinc, tmp_path):
    _, in_memory = augkit.augment_with_report(clinc, PIPELINE, n=2, seed=3)
    _, workers = augkit.augment_with_report(clinc, PIPELINE, n=2, seed=3, workers=2, batch_size=37)
    datasets = pytest.importorskip("datasets")
    _, mapped = augkit.augment_with_report(datasets.Dataset.from_pandas(clinc), PIPELINE, n=2, seed=3, workers=2, batch_size=50)
    source = tmp_path / "in.csv"
    clinc.to_csv(source, index=False)
    done = run_command_captured(["augment", source, "-m", PIPELINE, "-n", "2", "--seed", "3", "--chunk-rows", "64",
                                 "--no-progress", "-o", tmp_path / "out.csv"])
    assert done.returncode == 0, done.stderr
    for report in (workers, mapped):
        assert report.as_dict() == in_memory.as_dict()
    assert in_memory.summary() in done.stderr


def test_n_zero_says_nothing_was_asked_for(clinc, tmp_path, capsys):
    source = tmp_path / "in.csv"
    clinc.to_csv(source, index=False)
    assert main(["augment", str(source), "-m", "eda", "-n", "0", "--seed", "1", "-o", str(tmp_path / "o.csv")]) == 0
    err = capsys.readouterr().err
    assert "n=0: no augmentation asked for" in err and "every row" not in err
    assert f"wrote {len(clinc)} rows ({len(clinc)} original + 0 augmented)" in err


def test_a_header_only_input_says_it_has_no_rows(tmp_path, capsys):
    source = tmp_path / "in.csv"
    source.write_text("text,label\n")
    assert main(["augment", str(source), "-m", "eda", "--seed", "1", "-o", str(tmp_path / "o.csv")]) == 0
    err = capsys.readouterr().err
    assert "read 0 rows (the input has no rows); wrote 0 rows" in err and "every row" not in err
    assert (tmp_path / "o.csv").read_text().startswith("text,label,augkit_source,augkit_method")


def test_a_filter_that_drops_every_candidate_of_some_rows_is_named(clinc):
    _, report = augkit.augment_with_report(clinc, "eda|semantic", n=1, seed=0)
    assert report.candidates["semantic"] > 0
    removed = report.without_augmentation["all candidates removed by filter 'semantic'"]
    assert removed > 0 and f"{removed} all candidates removed by filter 'semantic'" in report.summary()
