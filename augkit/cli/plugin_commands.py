"""The commands plugins register (``register_commands`` hook), each a subcommand of ``augkit``."""

from __future__ import annotations

import argparse
import functools
import warnings

from augkit.cli.exit_codes import EXIT_OK
from augkit.errors import AugkitError
from augkit.registry.command_context import CommandContext, takes_context


def add_plugin_commands(commands, context: CommandContext) -> None:
    """One subparser per command registered through the ``register_commands`` hook.

    A command whose ``add_arguments`` raises (or adds clashing options) is reported and left
    out; the built-in commands and ``--version`` work whatever the plugins do.
    """
    from augkit.registry.discovery import get_registry

    try:
        registered = get_registry().commands
    except Exception as error:  # a bug in plugin discovery must not take the built-ins down
        warnings.warn(f"augkit: plugin commands unavailable: {error!r}", RuntimeWarning, stacklevel=2)
        return
    for name, command in sorted(registered.items()):
        # The plugin fills a parser of its own first, so a failure leaves no half-added command;
        # the subparser then takes its arguments (and its -h) through ``parents``.
        own = argparse.ArgumentParser(prog=f"augkit {name}", description=command.help or None)
        try:
            command.add_arguments(own)
        except Exception as error:
            warnings.warn(
                f"augkit: plugin {command.plugin.name!r} ({command.plugin.distribution}): command {name!r} "
                f"failed to add its arguments: {error!r}; skipped",
                RuntimeWarning, stacklevel=2,
            )
            continue
        subparser = commands.add_parser(
            name, help=command.help, parents=[own], add_help=False, description=own.description,
            epilog=own.epilog, formatter_class=own.formatter_class,
        )
        subparser.set_defaults(augkit_handler=functools.partial(run_plugin_command, command, context))


def run_plugin_command(command, context: CommandContext, args: argparse.Namespace) -> int:
    """``command.run(args)``, or ``run(args, context=context)`` (the command line's own
    :class:`CommandContext`) when ``run`` takes one; its exit code checked."""
    if takes_context(command.run):
        code = command.run(args, context=context)
    else:
        code = command.run(args)
    if code is None:  # like sys.exit(None)
        return EXIT_OK
    if isinstance(code, bool) or not isinstance(code, int):
        raise AugkitError(
            f"command {command.name!r} of plugin {command.plugin.name!r} returned {code!r}; "
            "run(args) must return an exit code (int)"
        )
    return code
