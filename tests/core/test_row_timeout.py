"""``row_timeout``: a row an augmenter hangs on (here: sleeps 600 s, even inside ``try: ...
except Exception: pass``) fails like a row that raised: kept unaugmented, counted, every other
row exactly as without it; ``strict`` stops naming it. Whatever the backend: one process, worker
processes, ``datasets`` workers, a thread that is not the main one. ``KeyboardInterrupt``,
``SystemExit`` and a caller's own time limit are never caught.

A run that is wrong here hangs for ten minutes rather than failing on a close timing: the only
timing asserted is "finished before the sleeping row would have"."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.errors import AugmentationFailedError
from augkit.pipeline.build import spec_uses_model
from augkit.pipeline.time_limit import TimeLimit, TimeLimitExceeded

SLEEP = 600.0
LIMIT = 1.0
MARKED = "what is the closest atm?"  # the one row of the slice the fragile augmenter hangs on
TIMED_OUT = f"augmentation failed (timed out after {LIMIT:g} s; strict mode stops and shows it)"


@pytest.fixture(scope="module")
def fragile(installed_test_plugins):
    from augkit_fragile import Fragile

    return Fragile


@pytest.fixture(scope="module")
def frame(banking77_10shot) -> pd.DataFrame:
    frame = banking77_10shot.head(48).reset_index(drop=True)
    assert frame["text"].tolist().count(MARKED) == 1
    return frame


@pytest.fixture(scope="module")
def expected(frame, fragile) -> pd.DataFrame:
    """The output when the marked row raises instead of hanging: what a timed-out run must give."""
    return augkit.augment(frame, fragile(trigger=MARKED), n=2, seed=4, batch_size=16)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("failure", ["sleep", "sleep-swallowing"])
def test_a_hung_row_times_out_is_counted_and_the_others_are_exact(frame, fragile, expected, failure, workers):
    started = time.monotonic()
    out, report = augkit.augment_with_report(
        frame, fragile(trigger=MARKED, failure=failure, seconds=SLEEP), n=2, seed=4, batch_size=16,
        workers=workers, row_timeout=LIMIT,
    )
    assert time.monotonic() - started < SLEEP
    assert out.equals(expected)
    assert report.without_augmentation == {TIMED_OUT: 1}


def test_strict_stops_naming_the_row_and_where_it_hung(frame, fragile):
    with pytest.raises(AugmentationFailedError, match=f"augmenting {re.escape(repr(MARKED))} timed out after 1 s \\(row_timeout\\), "
                                                      "in augkit_fragile.py:\\d+ in augment"):
        augkit.augment(frame, fragile(trigger=MARKED, failure="sleep-swallowing", seconds=SLEEP), n=1, seed=0,
                       row_timeout=LIMIT, strict=True)


def test_a_dataset_with_map_workers_times_out_the_row_too(frame, fragile, expected):
    datasets = pytest.importorskip("datasets")
    started = time.monotonic()
    out, report = augkit.augment_with_report(
        datasets.Dataset.from_pandas(frame), fragile(trigger=MARKED, failure="sleep", seconds=SLEEP), n=2, seed=4,
        batch_size=16, workers=2, row_timeout=LIMIT,
    )
    assert time.monotonic() - started < SLEEP
    columns = ["text", "label", "augkit_source", "augkit_method"]
    assert out.to_pandas()[columns].fillna("").values.tolist() == expected[columns].fillna("").values.tolist()
    assert report.without_augmentation == {TIMED_OUT: 1}


def test_off_the_main_thread_a_hung_row_times_out_too(frame, fragile, expected):
    """Web handlers and Ray Data's map functions run in threads, where no alarm signal reaches."""
    outcome = {}

    def run():
        outcome["result"] = augkit.augment_with_report(
            frame, fragile(trigger=MARKED, failure="sleep-swallowing", seconds=SLEEP), n=2, seed=4, batch_size=16,
            row_timeout=LIMIT,
        )

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(SLEEP)
    assert not thread.is_alive()
    out, report = outcome["result"]
    assert out.equals(expected)
    assert report.without_augmentation == {TIMED_OUT: 1}


def test_no_time_limit_by_default_in_python(frame, fragile, expected):
    slow = fragile(trigger=MARKED, failure="sleep", seconds=LIMIT * 1.5)  # slow, not hung
    out, report = augkit.augment_with_report(frame, slow, n=2, seed=4, batch_size=16)
    assert not report.without_augmentation
    assert out[out["augkit_source"] == frame.index[frame["text"] == MARKED][0]]["augkit_method"].notna().any()


@pytest.mark.parametrize("value", [0, -1, float("inf"), float("nan"), True, "60"])
def test_row_timeout_is_a_positive_number_or_none(value):
    with pytest.raises(augkit.InvalidParameterError, match="row_timeout must be a positive, finite number of seconds"):
        augkit.augment(["I lost my card"], "eda", row_timeout=value)


