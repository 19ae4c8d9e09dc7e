"""Progress bars: augkit's own, and keeping other libraries' bars quiet unless asked for.

A run shows augkit's bar when ``progress`` is True, or when it is None and standard error is
a terminal. Libraries that augkit calls draw bars of their own (transformers' "Loading
weights", the hub's downloads); inside :func:`run_progress` they show only when the run's
progress is on, so a run with ``--no-progress`` (or piped into a log) prints nothing but
augkit's summary.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_third_party_bars: ContextVar[bool] = ContextVar("augkit_third_party_bars", default=False)


#: Terminal size assumed when the terminal reports none: a pseudo-terminal that no program
#: sized (CI runners, ``script``, Python's ``pty``) reports 0 x 0, and tqdm then draws
#: nothing at all (it reads -1 rows and treats its bar as scrolled off screen).
DEFAULT_TERMINAL = (80, 24)


def progress_bar(total: int | None, *, shown: bool, description: str, unit: str = "row") -> Any:
    """augkit's bar on standard error: ``unit`` done of ``total``, rate and time left; drawn
    even on a terminal that reports no size."""
    from tqdm.auto import tqdm

    columns, rows = _terminal_size()
    return tqdm(total=total, disable=not shown, unit=unit, desc=f"augkit {description}", leave=False,
                file=sys.stderr, ncols=columns, nrows=rows)


def _terminal_size() -> tuple[int, int]:
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
        columns, rows = size.columns, size.lines
    except (OSError, ValueError, AttributeError):
        columns = rows = 0
    return (columns if columns > 0 else DEFAULT_TERMINAL[0], rows if rows > 0 else DEFAULT_TERMINAL[1])


def progress_enabled(progress: bool | None) -> bool:
    """Whether a run with this ``progress`` setting shows bars."""
    return sys.stderr.isatty() if progress is None else bool(progress)


@contextmanager
def run_progress(progress: bool | None) -> Iterator[bool]:
    """For the duration of a run: other libraries' bars follow ``progress``. Yields whether
    augkit's own bar shows."""
    enabled = progress_enabled(progress)
    token = _third_party_bars.set(enabled)
    try:
        yield enabled
    finally:
        _third_party_bars.reset(token)


@contextmanager
def third_party_bars() -> Iterator[None]:
    """Around a call into transformers or the hub (model loading): their progress bars are
    switched off unless the current run's progress is on, and restored afterwards."""
    if _third_party_bars.get():
        yield
        return
    restore = []
    transformers_logging = _module("transformers.utils.logging")
    if transformers_logging is not None and transformers_logging.is_progress_bar_enabled():
        transformers_logging.disable_progress_bar()
        restore.append(transformers_logging.enable_progress_bar)
    hub = _module("huggingface_hub.utils")
    if hub is not None and not hub.are_progress_bars_disabled():
        hub.disable_progress_bars()
        restore.append(hub.enable_progress_bars)
    try:
        yield
    finally:
        for enable in restore:
            enable()


def _module(name: str):
    """``name`` if it can be imported (the model libraries are optional)."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        return None
