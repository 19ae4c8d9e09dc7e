"""What augkit's command line hands a plugin's command: :class:`CommandContext`.

A command built on augkit's own (``augkit paramac build-pairs`` paraphrases through ``augkit
augment``) receives the command line from the command line itself, so no plugin imports
``augkit.cli`` and nothing below the command line reaches up to it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CommandContext:
    """Handed to a command's (or a training target's) ``run(args, context)`` when ``run``
    takes a ``context`` parameter; ``run(args)`` is called as before.

    ``run_augkit(argv) -> int`` runs one ``augkit`` command line in this process, as ``augkit
    ARGV...`` would (its errors printed as augkit prints them), and returns its exit code:

    >>> def build_pairs(args, context):
    ...     return context.run_augkit(["augment", args.input, "-m", "eda", "-o", args.output])
    """

    run_augkit: Callable[[Sequence[str]], int]


def takes_context(run: Callable[..., Any]) -> bool:
    """Whether a command's ``run`` asks for the :class:`CommandContext` (a parameter named
    ``context``), as an augmenter's ``augment_batch`` asks for its batch's."""
    try:
        return "context" in inspect.signature(run).parameters
    except (TypeError, ValueError):  # a builtin or C callable without a signature: run(args)
        return False
