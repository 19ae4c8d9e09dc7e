"""Run a function for at most so many seconds: the mechanism behind ``row_timeout``.

``TimeLimit(seconds).run(function)`` returns ``function()``, or raises
:class:`TimeLimitExceeded` once ``seconds`` have passed. Two ways, chosen per call:

- **An alarm** (``SIGALRM`` armed with ``setitimer``) in the main thread of a POSIX process: the
  local run, ``ProcessPoolExecutor`` workers, ``datasets``' ``num_proc`` workers. The handler
  raises in the running code itself, so a ``time.sleep`` or a blocking read is interrupted
  too. A handler or timer set before (``pytest-timeout``, the caller's own ``alarm``) is put
  back afterwards, its timer less the time spent; when it would ring first, it is left alone.
- **A helper thread** elsewhere (Ray Data runs map functions in a thread pool; web servers
  run handlers in threads; Windows has no ``SIGALRM``): ``function`` runs in a helper thread
  while the calling thread waits at most ``seconds``. On time-out the caller raises at once,
  so the run goes on, and the helper is sent :class:`TimeLimitExceeded` too, which stops its
  Python code as soon as it runs again; a call blocked in C (a sleep, a socket read) finishes
  in the background first.

Either way, code stuck inside one long C call (a regular expression, a model's forward pass)
is interrupted only when that call returns to Python.

:class:`TimeLimitExceeded` derives from ``BaseException``, like ``KeyboardInterrupt``, so that
a plugin's ``except Exception`` cannot swallow it.
"""

from __future__ import annotations

import contextvars
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

#: Smallest delay setitimer is given when putting back a timer that was due while ours ran:
#: non-zero, because zero would disarm it instead of letting it ring now.
_OVERDUE_TIMER = 1e-6


class TimeLimitExceeded(BaseException):
    """Code ran past a time limit (see :mod:`augkit.pipeline.time_limit`).

    A ``BaseException``, not an ``Exception``: code that catches every error to carry on
    must not be able to ignore it. ``where`` names the line that was running (``file:line in
    function``), when known.
    """

    def __init__(self, seconds: float | None = None, where: str | None = None):
        super().__init__(seconds, where)
        self.seconds = seconds
        self.where = where
        self.limit: TimeLimit | None = None  # the TimeLimit that raised it (see TimeLimit.raised)

    def __str__(self) -> str:
        text = "ran past its time limit" if self.seconds is None else f"ran past its time limit of {self.seconds:g} s"
        return text if self.where is None else f"{text}, in {self.where}"


class TimeLimit:
    """At most ``seconds`` (None: no limit) for each call of :meth:`run`.

    Example::

        limit = TimeLimit(60)
        try:
            result = limit.run(lambda: slow(text))
        except TimeLimitExceeded as error:
            if not limit.raised(error):
                raise  # an outer limit's: not ours to handle
            result = None
    """

    def __init__(self, seconds: float | None):
        if seconds is not None and not 0 < seconds < math.inf:
            raise ValueError(f"a time limit must be a positive, finite number of seconds or None, got {seconds!r}")
        self.seconds = seconds

    def run(self, function: Callable[[], T]) -> T:
        """``function()``, or :class:`TimeLimitExceeded` after ``seconds``."""
        if self.seconds is None:
            return function()
        if _alarm_usable():
            return self._run_with_alarm(function)
        return self._run_in_helper_thread(function)

    def raised(self, error: BaseException) -> bool:
        """Whether ``error`` is this limit running out (not an outer limit's, nor another error)."""
        return isinstance(error, TimeLimitExceeded) and error.limit is self

    def _exceeded(self, where: str | None) -> TimeLimitExceeded:
        error = TimeLimitExceeded(self.seconds, where)
        error.limit = self
        return error

    def _run_with_alarm(self, function: Callable[[], T]) -> T:
        previous_handler = signal.getsignal(signal.SIGALRM)
        previous_delay, previous_interval = signal.getitimer(signal.ITIMER_REAL)
        if previous_delay and previous_delay <= self.seconds:
            return function()  # an earlier alarm rings first; it is its owner's to handle
        armed = True

        def on_alarm(signum: int, frame: FrameType | None) -> None:
            nonlocal armed
            if armed:  # a signal handled after the function returned must not raise
                armed = False
                raise self._exceeded(_describe(frame))

        started = time.monotonic()
        signal.signal(signal.SIGALRM, on_alarm)
        try:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            try:
                return function()
            finally:
                armed = False  # in its own try: should the alarm raise just before this, the restore still runs
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous_handler)
            if previous_delay:
                remaining = previous_delay - (time.monotonic() - started)
                signal.setitimer(signal.ITIMER_REAL, max(remaining, _OVERDUE_TIMER), previous_interval)

    def _run_in_helper_thread(self, function: Callable[[], T]) -> T:
        outcome: dict[str, Any] = {}
        finished = threading.Event()
        state = threading.Lock()  # orders "the helper finished" against "the caller gave up on it"
        context = contextvars.copy_context()  # the helper sees the caller's context variables

        def work() -> None:
            try:
                try:
                    outcome["result"] = context.run(function)
                except BaseException as error:  # handed to the caller, who re-raises it
                    outcome["error"] = error
                with state:
                    finished.set()
            except TimeLimitExceeded:
                pass  # the caller gave up on this call and raised already: nothing to report

        helper = threading.Thread(target=work, name="augkit-time-limit", daemon=True)
        helper.start()
        if not finished.wait(self.seconds):
            with state:
                if not finished.is_set():
                    where = _describe(sys._current_frames().get(helper.ident))
                    _raise_in_thread(helper, TimeLimitExceeded)  # stops it when it next runs Python code
                    raise self._exceeded(where)
        if "error" in outcome:
            raise outcome["error"]
        return outcome["result"]


def _alarm_usable() -> bool:
    """Whether an alarm signal can interrupt this thread: POSIX, main thread, and a previous
    SIGALRM handler that can be put back (None means one set outside Python)."""
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) is not None
    )


def _raise_in_thread(thread: threading.Thread, exception: type[BaseException]) -> None:
    """Make ``thread`` raise ``exception`` when it next runs Python code (CPython's
    ``PyThreadState_SetAsyncExc``)."""
    import ctypes

    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(exception))


def _describe(frame: FrameType | None) -> str | None:
    """``file:line in function`` of the code a frame is running, skipping this module's own."""
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is None:
        return None
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno} in {frame.f_code.co_name}"
