"""SIGTERM handled like Ctrl-C: the run stops through the same clean-up, with its own message.

Without a handler, SIGTERM (what ``kill``, systemd, Kubernetes and job schedulers send first)
ends Python at once: no message, no ``finally`` blocks, so ``augkit augment`` said nothing
about its finished chunks and ``augkit serve`` left its uploads behind. Inside
:func:`terminate_like_interrupt`, SIGTERM raises :class:`Terminated`, a ``KeyboardInterrupt``,
so every path that cleans up after Ctrl-C cleans up after SIGTERM too.

Python drops an exception raised by a signal handler while it runs certain callbacks (the
at-fork hooks of a worker pool starting, ``__del__`` methods), and one raised inside a worker
pool's machinery can deadlock it: the termination is therefore also remembered, long loops
call :func:`stop_if_terminated` between units of work, and inside
:func:`deferred_termination` (a pool running) SIGTERM is only remembered.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; handled wherever Ctrl-C is, reported as a termination (exit 143)."""


_requested = False
_deferring = 0


@contextmanager
def deferred_termination() -> Iterator[None]:
    """Inside: SIGTERM is only remembered, not raised; the code that runs the block calls
    :func:`stop_if_terminated` at its next safe point (a worker pool running batches)."""
    global _deferring
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1


def stop_if_terminated() -> None:
    """Raise :class:`Terminated` if SIGTERM arrived and its exception was lost."""
    if _requested:
        raise Terminated()


@contextmanager
def terminate_like_interrupt() -> Iterator[None]:
    """Turn SIGTERM into :class:`Terminated` in this process while the block runs (main
    thread only; elsewhere, and in forked children, SIGTERM keeps its default action)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    global _requested
    owner = os.getpid()

    def raise_terminated(signum, frame):
        global _requested
        if os.getpid() != owner:  # a forked worker: die as SIGTERM means, its parent reports
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        _requested = True
        if not _deferring:
            raise Terminated()

    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        _requested = False
