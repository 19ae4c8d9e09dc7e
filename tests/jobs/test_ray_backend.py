"""The Ray backend on a real local Ray instance (2 CPUs): the same rows, provenance, candidates
and counts as the local backend whatever the number of blocks or actors; a worker killed
mid-job is restarted by Ray and the result is still complete and exact; the command line's
``--backend ray`` writes the local backend's bytes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.engine.process_tree import descendants, running
from augkit.engine.termination import terminate_like_interrupt

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def ray_with_this_module(local_ray):
    """The shared local Ray (conftest), with this module's test augmenters sent to the actors
    by value."""
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def test_connecting_keeps_the_callers_sigterm_handler(monkeypatch):
    """ray.init installs a SIGTERM handler calling sys.exit (a fake stands in for it here, as
    this module's Ray is started already): augkit's command line keeps its own."""
    from augkit.adapters.ray_backend import connect

    def init_like_ray(**options):
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(signum))

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", init_like_ray)
    with terminate_like_interrupt():
        handler = signal.getsignal(signal.SIGTERM)
        connect()
        assert signal.getsignal(signal.SIGTERM) is handler


@pytest.fixture(scope="module")
def frame(banking77_10shot) -> pd.DataFrame:
    frame = banking77_10shot.head(150).reset_index(drop=True).copy()
    frame.loc[4, "text"] = ""
    return frame


def _local(frame, method, **options):
    return augkit.augment_with_report(frame, method, **options)


@pytest.mark.parametrize(("blocks", "workers", "keep_original"), [(3, 1, True), (11, 2, True), (5, 2, False)])
def test_same_output_as_the_local_backend(frame, blocks, workers, keep_original):
    local, local_report = _local(frame, "eda+aeda", n=2, seed=9, keep_original=keep_original)
    dataset = ray.data.from_pandas(frame).repartition(blocks)
    out, report = augkit.augment_with_report(dataset, "eda+aeda", n=2, seed=9, workers=workers, batch_size=16,
                                             keep_original=keep_original)
    remote = out.to_pandas()
    assert remote.columns.tolist() == local.columns.tolist()
    assert remote["text"].tolist() == local["text"].tolist()
    assert remote["label"].tolist() == local["label"].tolist()
    assert [int(s) for s in remote["augkit_source"]] == [int(s) for s in local["augkit_source"]]
    assert report.as_dict() == local_report.as_dict()


def test_a_filter_that_needs_every_original_sees_them_on_ray(frame):
    frame = frame.head(60)  # six intents, each block short of most of them: enough for the encoder's work
    local, _ = _local(frame, "eda|label_integrity", n=2, seed=1, label_column="label")
    out, _ = augkit.augment_with_report(ray.data.from_pandas(frame).repartition(6), "eda|label_integrity", n=2, seed=1,
                                        label_column="label", workers=2, batch_size=8)
    remote = out.to_pandas()
    assert remote["text"].tolist() == local["text"].tolist()
    # the same margins up to float noise: Ray's workers run the encoder with their own thread count
    # (a margin of 0.6351935 rounded to 0.635193 in one process and 0.635194 in the other)
    assert remote["augkit_label_integrity"].fillna(-9).tolist() == pytest.approx(
        local["augkit_label_integrity"].fillna(-9).tolist(), abs=1e-5)


class FailsOnRefunds(augkit.Augmenter):
    """Shouts, but raises on texts that mention a refund."""

    name = "fails_on_refunds"

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        if "refund" in text:
            raise ValueError("no refunds")
        return [f"{text.upper()}{'!' * rng.randint(1, 4)}" for _ in range(n)]


def test_rows_without_a_label_and_failed_rows_are_counted_and_named_as_locally(frame):
    gappy = frame.copy()
    gappy.loc[[5, 50, 51], "label"] = ""
    local, local_report = _local(gappy, FailsOnRefunds(), n=1, seed=2, label_column="label")
    out, report = augkit.augment_with_report(ray.data.from_pandas(gappy).repartition(5), FailsOnRefunds(), n=1, seed=2,
                                             label_column="label", workers=2, batch_size=16)
    assert report.without_augmentation["no label (passed through)"] == 3
    assert report.examples["no label (passed through)"][0][0] == 5
    assert any(reason.startswith("augmentation failed") for reason in report.examples)
    assert report.as_dict() == local_report.as_dict()
    assert report.summary() == local_report.summary()


class DiesOnce(augkit.Augmenter):
    """Shouts; the first time it sees ``victim``, its worker process dies (as if killed)."""

    name = "dies_once"

    def __init__(self, victim: str = "", marker: str = ""):
        self.victim = victim
        self.marker = marker

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        if text == self.victim and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)
        return [f"{text.upper()}{'!' * rng.randint(1, 4)}" for _ in range(n)]


def test_a_killed_worker_is_restarted_and_the_result_is_complete_and_exact(frame, tmp_path):
    marker = tmp_path / "died"
    victim = frame["text"].iloc[77]
    (tmp_path / "never").touch()  # the local reference run must not die
    local, local_report = _local(frame, DiesOnce(victim, str(tmp_path / "never")), n=2, seed=4)
    out, report = augkit.augment_with_report(ray.data.from_pandas(frame).repartition(4), DiesOnce(victim, str(marker)),
                                             n=2, seed=4, workers=2, batch_size=25)
    assert marker.exists()  # a worker did die
    remote = out.to_pandas()
    assert remote["text"].tolist() == local["text"].tolist()
    assert report.as_dict() == local_report.as_dict()


class HangsOnOneRow(augkit.Augmenter):
    """Shouts, but on ``marked`` sleeps ten minutes inside ``except Exception: pass`` (or,
    with ``hang=False``, raises: the reference output)."""

    name = "hangs_on_one_row"

    def __init__(self, marked: str = "", hang: bool = True):
        self.marked = marked
        self.hang = hang

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        if text == self.marked:
            if not self.hang:
                raise ValueError("marked row")
            try:
                time.sleep(600)
            except Exception:
                pass
        return [f"{text.upper()}{'!' * rng.randint(1, 4)}" for _ in range(n)]


def test_a_hung_row_times_out_on_ray_whose_actors_run_batches_off_the_main_thread(frame):
    marked = frame["text"].iloc[33]
    assert frame["text"].tolist().count(marked) == 1
    local, _ = _local(frame, HangsOnOneRow(marked, hang=False), n=2, seed=4)
    started = time.monotonic()
    out, report = augkit.augment_with_report(ray.data.from_pandas(frame).repartition(3), HangsOnOneRow(marked), n=2,
                                             seed=4, workers=2, batch_size=25, row_timeout=1)
    assert time.monotonic() - started < 600
    assert out.to_pandas()["text"].tolist() == local["text"].tolist()
    assert report.without_augmentation == {"augmentation failed (timed out after 1 s; strict mode stops and shows it)": 1,
                                           "empty or whitespace text": 1}


def test_the_command_line_backend_writes_the_local_bytes(tmp_path, frame):
    path = tmp_path / "in.csv"
    frame.head(100).to_csv(path, index=False)
    outputs = {}
    for backend in ("local", "ray"):
        out = tmp_path / f"{backend}.csv"
        assert main(["augment", str(path), "-m", "eda", "-n", "2", "--seed", "3", "--chunk-rows", "60",
                     "--backend", backend, "--workers", "2", "--cpus-per-worker", "0.5", "-o", str(out), "--no-progress"]) == 0
        outputs[backend] = out.read_bytes()
    assert outputs["ray"] == outputs["local"]


@pytest.mark.parametrize(("stop_signal", "code", "report"), [
    (signal.SIGTERM, 143, "terminated (SIGTERM)"),
    (signal.SIGINT, 130, "interrupted"),
])
def test_a_stopped_ray_run_reports_like_a_local_one(tmp_path, shared_data, stop_signal, code, report):
    """SIGTERM or Ctrl-C (SIGINT) to `augkit augment --backend ray` once its own Ray instance
    runs: exit 143 or 130 and the resume message, as without Ray (Ray's handlers made it
    abort with 134)."""
    path = tmp_path / "in.csv"
    texts = (shared_data / "clinc150" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    pd.DataFrame({"text": texts[:3000]}).to_csv(path, index=False)
    log = tmp_path / "stderr.txt"
    with log.open("w") as stderr:
        process = subprocess.Popen([sys.executable, "-m", "augkit.cli", "augment", str(path), "-m", "eda", "-n", "4",
                                    "--seed", "0", "--backend", "ray", "--workers", "2", "--chunk-rows", "200",
                                    "-o", str(tmp_path / "out.csv"), "--no-progress"], stderr=stderr)
        deadline = time.monotonic() + 180
        while "Dataset" not in log.read_text() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)  # Ray has started and runs the first chunk
        started = descendants(process.pid)
        process.send_signal(stop_signal)
        assert process.wait(timeout=120) == code, log.read_text()[-2000:]
    assert report in log.read_text() and "--resume" in log.read_text()
    # the command ends without Ray's exit-time shutdown (its race gave status 1): the Ray
    # processes it started must still end with it
    deadline = time.monotonic() + 30
    while running(started) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not running(started), "Ray processes outlived the command"

