"""Connecting to Ray for ``augkit augment --backend ray`` (extra ``augkit[ray]``)."""

from __future__ import annotations

import signal
import threading

from augkit.errors import MissingDependencyError

RAY_EXTRA = "the Ray backend needs ray: pip install 'augkit[ray]'"


def connect(address: str | None = None) -> None:
    """Join the Ray cluster at ``address`` (``ray://host:10001`` or ``host:6379``), or start a
    local Ray instance when there is none; nothing when this process is connected already."""
    try:
        import ray
    except ImportError as error:
        raise MissingDependencyError(RAY_EXTRA) from error
    if ray.is_initialized():
        return
    options = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    # ray.init replaces this process's SIGTERM handler with one that calls sys.exit: a handler
    # of the caller's own (augkit's command line reports the run's end on SIGTERM) is kept;
    # where SIGTERM had its default action, Ray's stays.
    sigterm = signal.getsignal(signal.SIGTERM)
    try:
        ray.init(**({"address": address} if address else {}), **options)
    finally:
        if callable(sigterm) and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, sigterm)
