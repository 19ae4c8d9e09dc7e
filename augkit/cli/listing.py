"""``augkit list``: the installed methods, filters, plugin commands and training targets."""

from __future__ import annotations

import argparse
import sys

from augkit.cli.exit_codes import EXIT_OK
from augkit.terminal.plain_text import plain_text
from augkit.terminal.tables import output_width, table_lines

#: Widest the SCORES column of ``augkit list`` gets before it wraps after a comma: room for two
#: score names, so that ParaMac's five do not push the descriptions off the terminal.
SCORES_WIDTH = 24


def add_list_parser(commands) -> None:
    listing = commands.add_parser("list", help="list installed methods, filters and plugin commands")
    listing.add_argument("--all", action="store_true", dest="show_all",
                         help="also list the methods and filters of augkit's own plugins that are not installed, "
                              "with the command that installs each")
    listing.set_defaults(augkit_handler=list_installed)



def list_installed(args: argparse.Namespace) -> int:
    from augkit.registry.discovery import get_registry

    registry = get_registry()
    tables = [("METHOD", registry.methods), ("FILTER", registry.filters)]
    if registry.commands:
        tables.append(("COMMAND", registry.commands))
    if registry.training_targets:
        tables.append(("TRAIN TARGET", registry.training_targets))
    width = output_width()
    for title, table in tables:
        with_scores = title in ("METHOD", "FILTER")  # the scores a method or filter adds (augkit_<score> columns)
        rows = [(name, entry.plugin.distribution, entry.plugin.version,
                 *([",".join(scores_added(entry.cls, title)) or "-"] if with_scores else []), plain_text(entry.description))
                for name, entry in sorted(table.items())]
        header = (title, "PLUGIN", "VERSION", *(["SCORES"] if with_scores else []), "DESCRIPTION")
        print("\n".join(table_lines([header, *rows], width, list_columns={3: SCORES_WIDTH} if with_scores else None)))
        print()
    if getattr(args, "show_all", False):
        print("\n".join(table_lines([("NOT INSTALLED", "KIND", "PLUGIN", "INSTALL"), *not_installed_rows(registry)], width)))
        print()
    for problem in registry.problems:
        print(f"skipped: {problem}", file=sys.stderr)
    return EXIT_OK


def not_installed_rows(registry) -> list[tuple[str, str, str, str]]:
    """The methods and filters of augkit's own plugins that are not registered here, each with
    its distribution and the command that installs it."""
    from augkit.registry.known import KNOWN_STEPS

    registered = {"method": registry.methods, "filter": registry.filters}
    return [(name, known.kind, known.distribution, known.install) for name, known in sorted(KNOWN_STEPS.items())
            if name not in registered[known.kind]]


def scores_added(cls: type, kind: str) -> tuple[str, ...]:
    """The scores a method (with its own steps) or a filter adds: its ``augkit_<score>`` columns."""
    scores = tuple(getattr(cls, "scores", ()))
    if kind == "METHOD":
        scores = (*scores, *(name for step in own_steps(cls) for name in step.scores))
    return tuple(dict.fromkeys(scores))


def own_steps(cls: type) -> list:
    """The filters a method's candidates always go through (``Augmenter.follow_up``), as its
    default configuration declares them; none when it cannot be built without arguments."""
    from augkit.steps.augmenter import Augmenter

    if getattr(cls, "follow_up", Augmenter.follow_up) is Augmenter.follow_up:
        return []
    try:
        return list(cls().follow_up())
    except Exception:  # noqa: BLE001  (a method needing arguments: nothing to show)
        return []
