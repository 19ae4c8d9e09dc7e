"""The worker pool's life: a finished run lets its workers end on their own (it does not kill
them as a run stopped early does), and a worker starts with SIGTERM's default action and its
caller's signal mask whatever handler the caller had (``ray.init`` installs one that calls
``sys.exit``; inherited by a worker forked at the wrong moment, it once made a worker return
into its parent's stack and run on as a second copy of the test session)."""

from __future__ import annotations

import signal
import sys

import pandas as pd
import pytest

import augkit
import augkit.engine.workers
from augkit.pipeline.pipeline import Pipeline
from augkit.steps.augmenter import Augmenter


class _ReportsItsSignals(Augmenter):
    """Writes, as its one candidate, how the process that runs it handles SIGTERM and which
    signals it blocks."""

    name = "reports_signals"

    def augment_batch(self, texts, n, rngs):
        handler = signal.getsignal(signal.SIGTERM)
        blocked = sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, ()))
        return [[f"{handler!r} blocked={blocked}"] for _ in texts]


@pytest.fixture
def texts(banking77_10shot) -> list[str]:
    return banking77_10shot.text.tolist()[:12]


@pytest.fixture
def stops_recorded(monkeypatch) -> list[int]:
    """Every call of the pool's early stop, recorded (and still carried out)."""
    calls: list[int] = []
    stop = augkit.engine.workers._stop_workers

    def recorded(pool):
        calls.append(1)
        stop(pool)

    monkeypatch.setattr(augkit.engine.workers, "_stop_workers", recorded)
    return calls


def test_a_finished_run_does_not_stop_its_workers_early(texts, stops_recorded):
    out = augkit.augment(pd.DataFrame({"text": texts}), "eda", n=2, seed=0, batch_size=2, workers=2)
    assert out.attrs["augkit_report"]["rows_augmented"] == len(texts)
    assert stops_recorded == [], "a finished run killed its workers as if it had been stopped"


def test_a_run_stopped_by_an_error_stops_its_workers(texts, stops_recorded):
    class _Fails(Augmenter):
        name = "fails"

        def augment_batch(self, texts, n, rngs):
            raise RuntimeError("broken augmenter")

    with pytest.raises(Exception, match="broken augmenter"):
        augkit.augment(pd.DataFrame({"text": texts}), Pipeline(_Fails()), n=2, seed=0, batch_size=2, workers=2,
                       strict=True)
    assert stops_recorded == [1]


@pytest.fixture
def exiting_sigterm_handler():
    """SIGTERM handled as ``ray.init`` handles it (``sys.exit``), put back afterwards."""
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(signum))
    yield
    signal.signal(signal.SIGTERM, previous)


def test_workers_take_sigterm_as_its_default_whatever_the_callers_handler(texts, exiting_sigterm_handler):
    caller_mask = sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, ()))
    out = augkit.augment(texts, Pipeline(_ReportsItsSignals()), n=1, seed=0, batch_size=3, workers=2)
    in_workers = {candidate for row in out for candidate in row}
    assert in_workers == {f"{signal.SIG_DFL!r} blocked={caller_mask}"}
    in_caller = augkit.augment(texts, Pipeline(_ReportsItsSignals()), n=1, seed=0, batch_size=3)
    assert {c for row in in_caller for c in row} != in_workers, "the caller keeps its own handler"
    assert sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, ())) == caller_mask, \
        "the caller's signal mask is put back after the workers start"


def test_workers_keep_signals_their_caller_blocks(texts):
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    try:
        out = augkit.augment(texts, Pipeline(_ReportsItsSignals()), n=1, seed=0, batch_size=3, workers=2)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    assert all(f"{int(signal.SIGUSR1)}" in row[0].split("blocked=")[1] for row in out)
