"""Worker processes that end with their parent, however the parent ends.

A parent killed with SIGKILL runs no clean-up: its pool's workers, blocked on the pipe their
tasks come through, would live on for good (re-parented, holding their memory and the input
file open). So a worker, as it starts, arranges to end with its parent in two ways:

- Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``): the kernel kills the
  worker the moment its parent dies. The kernel ties it to the *thread* that forked the
  worker, not the process, so it is used only for workers forked by the main thread (whose end
  is the process's); a worker forked by another thread could otherwise die with that thread
  while its parent runs on.
- A watch thread in the worker that compares its parent's id with the one it started with
  every :data:`PARENT_CHECK_SECONDS`, and ends the worker once it differs (the parent is
  gone and the worker was re-parented): for other threads, and where there is no ``prctl``.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

#: How often a worker's watch thread checks that its parent is alive: a worker outlives a
#: killed parent by at most this much where the parent-death signal does not apply. Checking
#: is one system call, so a second costs nothing measurable.
PARENT_CHECK_SECONDS = 1.0
#: ``PR_SET_PDEATHSIG`` from ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1
#: The exit status of a worker that ends because its parent is gone (128 + SIGKILL, as if killed).
ORPHANED_EXIT = 128 + signal.SIGKILL


def end_with_parent(parent: int, *, forked_by_main_thread: bool) -> None:
    """Make this (just forked or spawned) worker end when process ``parent`` ends; call it
    first thing in the worker. ``forked_by_main_thread``: whether the parent forked it from
    its main thread (then the parent-death signal is safe to use)."""
    if forked_by_main_thread:
        _set_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the signal was armed: nothing would fire
        os._exit(ORPHANED_EXIT)
    threading.Thread(target=_watch_parent, args=(parent,), name="augkit-parent-watch", daemon=True).start()


def _set_parent_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when the thread that forked it ends; False where
    that cannot be asked (not Linux, no C library found)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None:
        return False
    libc = ctypes.CDLL(name, use_errno=True)
    return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_CHECK_SECONDS)
        if os.getppid() != parent:
            os._exit(ORPHANED_EXIT)
