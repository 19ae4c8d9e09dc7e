"""TimeLimit: a function runs at most so many seconds, in the main thread (an alarm) and in any
other thread (a helper thread); the timeout cannot be swallowed by ``except Exception``, belongs
to the limit that set it, and whatever alarm was set before is put back.

Sleeps are far longer than the limits (600 s against a fraction of a second), so a test that
fails does so by hanging visibly, never by a close timing."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from augkit.pipeline.time_limit import TimeLimit, TimeLimitExceeded

LONG = 600.0  # what a hung plugin does; no test waits for it
LIMIT = 0.2


def sleep_long() -> None:
    time.sleep(LONG)


def sleep_swallowing_errors() -> str:
    try:
        time.sleep(LONG)
    except Exception:  # a plugin that carries on whatever happens
        pass
    return "carried on"


def in_thread(function):
    """``function()``'s result or exception, computed in a thread that is not the main one."""
    outcome = {}

    def target():
        try:
            outcome["result"] = function()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def test_no_limit_and_a_quick_function_return_its_result():
    assert TimeLimit(None).run(lambda: 42) == 42
    assert TimeLimit(5).run(lambda: 42) == 42
    assert in_thread(lambda: TimeLimit(5).run(lambda: 42)) == 42


@pytest.mark.parametrize("seconds", [0, -1, float("inf"), float("nan")])
def test_a_limit_is_positive_or_none(seconds):
    with pytest.raises(ValueError, match="positive, finite number of seconds or None"):
        TimeLimit(seconds)


@pytest.mark.parametrize("where", ["main thread", "other thread"])
@pytest.mark.parametrize("function", [sleep_long, sleep_swallowing_errors])
def test_a_sleeping_function_is_stopped_and_except_exception_cannot_swallow_it(where, function):
    limit = TimeLimit(LIMIT)
    started = time.monotonic()
    with pytest.raises(TimeLimitExceeded) as caught:
        limit.run(function) if where == "main thread" else in_thread(lambda: limit.run(function))
    assert time.monotonic() - started < LONG / 10
    assert limit.raised(caught.value) and not isinstance(caught.value, Exception)
    assert f"in {function.__name__}" in str(caught.value) and f"{LIMIT:g} s" in str(caught.value)


def test_in_another_thread_the_abandoned_helper_stops_once_it_runs_python_again():
    stopped = threading.Event()

    def busy():
        try:
            while True:
                time.sleep(0.01)
        finally:
            stopped.set()

    with pytest.raises(TimeLimitExceeded):
        in_thread(lambda: TimeLimit(LIMIT).run(busy))
    assert stopped.wait(LONG / 10)


@pytest.mark.parametrize("error", [ValueError("bad row"), KeyboardInterrupt(), SystemExit(3)])
def test_errors_of_the_function_come_through_unchanged(error):
    def fail():
        raise error

    for run in (lambda f: f(), in_thread):
        with pytest.raises(type(error)) as caught:
            run(lambda: TimeLimit(5).run(fail))
        assert caught.value is error


@pytest.mark.parametrize("where", ["main thread", "other thread"])
def test_an_outer_limit_running_out_is_the_outer_limits(where):
    outer, inner = TimeLimit(LIMIT), TimeLimit(LONG / 2)

    def nested():
        return outer.run(lambda: inner.run(sleep_long))

    with pytest.raises(TimeLimitExceeded) as caught:
        nested() if where == "main thread" else in_thread(nested)
    assert outer.raised(caught.value) and not inner.raised(caught.value)


class OwnAlarm(Exception):
    pass


def raise_own_alarm(signum, frame):
    raise OwnAlarm()


@pytest.fixture
def own_alarm_handler():
    previous = signal.signal(signal.SIGALRM, raise_own_alarm)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def test_the_previous_alarm_handler_and_timer_are_put_back(own_alarm_handler):
    signal.setitimer(signal.ITIMER_REAL, LONG)
    with pytest.raises(TimeLimitExceeded):
        TimeLimit(LIMIT).run(sleep_long)
    assert signal.getsignal(signal.SIGALRM) is raise_own_alarm
    remaining, _ = signal.getitimer(signal.ITIMER_REAL)
    assert LONG - 60 < remaining < LONG  # less the time spent, still armed


def test_an_earlier_alarm_set_before_rings_as_its_owner_wants(own_alarm_handler):
    signal.setitimer(signal.ITIMER_REAL, LIMIT)
    with pytest.raises(OwnAlarm):
        TimeLimit(LONG / 2).run(sleep_long)
    assert signal.getsignal(signal.SIGALRM) is raise_own_alarm


def test_a_timeout_survives_pickling_for_worker_processes():
    import pickle

    error = pickle.loads(pickle.dumps(TimeLimitExceeded(1.5, "x.py:3 in f")))
    assert (error.seconds, error.where) == (1.5, "x.py:3 in f")
