"""A file job holds augment()'s options with augment's defaults (derived from
augkit.augment_options, none written again) and hands them on whole."""

from __future__ import annotations

import inspect
from pathlib import Path

import pandas as pd

import augkit
from augkit.augment_options import DEFAULT_TEXT_COLUMN, OPTION_NAMES, AugmentOptions
from augkit.engine.run_options import RunOptions
from augkit.jobs.file_augment import augment_file
from augkit.jobs.file_job import FileJob


def test_a_file_jobs_defaults_are_augments_defaults():
    job = FileJob(Path("in.csv"), Path("out.csv"), "eda", {})
    augments = {name: p.default for name, p in inspect.signature(augkit.augment).parameters.items()
                if name in OPTION_NAMES}
    # a file always has a text column: augment's None is the column it means
    assert job.augment_options() == AugmentOptions(**{**augments, "text_column": DEFAULT_TEXT_COLUMN})
    assert job.run_options(seed=4) == RunOptions.of(AugmentOptions(**augments)).replace(seed=4).checked()


def test_a_file_job_hands_on_every_option_it_was_given():
    given = {"n": 3, "seed": 9, "text_column": "question", "label_column": "coarse", "keep_original": False,
             "progress": False, "batch_size": 5, "coerce": True, "workers": 2, "strict": True, "row_timeout": 8.0,
             "protect_column": "spans", "protect_codes": False}
    job = FileJob(Path("in.csv"), Path("out.csv"), "eda", {}, context_columns={"premise": "first"},
                  trace=Path("trace.csv"), protect=("fare code",), **given)
    assert job.augment_options() == AugmentOptions(**given, context_columns={"premise": "first"}, trace=True,
                                                   protect=("fare code",))
    assert set(OPTION_NAMES) <= set(vars(job))


def test_a_file_read_whole_gets_the_same_rows_as_augment_with_the_same_options(shared_data, tmp_path):
    lines = (shared_data / "trec" / "sent-conv-torch" / "TREC.test.all").read_text().splitlines()[20:32]
    frame = pd.DataFrame({"question": [line.split(" ", 1)[1] for line in lines],
                          "coarse": [line.split(" ", 1)[0] for line in lines]})
    source = tmp_path / "trec.csv"
    frame.to_csv(source, index=False)
    frame = pd.read_csv(source)  # the labels as the file job reads them
    output = tmp_path / "out.csv.gz"  # a compressed output is written whole: the in-memory path
    job = FileJob(source, output, "eda", {"alpha_rs": 0.3}, n=2, seed=11, text_column="question",
                  label_column="coarse", keep_original=False, batch_size=3, progress=False,
                  protect=("What",), protect_codes=False, trace=tmp_path / "trace.csv")
    report = augment_file(job)
    expected, trace = augkit.augment(frame, "eda", n=2, seed=11, text_column="question", label_column="coarse",
                                     keep_original=False, batch_size=3, progress=False, protect="What",
                                     protect_codes=False, alpha_rs=0.3, trace=True)
    written = pd.read_csv(output)
    columns = ["question", "coarse", "augkit_source", "augkit_method"]
    assert written[columns].values.tolist() == expected[columns].values.tolist()
    assert written["question"].tolist() != frame["question"].repeat(2).tolist()  # augmented, not copied
    assert len(pd.read_csv(tmp_path / "trace.csv")) == len(trace)
    assert report.seed == 11
