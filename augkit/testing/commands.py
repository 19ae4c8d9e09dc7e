"""Running an ``augkit`` command line in a test, as a user's shell would, without a subprocess."""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike


def run_command(argv: Sequence[str | int | float | PathLike]) -> int:
    """Run ``augkit ARGV...`` in this process and return its exit code; what it prints goes to
    this process's stdout and stderr (``capsys`` reads them). Arguments that are not strings
    (paths, numbers) are passed as their ``str``.

    >>> run_command(["info", "eda"])  # doctest: +SKIP
    0
    """
    from augkit.cli.main import main

    return main([str(argument) for argument in argv])