def test_a_callers_own_time_limit_is_not_swallowed_as_a_row_failure(frame, fragile):
    """The caller's watchdog (here a TimeLimit around the call) must stop the call, not be
    caught as one row's failure and the batch retried."""
    outer = TimeLimit(LIMIT)
    started = time.monotonic()
    with pytest.raises(TimeLimitExceeded) as caught:
        outer.run(lambda: augkit.augment(frame, fragile(trigger=MARKED, failure="sleep", seconds=SLEEP), n=1, seed=0,
                                          row_timeout=SLEEP / 2))
    assert outer.raised(caught.value)
    assert time.monotonic() - started < SLEEP


class Interrupting(augkit.Augmenter):
    """Raises ``error`` on the marked row; counts its calls there (in this process)."""

    name = "interrupting"
    calls = 0

    def __init__(self, error: str = "KeyboardInterrupt"):
        self.error = error

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        if text == MARKED:
            type(self).calls += 1
            raise {"KeyboardInterrupt": KeyboardInterrupt, "SystemExit": SystemExit}[self.error]()
        return [text.upper()]


@pytest.mark.parametrize("row_timeout", [None, 60.0])
@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_propagate_uncounted_and_unretried(frame, error, row_timeout):
    Interrupting.calls = 0
    with pytest.raises(error):
        augkit.augment(frame, Interrupting(error.__name__), n=1, seed=0, batch_size=16, row_timeout=row_timeout)
    assert Interrupting.calls == 1


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_in_a_worker_reach_the_caller(frame, error):
    with pytest.raises(error):
        augkit.augment(frame, Interrupting(error.__name__), n=1, seed=0, batch_size=8, workers=2, row_timeout=60.0)


def test_model_backed_steps_declare_it():
    registry = augkit.get_registry()
    uses_model = {name for table in (registry.methods, registry.filters) for name, entry in table.items() if entry.cls.uses_model}
    assert {"backtranslation", "faq", "semantic", "label_integrity"} <= uses_model
    assert not uses_model & {"eda", "aeda", "dedup", "edit_ratio", "length", "top_k"}
    assert spec_uses_model("eda+aeda|semantic") and spec_uses_model("faq") and spec_uses_model("eda>backtranslation")
    assert not spec_uses_model("eda+aeda|dedup|length")


def _cli(args: list[str], plugins, **options) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(plugins)}
    return subprocess.run([sys.executable, "-m", "augkit.cli", *args], capture_output=True, text=True, env=env,
                          timeout=SLEEP, **options)


def test_the_command_line_times_out_a_hung_row_and_goes_on(tmp_path, frame, installed_test_plugins):
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    common = ["augment", str(path), "-m", "fragile", "-p", f"trigger={MARKED}", "-n", "2", "--seed", "4",
              "--batch-size", "16", "--no-progress"]
    reference = _cli([*common, "-p", "failure=raise", "-o", str(tmp_path / "raised.csv")], installed_test_plugins)
    assert reference.returncode == 0, reference.stderr
    started = time.monotonic()
    done = _cli([*common, "-p", "failure=sleep-swallowing", "--row-timeout", "1", "-o", str(tmp_path / "out.csv")],
                installed_test_plugins)
    assert time.monotonic() - started < SLEEP
    assert done.returncode == 0, done.stderr
    assert f"1 row got no augmentation: 1 {TIMED_OUT}" in done.stderr
    assert (tmp_path / "out.csv").read_bytes() == (tmp_path / "raised.csv").read_bytes()
    strict = _cli([*common, "-p", "failure=sleep", "--row-timeout", "1", "--strict", "-o", str(tmp_path / "strict.csv")],
                  installed_test_plugins)
    assert strict.returncode == 1
    assert f"augmenting {MARKED!r} timed out after 1 s (row_timeout), in augkit_fragile.py:" in strict.stderr


@pytest.mark.parametrize(
    "method, option, seconds",
    [("eda", [], 60.0), ("eda+aeda|dedup|length", [], 60.0), ("eda|semantic", [], None), ("backtranslation", [], None),
     ("eda>faq", [], None), ("eda", ["--row-timeout", "2.5"], 2.5), ("eda", ["--row-timeout", "0"], None),
     ("eda", ["--row-timeout", "none"], None), ("eda|label_integrity", ["--row-timeout", "30"], 30.0)],
)
def test_the_command_line_limits_rows_to_60_s_unless_a_step_runs_a_model(tmp_path, monkeypatch, method, option, seconds):
    import augkit.jobs.file_augment

    jobs = []
    monkeypatch.setattr(augkit.jobs.file_augment, "augment_file", lambda job: jobs.append(job) or augkit.AugmentationReport())
    (tmp_path / "in.csv").write_text("text\nI lost my card\n")
    assert main(["augment", str(tmp_path / "in.csv"), "-m", method, "-o", str(tmp_path / "out.csv"), *option]) == 0
    assert jobs[0].row_timeout == seconds


@pytest.mark.parametrize("value", ["-1", "abc", "inf", "nan"])
def test_the_command_line_refuses_a_row_timeout_that_is_not_seconds(tmp_path, value, capsys):
    with pytest.raises(SystemExit) as done:
        main(["augment", str(tmp_path / "in.csv"), "-m", "eda", "-o", str(tmp_path / "out.csv"), "--row-timeout", value])
    assert done.value.code == 2
    assert "expected a number of seconds, or 0 or none for no limit" in capsys.readouterr().err
