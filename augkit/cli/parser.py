"""The ``augkit`` command's parser: one subcommand per built-in command, then the plugins'."""

from __future__ import annotations

import argparse

from augkit._version import __version__
from augkit.cli.augment import add_augment_parser
from augkit.cli.evaluate import add_evaluate_parser
from augkit.cli.info import add_info_parser
from augkit.cli.listing import add_list_parser
from augkit.cli.plugin_commands import add_plugin_commands
from augkit.cli.train import add_train_parser
from augkit.cli.tune import add_tune_parser
from augkit.registry.command_context import CommandContext


def build_parser(context: CommandContext) -> argparse.ArgumentParser:
    """The parser of every ``augkit`` command; plugins' commands are added last, and one that fails
    to add its arguments is left out with a warning. ``context`` is what plugin commands and
    training targets are handed (the command line running itself: :func:`augkit.cli.main.main`)."""
    parser = argparse.ArgumentParser(
        prog="augkit", description="Text data augmentation for labelled datasets."
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show augkit's version and each installed plugin's, and exit")
    # "augkit_"-prefixed destinations cannot clash with a plugin command's own arguments.
    commands = parser.add_subparsers(dest="augkit_command", metavar="COMMAND")

    add_list_parser(commands)
    add_info_parser(commands)
    add_augment_parser(commands)
    add_evaluate_parser(commands)
    add_train_parser(commands, context)
    add_tune_parser(commands)
    _add_serve_parser(commands)
    add_plugin_commands(commands, context)
    return parser


def _add_serve_parser(commands) -> None:
    """``augkit serve``: the web page (:mod:`augkit.web.serve`; gradio is imported only when it runs)."""
    from augkit.web import serve

    parser = commands.add_parser("serve", help=serve.HELP)
    serve.add_arguments(parser)
    parser.set_defaults(augkit_handler=serve.run)


class _VersionAction(argparse.Action):
    """``augkit --version``: augkit's version, then each installed plugin distribution's (read
    when asked, so that the parser itself loads no plugin)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())  # to stdout, as argparse's own version action prints
        parser.exit()


def version_text() -> str:
    """``augkit 0.1.0`` and a line per plugin distribution: ``  augkit-paramac 0.1.0 (paramac)``."""
    from augkit.registry.discovery import get_registry

    registry = get_registry()
    plugins: dict[tuple[str, str], set[str]] = {}
    for table in (registry.methods, registry.filters, registry.commands, registry.training_targets):
        for name, entry in table.items():
            if entry.plugin.distribution != "augkit":
                plugins.setdefault((entry.plugin.distribution, entry.plugin.version), set()).add(name)
    lines = [f"augkit {__version__}"]
    lines += [f"  {distribution} {version} ({', '.join(sorted(names)[:4])}{', ...' if len(names) > 4 else ''})"
              for (distribution, version), names in sorted(plugins.items())]
    return "\n".join(lines)
