"""What a user sees while a run goes: augkit's bar with a total and the time left on a
terminal (or with --progress), and no bar of another library unless progress is on."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROWS = 3000


@pytest.fixture(scope="module")
def trec_table(shared_data, tmp_path_factory) -> Path:
    lines = (shared_data / "trec" / "sent-conv-torch" / "TREC.train.all").read_text(encoding="latin-1").splitlines()
    frame = pd.DataFrame([line.split(" ", 1)[::-1] for line in lines[:ROWS]], columns=["text", "label"])
    path = tmp_path_factory.mktemp("progress") / "trec.csv"
    frame.to_csv(path, index=False)
    return path


def _run_on_a_terminal(arguments: list[str]) -> tuple[int, str]:
    """Run ``augkit`` with its standard error on a pseudo-terminal; its exit code and what the
    terminal received."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "augkit.cli", *arguments], stdout=subprocess.DEVNULL,
                               stderr=terminal, stdin=subprocess.DEVNULL)
    os.close(terminal)
    received = b""
    while True:
        try:
            data = os.read(controller, 65536)
        except OSError:  # the terminal closed: the process has ended
            break
        if not data:
            break
        received += data
    os.close(controller)
    return process.wait(timeout=120), received.decode("utf-8", "replace")


#: tqdm's "done/total [elapsed<left" once a rate is known, e.g. "1200/3000 [00:01<00:01".
BAR_WITH_TOTAL_AND_TIME_LEFT = re.compile(rf"\d+/{ROWS} \[\d\d:\d\d<\d\d:\d\d")


@pytest.mark.parametrize("extra", [[], ["--chunk-rows", "1000"]], ids=["one-chunk", "three-chunks"])
def test_a_run_on_a_terminal_shows_rows_done_of_the_total_and_the_time_left(trec_table, tmp_path, extra):
    code, seen = _run_on_a_terminal(["augment", str(trec_table), "-m", "eda", "-n", "4", "--seed", "0",
                                     "--batch-size", "25", "-o", str(tmp_path / "out.csv"), *extra])
    assert code == 0, seen
    assert BAR_WITH_TOTAL_AND_TIME_LEFT.search(seen), seen[-2000:]


def test_piped_with_progress_the_bar_has_its_total(trec_table, tmp_path):
    done = subprocess.run([sys.executable, "-m", "augkit.cli", "augment", str(trec_table), "-m", "eda", "-n", "4",
                           "--seed", "0", "--batch-size", "25", "--progress", "-o", str(tmp_path / "out.csv")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert f"/{ROWS} [" in done.stderr


def test_model_loading_bars_stay_quiet_unless_progress_is_on(trec_table, tmp_path):
    small = tmp_path / "small.csv"
    pd.read_csv(trec_table, dtype=str, keep_default_na=False).head(40).to_csv(small, index=False)
    command = [sys.executable, "-m", "augkit.cli", "augment", str(small), "-m", "eda|semantic", "-n", "1", "--seed", "0",
               "-o", str(tmp_path / "out.csv")]
    quiet = subprocess.run([*command, "--no-progress"], capture_output=True, text=True, timeout=300)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr.count("\n") == 1 and quiet.stderr.startswith("augkit: read 40 rows"), quiet.stderr
    shown = subprocess.run([*command, "--progress"], capture_output=True, text=True, timeout=300)
    assert "Loading weights" in shown.stderr  # transformers' own bar, when the user asked for bars
