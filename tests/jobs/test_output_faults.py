"""Where the output goes wrong: found before the first row when it can be, named when it cannot.

An output path that is a folder (or a device, a named pipe) is refused before any row is
augmented, instead of after all the work (issue 35, section 5); a disk that fills up, or a
file-size limit, is reported naming the file being written, on every write path (chunk files,
the assembled output, a whole-file output, the trace), instead of "a file". The full disk is a
real one: a small tmpfs mounted for the test (root only); the size limit is RLIMIT_FSIZE
(``ulimit -f``), which makes writes fail with EFBIG.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from augkit.cli.main import main

#: A file-size limit (bytes) the streamed chunk files of the TREC input exceed at n=4.
SIZE_LIMIT = 200 * 1024


@pytest.fixture(scope="module")
def trec_csv(shared_data, tmp_path_factory) -> Path:
    """TREC's full training set (5452 questions, from the EDA paper's files) as a CSV."""
    rows = [line.rstrip("\n").split("\t", 1)
            for line in (shared_data / "trec" / "eda_nlp" / "4_full" / "train_orig.txt").read_text(encoding="utf-8").splitlines()]
    path = tmp_path_factory.mktemp("trec") / "trec.csv"
    pd.DataFrame({"label": [label for label, _ in rows], "text": [text for _, text in rows]}).to_csv(path, index=False)
    return path


@pytest.fixture
def no_row_augmented(monkeypatch):
    """Fail the test if any row gets augmented (the refusal must come first)."""
    def augmented(*args, **kwargs):
        raise AssertionError("a row was augmented before the output path was checked")

    monkeypatch.setattr("augkit.adapters.frame.run_pipeline", augmented)


@pytest.mark.parametrize("output", ["out.csv", "out.xlsx"])
def test_an_output_that_is_a_folder_is_refused_before_the_first_row(tmp_path, trec_csv, no_row_augmented, output, capsys):
    folder = tmp_path / output
    folder.mkdir()
    code = main(["augment", str(trec_csv), "-m", "eda", "--seed", "0", "-o", str(folder), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"the output '{folder}' is a folder; name a file in it" in err
    assert list(tmp_path.iterdir()) == [folder] and not list(folder.iterdir())  # no job folder, nothing written


def test_a_trace_path_that_is_a_folder_is_refused_before_the_first_row(tmp_path, trec_csv, no_row_augmented, capsys):
    folder = tmp_path / "trace.csv"
    folder.mkdir()
    code = main(["augment", str(trec_csv), "-m", "eda", "--seed", "0", "-o", str(tmp_path / "out.csv"), "--trace", str(folder),
                 "--no-progress"])
    assert code == 2 and f"the --trace file '{folder}' is a folder" in capsys.readouterr().err


def test_an_output_that_is_a_named_pipe_is_refused_not_replaced(tmp_path, trec_csv, no_row_augmented, capsys):
    """The final rename would replace the pipe by a regular file (a device such as /dev/null alike)."""
    pipe = tmp_path / "out.csv"
    os.mkfifo(pipe)
    code = main(["augment", str(trec_csv), "-m", "eda", "--seed", "0", "-o", str(pipe), "--no-progress"])
    assert code == 2 and f"the output '{pipe}' is not a regular file but a named pipe" in capsys.readouterr().err
    assert pipe.is_fifo()


@pytest.fixture
def small_disk(tmp_path, mountable_tmpfs):
    """A 256 KB tmpfs (smaller than any of the outputs below), unmounted at the end."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk)], check=True)
    yield disk
    subprocess.run(["umount", str(disk)], check=True)


def _augment(trec_csv: Path, *arguments: str, **run) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "augkit.cli", "augment", str(trec_csv), "-m", "eda", "-n", "4", "--seed", "0",
               "--no-space-check", "--no-progress", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, **run)


def _says_no_space_naming(done: subprocess.CompletedProcess, path: Path) -> None:
    assert done.returncode == 1, done.stderr
    assert f"augkit: failed: {path}: No space left on device; free some space on that disk" in done.stderr
    assert "a file" not in done.stderr and "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


@pytest.mark.parametrize("chunk_rows", ["50000", "1000"])
def test_a_full_disk_names_the_chunk_file_being_written(tmp_path, trec_csv, small_disk, chunk_rows):
    done = _augment(trec_csv, "--chunk-rows", chunk_rows, "-o", str(small_disk / "out.csv"))
    written = sorted((small_disk / ".out.csv.augkit-job").glob("chunk-*.csv"), key=lambda p: p.name)
    failed = small_disk / ".out.csv.augkit-job" / f"chunk-{len(written):06d}.csv"  # the first chunk not written
    _says_no_space_naming(done, failed)


def test_a_full_disk_names_the_output_being_assembled(tmp_path, trec_csv, small_disk):
    done = _augment(trec_csv, "-o", str(small_disk / "out.csv"), "--job-dir", str(tmp_path / "job"))
    _says_no_space_naming(done, small_disk / "out.csv")
    assert "1 finished chunk is kept" in done.stderr


@pytest.mark.parametrize("output", ["out.xlsx", "out.csv.gz"])
def test_a_full_disk_names_an_output_written_whole(tmp_path, trec_csv, small_disk, output):
    _says_no_space_naming(_augment(trec_csv, "-o", str(small_disk / output)), small_disk / output)
    assert not list(small_disk.iterdir())  # the partial file is removed


def test_a_full_disk_names_the_trace(tmp_path, trec_csv, small_disk):
    done = _augment(trec_csv, "-o", str(tmp_path / "out.csv"), "--trace", str(small_disk / "trace.csv"))
    _says_no_space_naming(done, small_disk / "trace.csv")


def test_a_file_size_limit_names_the_file_being_written(tmp_path, trec_csv):
    """RLIMIT_FSIZE (``ulimit -f``): writes past it fail with EFBIG (Python ignores SIGXFSZ)."""
    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (SIZE_LIMIT, SIZE_LIMIT))

    done = _augment(trec_csv, "-o", str(tmp_path / "out.csv"), preexec_fn=limited)
    chunk = tmp_path / ".out.csv.augkit-job" / "chunk-000000.csv"
    assert done.returncode == 1, done.stderr
    assert f"augkit: failed: {chunk}: File too large; the file is larger than this system or its limits allow" in done.stderr
    assert "Traceback" not in done.stderr


def test_evaluate_refuses_an_output_folder_before_scoring(tmp_path, trec_csv, capsys):
    folder = tmp_path / "table.md"
    folder.mkdir()
    code = main(["evaluate", str(trec_csv), str(trec_csv), "--no-semantic", "--metrics", "bleu", "-o", str(folder)])
    assert code == 2 and f"the output '{folder}' is a folder" in capsys.readouterr().err
