"""SIGTERM handled like Ctrl-C: the run stops through the same clean-up, with its own message.

Without a handler, SIGTERM (what ``kill``, systemd, Kubernetes and job schedulers send first)
ends Python at once: no message, no ``finally`` blocks, so ``augkit augment`` said nothing
about its finished chunks and ``augkit serve`` left its uploads behind. Inside
:func:`terminate_like_interrupt`, SIGTERM raises :class:`Terminated`, a ``KeyboardInterrupt``,
so every path that cleans up after Ctrl-C cleans up after SIGTERM too.

Python drops an exception raised by a signal handler while it runs certain callbacks (the
at-fork hooks of a worker pool starting, ``__del__`` methods): the termination is therefore
also remembered, and long loops call :func:`stop_if_terminated` between units of work.
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
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        _requested = False
