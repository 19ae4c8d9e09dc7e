"""Streamed, resumable ``augkit augment``: the same bytes whatever the chunk size and as the
in-memory path; a job killed at any moment (SIGKILL) and resumed gives exactly the output of
an uninterrupted run; a second run over a job folder is refused unless it resumes with the
same arguments; Ctrl-C says how to resume."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.tables.io import read_table, write_table
from conftest import read_lines


@pytest.fixture(scope="module")
def banking_table(shared_data, tmp_path_factory) -> Path:
    folder = shared_data / "banking77" / "jianguoz" / "train"
    frame = pd.DataFrame({"text": read_lines(folder / "seq.in")[:3000], "label": read_lines(folder / "label")[:3000]})
    frame.loc[7, "text"] = ""  # an empty text passes through
    path = tmp_path_factory.mktemp("stream") / "train.csv"
    frame.to_csv(path, index=False)
    return path


def _augment(*arguments) -> int:
    return main(["augment", *map(str, arguments), "--no-progress"])


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_chunk_size_does_not_change_the_output_and_it_equals_the_in_memory_run(tmp_path, banking_table, suffix):
    source = tmp_path / f"in{suffix}"
    write_table(read_table(banking_table).head(1000), source)  # the empty text of row 7 among them
    outputs = []
    for chunk_rows in (1000, 401, 64):  # one chunk, chunks of two sizes that do not divide it
        out = tmp_path / f"out-{chunk_rows}{suffix}"
        assert _augment(source, "-m", "eda+aeda", "-n", 2, "--seed", 5, "--chunk-rows", chunk_rows, "-o", out) == 0
        outputs.append(out)
        assert not any(tmp_path.glob(".*augkit-job"))  # the job folder is gone after success
    if suffix == ".parquet":
        frames = [pd.read_parquet(o) for o in outputs]
        for frame in frames[1:]:
            pd.testing.assert_frame_equal(frame, frames[0])
    else:
        assert outputs[0].read_bytes() == outputs[1].read_bytes() == outputs[2].read_bytes()
    in_memory = augkit.augment(read_table(source), "eda+aeda", n=2, seed=5)
    streamed = read_table(outputs[2])
    assert len(streamed) == len(in_memory) and streamed["text"].tolist() == in_memory["text"].tolist()
    assert [str(s) for s in streamed["augkit_source"]] == [str(s) for s in in_memory["augkit_source"]]


def test_a_pipeline_that_compares_with_every_original_sees_them_all(tmp_path, banking_table):
    small = tmp_path / "small.csv"
    read_table(banking_table).iloc[:300].to_csv(small, index=False)
    outputs = []
    for chunk_rows in (300, 70):
        out = tmp_path / f"out-{chunk_rows}.csv"
        assert _augment(small, "-m", "eda|label_integrity", "-n", 2, "--seed", 1, "--label-column", "label",
                        "--chunk-rows", chunk_rows, "-o", out) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def _run(arguments: list, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "augkit.cli", "augment", *map(str, arguments)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.mark.slow
def test_a_killed_job_resumes_to_exactly_the_uninterrupted_output(tmp_path, banking_table, wait_for_chunks):
    arguments = [banking_table, "-m", "eda", "-n", 3, "--seed", 11, "--chunk-rows", 100, "--no-progress"]
    reference = tmp_path / "reference.csv"
    assert _augment(*arguments[:-1], "-o", reference) == 0

    output = tmp_path / "out.csv"
    job = tmp_path / ".out.csv.augkit-job"
    process = _run([*arguments, "-o", output])
    wait_for_chunks(job, 3, process)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not output.exists() and (job / "job.json").exists()
    done = len(list(job.glob("chunk-*.json")))
    assert 3 <= done < 30

    refused = _run([*arguments, "-o", output])
    assert refused.wait() == 2 and "--resume" in refused.communicate()[1]
    other = _run([*arguments[:-2], 7, "--no-progress", "-o", output, "--resume"])  # another --chunk-rows
    assert other.wait() == 2 and "chunk_rows: was 100, now 7" in other.communicate()[1]

    resumed = _run([*arguments, "-o", output, "--resume"])
    assert resumed.wait() == 0, resumed.communicate()[1]
    assert output.read_bytes() == reference.read_bytes()
    assert not job.exists()


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path, banking_table, wait_for_chunks):
    output = tmp_path / "out.csv"
    process = _run([banking_table, "-m", "eda", "-n", 3, "--seed", 2, "--chunk-rows", 100, "--no-progress", "-o", output])
    wait_for_chunks(tmp_path / ".out.csv.augkit-job", 2, process)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Run the same command with --resume" in err and "chunks of 100 rows are done" in err
    assert not output.exists()


def test_a_seedless_job_resumes_with_the_seed_it_drew(tmp_path):
    from augkit.jobs.job_folder import AugmentJob

    folder = tmp_path / "job"
    first_run = AugmentJob(folder, {"seed": None}, resume=False)
    first = first_run.start(1234)
    first_run.release()
    again = AugmentJob(folder, {"seed": None}, resume=True).start(99)
    assert first == again == 1234
