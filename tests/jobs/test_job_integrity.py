"""A job folder has one owner, verified chunks and an atomic output; faults are caused, not
imagined: two processes on one job, truncated and emptied chunks, a record without its data,
an interrupted removal, a changed input, SIGTERM, a full disk and a read-only folder."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from augkit.cli.main import main
from augkit.testing import run_command_captured
from conftest import read_lines

ROWS, CHUNK_ROWS = 3000, 100


@pytest.fixture(scope="module")
def clinc_table(shared_data, tmp_path_factory) -> Path:
    folder = shared_data / "clinc150" / "jianguoz" / "train"
    frame = pd.DataFrame({"text": read_lines(folder / "seq.in")[:ROWS], "label": read_lines(folder / "label")[:ROWS]})
    path = tmp_path_factory.mktemp("integrity") / "clinc.csv"
    frame.to_csv(path, index=False)
    return path


ARGUMENTS = ["-m", "eda", "-n", 3, "--seed", 11, "--chunk-rows", CHUNK_ROWS, "--no-progress"]


@pytest.fixture(scope="module")
def reference(clinc_table, tmp_path_factory) -> bytes:
    """The output of one uninterrupted run."""
    out = tmp_path_factory.mktemp("reference") / "reference.csv"
    assert main(["augment", str(clinc_table), *map(str, ARGUMENTS), "-o", str(out)]) == 0
    return out.read_bytes()


def _start(*arguments, env=None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "augkit.cli", "augment", *map(str, arguments)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _chunks_done(folder: Path) -> int:
    return len(list(folder.glob("chunk-*.json")))


def _wait_for_chunks(folder: Path, count: int, process: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _chunks_done(folder) >= count:
            return
        if process.poll() is not None:
            pytest.fail(f"the run ended before {count} chunks were done: {process.communicate()}")
        time.sleep(0.02)
    pytest.fail("no progress")


def _killed_job(table: Path, output: Path, chunks: int = 5) -> Path:
    """A job folder left by a run killed (SIGKILL) after at least ``chunks`` chunks."""
    job = output.with_name(f".{output.name}.augkit-job")
    process = _start(table, *ARGUMENTS, "-o", output)
    _wait_for_chunks(job, chunks, process)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not output.exists()
    return job


def _resume(table: Path, output: Path, *more: str | int) -> subprocess.CompletedProcess:
    """``augkit augment ... --resume`` run in this process (the runs that are killed are subprocesses)."""
    return run_command_captured(["augment", table, *ARGUMENTS, *more, "-o", output, "--resume"])


@pytest.mark.slow
def test_a_second_run_on_a_job_in_use_is_refused_naming_the_first(tmp_path, clinc_table, reference):
    output = tmp_path / "out.csv"
    job = tmp_path / ".out.csv.augkit-job"
    first = _start(clinc_table, *ARGUMENTS, "-o", output)
    _wait_for_chunks(job, 1, first)
    second = _start(clinc_table, *ARGUMENTS, "-o", output, "--resume")
    _, err = second.communicate(timeout=120)
    assert second.returncode == 2, err
    assert "is in use by another augkit run" in err and f"process {first.pid} " in err
    assert first.wait(timeout=300) == 0, first.communicate()[1]
    assert output.read_bytes() == reference
    assert not job.exists()


@pytest.mark.slow
def test_two_runs_started_together_never_corrupt_the_output(tmp_path, clinc_table, reference):
    for attempt in range(3):
        output = tmp_path / f"out-{attempt}.csv"
        runs = [_start(clinc_table, *ARGUMENTS, "-o", output, "--resume") for _ in range(2)]
        results = [(run.wait(timeout=300), run.communicate()[1]) for run in runs]
        codes = sorted(code for code, _ in results)
        # one run owns the job; the other is refused at once, or starts after the first finished
        assert codes in ([0, 0], [0, 2]), results
        assert all("in use by another augkit run" in err for code, err in results if code == 2)
        assert output.read_bytes() == reference
        assert not list(tmp_path.glob(f".out-{attempt}.csv*")), "a partial file or job folder was left behind"


@pytest.mark.slow
def test_truncated_emptied_and_missing_chunks_are_redone_saying_why(tmp_path, clinc_table, reference):
    output = tmp_path / "out.csv"
    job = _killed_job(clinc_table, output)
    chunk_1, chunk_2, chunk_3 = (job / f"chunk-00000{i}.csv" for i in (1, 2, 3))
    size = chunk_1.stat().st_size
    with open(chunk_1, "r+b") as data:
        data.truncate(size // 2)
    chunk_2.write_bytes(b"")
    chunk_3.unlink()  # its record stays: a kill during clean-up, or a user's slip
    (job / "chunk-000004.json").write_text('{"rows_read": 10')  # an unreadable record
    done = _resume(clinc_table, output)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert f"chunk 1 of {job} (input rows 100-199) is redone: its data file has {size // 2} bytes, {size} were written" in done.stderr
    assert "chunk 2 of" in done.stderr and "its data file has 0 bytes" in done.stderr
    assert "chunk 3 of" in done.stderr and "its data file is missing" in done.stderr
    assert "chunk 4 of" in done.stderr and "its record is unreadable" in done.stderr
    assert output.read_bytes() == reference


@pytest.mark.slow
def test_a_chunk_whose_bytes_changed_but_not_its_size_is_redone(tmp_path, clinc_table, reference):
    output = tmp_path / "out.csv"
    job = _killed_job(clinc_table, output, chunks=2)
    chunk = job / "chunk-000000.csv"
    data = bytearray(chunk.read_bytes())
    data[10:14] = b"\x00\x00\x00\x00"
    chunk.write_bytes(bytes(data))
    done = _resume(clinc_table, output)
    assert done.returncode == 0, done.stderr
    assert "chunk 0 of" in done.stderr and "content differs from what was written" in done.stderr
    assert output.read_bytes() == reference


def test_an_interrupted_removal_of_a_finished_job_is_completed(tmp_path, clinc_table, reference):
    output = tmp_path / "out.csv"
    left = tmp_path / ".out.csv.augkit-job.removing-4242"  # a kill while the last run removed its folder
    left.mkdir()
    (left / "chunk-000000.json").write_text("{}")
    assert main(["augment", str(clinc_table), *map(str, ARGUMENTS), "-o", str(output)]) == 0
    assert output.read_bytes() == reference
    assert not left.exists()


def test_a_damaged_job_record_fails_loudly(tmp_path, clinc_table, capsys):
    output = tmp_path / "out.csv"
    job = tmp_path / ".out.csv.augkit-job"
    job.mkdir()
    (job / "job.json").write_text('{"settings": {"method"')
    assert main(["augment", str(clinc_table), *map(str, ARGUMENTS), "-o", str(output), "--resume"]) == 1
    err = capsys.readouterr().err
    assert "the job record" in err and "is damaged" in err and f"delete {job} to start over" in err
    assert "Traceback" not in err and not output.exists()


@pytest.mark.slow
def test_an_input_changed_in_place_is_not_resumed_over(tmp_path, clinc_table):
    table = tmp_path / "in.csv"
    table.write_bytes(clinc_table.read_bytes())
    output = tmp_path / "out.csv"
    _killed_job(table, output, chunks=2)
    stat = table.stat()
    data = bytearray(table.read_bytes())
    position = data.index(b"what", 2000)
    data[position:position + 4] = b"WHAT"  # same size, and the old mtime restored below
    table.write_bytes(bytes(data))
    os.utime(table, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    refused = _resume(table, output)
    assert refused.returncode == 2
    assert "the input's content changed since the job started" in refused.stderr
    assert "mtime" not in refused.stderr


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_stops_like_ctrl_c_and_the_job_resumes_exactly(tmp_path, clinc_table, reference, workers):
    output = tmp_path / "out.csv"
    job = tmp_path / ".out.csv.augkit-job"
    process = _start(clinc_table, *ARGUMENTS, "--workers", workers, "-o", output)
    _wait_for_chunks(job, 2, process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "terminated (SIGTERM)" in err and "Run the same command with --resume" in err
    assert "Traceback" not in err
    done = _resume(clinc_table, output, "--workers", workers)
    assert done.returncode == 0, done.stderr
    assert output.read_bytes() == reference


def test_a_usage_error_found_after_the_job_started_leaves_nothing_behind(tmp_path, tmp_path_factory, clinc_table, capsys):
    output = tmp_path / "out.csv"
    table = tmp_path_factory.mktemp("head") / "clinc-head.csv"  # the encoder's rows: 200 are enough
    pd.read_csv(clinc_table).head(200).to_csv(table, index=False)
    arguments = ["augment", str(table), "-m", "eda|label_integrity", "-n", "1", "--seed", "0", "--chunk-rows", "100",
                 "--no-progress"]
    assert main([*arguments, "-o", str(output)]) == 2
    assert "label" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # no job folder, no partial file
    assert main([*arguments, "--label-column", "label", "-o", str(output)]) == 0


def test_a_failing_run_keeps_its_finished_chunks_and_says_so(tmp_path, clinc_table, installed_test_plugins, capsys):
    frame = pd.read_csv(clinc_table, dtype=str, keep_default_na=False)
    trigger = frame["text"].iloc[CHUNK_ROWS * 3 + 5]  # a row of the fourth chunk
    output = tmp_path / "out.csv"
    arguments = ["augment", str(clinc_table), "-m", "fragile", "-p", f"trigger={trigger}", "-n", "1", "--seed", "0",
                 "--chunk-rows", str(CHUNK_ROWS), "--no-progress", "--strict", "-o", str(output)]
    assert main(arguments) == 1
    err = capsys.readouterr().err
    job = tmp_path / ".out.csv.augkit-job"
    assert _chunks_done(job) == 3
    assert f"3 finished chunks are kept in {job}" in err and "--resume" in err
    assert not output.exists()


def _write_failure(monkeypatch, after_chunks: int, error: OSError):
    """Make the chunk writer fail like a full disk once ``after_chunks`` chunks are written."""
    import augkit.tables.stream as table_stream

    real = table_stream.write_chunk
    written = []

    def failing(frame, path, fmt):
        if len(written) >= after_chunks:
            with open(path, "wb") as partial:
                partial.write(b"x" * 100)  # what a writer leaves before ENOSPC
            raise error
        written.append(path)
        real(frame, path, fmt)

    monkeypatch.setattr("augkit.jobs.file_augment.write_chunk", failing)


def test_a_disk_that_fills_up_mid_job_gives_one_line_and_keeps_the_chunks(tmp_path, clinc_table, reference, monkeypatch, capsys):
    output = tmp_path / "out.csv"
    job = tmp_path / ".out.csv.augkit-job"
    _write_failure(monkeypatch, 4, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(job / "chunk-000004.csv")))
    assert main(["augment", str(clinc_table), *map(str, ARGUMENTS), "-o", str(output)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert "No space left on device; free some space on that disk, or write elsewhere" in err
    assert f"4 finished chunks are kept in {job}" in err
    assert not list(job.glob(".*augkit-partial")) and not output.exists()
    monkeypatch.undo()
    assert main(["augment", str(clinc_table), *map(str, ARGUMENTS), "-o", str(output), "--resume"]) == 0
    assert output.read_bytes() == reference


#: Tests that mount a tmpfs: skipped without root, failed under CI (:func:`conftest.mountable_tmpfs`).
MOUNTS = pytest.mark.usefixtures("mountable_tmpfs")


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MB tmpfs, unmounted at the end."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)], check=True)
    yield disk
    subprocess.run(["umount", str(disk)], check=True)


@MOUNTS
def test_a_full_tmpfs_refuses_early_then_fails_cleanly_and_resumes_after_growing(tmp_path, clinc_table, reference, small_disk):
    output = small_disk / "out.csv"
    command = [sys.executable, "-m", "augkit.cli", "augment", str(clinc_table), *map(str, ARGUMENTS), "-o", str(output)]
    early = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert early.returncode == 1 and "this run will write about" in early.stderr and "--no-space-check" in early.stderr
    assert not list(small_disk.iterdir())
    full = subprocess.run([*command, "--no-space-check"], capture_output=True, text=True, timeout=300)
    assert full.returncode == 1, full.stderr
    assert "No space left on device" in full.stderr and "Traceback" not in full.stderr
    job = small_disk / ".out.csv.augkit-job"
    assert _chunks_done(job) > 0 and f"finished chunks are kept in {job}" in full.stderr
    assert not [p for p in small_disk.rglob("*") if p.name.endswith("augkit-partial")]
    subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)], check=True)
    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert output.read_bytes() == reference


@MOUNTS
def test_a_read_only_output_folder_fails_before_any_work(tmp_path, clinc_table):
    read_only = tmp_path / "read-only"
    read_only.mkdir()
    subprocess.run(["mount", "--bind", "-o", "ro", str(read_only), str(read_only)], check=True)
    try:
        job_dir = tmp_path / "job"
        done = subprocess.run([sys.executable, "-m", "augkit.cli", "augment", str(clinc_table), *map(str, ARGUMENTS),
                               "-o", str(read_only / "out.csv"), "--job-dir", str(job_dir)],
                              capture_output=True, text=True, timeout=120)
    finally:
        subprocess.run(["umount", str(read_only)], check=True)
    assert done.returncode == 1
    assert f"{read_only}: cannot write there (Read-only file system); that file system is read-only: write elsewhere" in done.stderr
    assert "Traceback" not in done.stderr
    assert not job_dir.exists()  # refused before the job started


def test_the_lock_is_not_kept_by_forked_workers(tmp_path):
    from augkit.jobs.lock import FolderLock, JobBusyError

    folder = tmp_path / "job"
    lock = FolderLock(folder)
    child = os.fork()
    if child == 0:  # the child drops its inherited copy at fork; the lock stays the parent's
        os._exit(0 if not sys.modules["augkit.jobs.lock"]._held else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    with pytest.raises(JobBusyError, match=f"process {os.getpid()} "):
        FolderLock(folder)
    lock.release()
    FolderLock(folder).release()


def test_concurrent_writers_of_one_file_never_mix_their_bytes(tmp_path):
    from augkit.files.atomic import atomic_write

    target = tmp_path / "out.csv"
    with atomic_write(target) as first, atomic_write(target) as second:
        assert first != second
        first.write_bytes(b"a" * 1000)
        second.write_bytes(b"b" * 10)
    assert target.read_bytes() == b"a" * 1000  # the last rename wins, whole
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_a_failed_write_leaves_no_partial_file_and_the_old_output(tmp_path):
    from augkit.files.atomic import atomic_write

    target = tmp_path / "out.csv"
    target.write_text("previous output")
    with pytest.raises(OSError):
        with atomic_write(target) as partial:
            partial.write_text("half")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert target.read_text() == "previous output"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_the_job_records_each_chunks_rows_size_and_digest(tmp_path, clinc_table):
    from augkit.files.atomic import file_digest

    output = tmp_path / "out.csv"
    job = _killed_job(clinc_table, output, chunks=2)
    record = json.loads((job / "chunk-000000.json").read_text())
    data = job / "chunk-000000.csv"
    assert record["rows_read"] == CHUNK_ROWS
    rows = len(pd.read_csv(data, header=None))
    assert rows == record["original_rows_written"] + record["augmentations"] > CHUNK_ROWS
    assert record["data"] == {"rows": rows, "bytes": data.stat().st_size, "digest": file_digest(data)}


def test_a_folder_removed_by_its_holder_between_creation_and_locking_is_made_again(tmp_path, monkeypatch):
    from augkit.jobs.lock import FolderLock

    folder = tmp_path / "job"
    real_open = os.open
    removed = []

    def open_after_the_holder_removed_it(path, flags, *args):
        if Path(path) == folder and not removed:  # the previous run renames its folder aside right here
            removed.append(True)
            folder.rename(tmp_path / "job.removing-1")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", open_after_the_holder_removed_it)
    lock = FolderLock(folder)  # the race once ended a second run with FileNotFoundError (exit 1)
    assert removed and folder.is_dir() and (folder / "owner.json").exists()
    lock.release()
