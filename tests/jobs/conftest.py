"""What the job tests share."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest


def wait_until_chunks_done(folder: Path, count: int, process: subprocess.Popen, timeout: float = 120) -> None:
    """Return once ``count`` chunks of the job in ``folder`` are recorded as done; fail when
    ``process`` (the job) ends first or nothing moves for ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(list(folder.glob("chunk-*.json"))) >= count:
            return
        if process.poll() is not None:
            pytest.fail(f"the run ended before {count} chunks were done: {process.communicate()}")
        time.sleep(0.02)
    pytest.fail("no progress")


@pytest.fixture
def wait_for_chunks():
    """:func:`wait_until_chunks_done`, for a test that kills a job part-way."""
    return wait_until_chunks_done
