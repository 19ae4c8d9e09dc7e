"""augkit.engine.process_tree: the processes below a process, and which of some are still running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from augkit.engine.process_tree import descendants, running

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")

#: A child that starts a grandchild, prints its id, and waits.
TWO_LEVELS = (
    "import subprocess, sys, time\n"
    "grandchild = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(grandchild.pid, flush=True)\n"
    "time.sleep(60)\n"
)


def test_descendants_finds_children_and_their_children_and_running_drops_the_ended():
    child = subprocess.Popen([sys.executable, "-c", TWO_LEVELS], stdout=subprocess.PIPE, text=True)
    try:
        grandchild = int(child.stdout.readline())
        assert {child.pid, grandchild} <= descendants(os.getpid())
        assert descendants(child.pid) == {grandchild}
        assert running({child.pid, grandchild}) == {child.pid, grandchild}
        os.kill(grandchild, signal.SIGKILL)  # its parent does not reap it: a zombie
        deadline = time.monotonic() + 10
        while grandchild in running({grandchild}) and time.monotonic() < deadline:
            time.sleep(0.05)  # the kill is delivered asynchronously
        assert Path(f"/proc/{grandchild}").exists(), "the zombie is still listed"
        assert running({child.pid, grandchild}) == {child.pid}
        assert grandchild not in descendants(os.getpid())
    finally:
        child.kill()
        child.wait()
    assert running({child.pid, grandchild}) == set()

