"""Running an ``augkit`` command line in a test, as a user's shell would, without a subprocess."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Sequence
from os import PathLike


def run_command(argv: Sequence[str | int | float | PathLike]) -> int:
    """Run ``augkit ARGV...`` in this process and return its exit code, as the shell would see
    it (a usage error argparse reports, such as a missing ``-m``, is 2, not a ``SystemExit``);
    what it prints goes to this process's stdout and stderr (``capsys`` reads them). Arguments
    that are not strings (paths, numbers) are passed as their ``str``.

    >>> run_command(["info", "eda"])  # doctest: +SKIP
    0
    """
    from augkit.cli.main import main

    try:
        return main([str(argument) for argument in argv])
    except SystemExit as exit_:  # argparse: --help, a bad or missing argument
        if exit_.code is None or isinstance(exit_.code, int):
            return exit_.code or 0
        print(exit_.code, file=sys.stderr)
        return 1


def run_command_captured(
    argv: Sequence[str | int | float | PathLike], *, cwd: str | PathLike | None = None
) -> subprocess.CompletedProcess:
    """:func:`run_command`, with what the command prints captured: the ``CompletedProcess``
    that ``subprocess.run([... "augkit", *argv], capture_output=True, text=True)`` would give
    (``returncode``, ``stdout``, ``stderr``), in a fraction of the time, since this process
    has augkit, pandas and the models a test loaded already. ``cwd`` runs it from that folder.

    Output that a library's own log handler writes to the stderr it saw when it was set up is
    not captured; a test of what a command must not print runs the command in a subprocess."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(os.fspath(cwd)))
        stack.enter_context(contextlib.redirect_stdout(stdout))
        stack.enter_context(contextlib.redirect_stderr(stderr))
        code = run_command(argv)
    return subprocess.CompletedProcess(["augkit", *map(str, argv)], code, stdout.getvalue(), stderr.getvalue())
