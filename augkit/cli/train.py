"""``augkit train TARGET ...``: the training targets plugins register (``register_training_targets`` hook)."""

from __future__ import annotations

import argparse
import functools
import sys

from augkit.cli.exit_codes import EXIT_USAGE
from augkit.cli.plugin_commands import run_plugin_command
from augkit.errors import AugkitError
from augkit.registry.command_context import CommandContext
from augkit.terminal.tables import table_lines


def add_train_parser(commands, context: CommandContext) -> None:
    """``augkit train TARGET ARGS...``: the target's own parser reads ``ARGS`` when the target
    is asked for (:func:`_train`), so a target's arguments cost nothing to other commands and
    an unknown target gets augkit's "did you mean" rather than argparse's message."""
    train = commands.add_parser(
        "train",
        help="train a model for an augkit method: augkit train TARGET ... (augkit train lists the targets)",
        description="Train a model for an augkit method. Plugins add the targets; "
        "`augkit train TARGET --help` shows a target's options.",
        epilog=_training_targets_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    train.add_argument("augkit_train_target", nargs="?", metavar="TARGET", help="what to train")
    train.add_argument("augkit_train_arguments", nargs=argparse.REMAINDER, metavar="ARGS",
                       help="the target's arguments (augkit train TARGET --help)")
    train.set_defaults(augkit_handler=functools.partial(run_train, context))


def _training_targets_epilog() -> str | None:
    from augkit.registry.discovery import get_registry

    try:
        targets = get_registry().training_targets
    except Exception:  # noqa: BLE001  (plugin discovery failing is reported by the plugin commands)
        return None
    if not targets:
        return "No training targets are installed."
    return "targets:\n" + "\n".join(f"  {name:<14}{target.help}" for name, target in sorted(targets.items()))


def run_train(context: CommandContext, args: argparse.Namespace) -> int:
    """Run the target named on the command line with its own parser; without a target, list
    the targets."""
    from augkit.registry.discovery import get_registry

    registry = get_registry()
    if args.augkit_train_target is None:
        if registry.training_targets:
            print("augkit train: name a target: augkit train TARGET ... (augkit train TARGET --help for its options)",
                  file=sys.stderr)
            rows = [(name, t.plugin.distribution, t.plugin.version, t.help) for name, t in sorted(registry.training_targets.items())]
            print_table([("TARGET", "PLUGIN", "VERSION", "DESCRIPTION"), *rows], file=sys.stderr)
        else:
            print("augkit train: no training targets are installed (plugins add them, e.g. augkit-faq's paraphraser)",
                  file=sys.stderr)
        return EXIT_USAGE
    target = registry.training_target(args.augkit_train_target)
    parser = argparse.ArgumentParser(prog=f"augkit train {target.name}", description=target.help or None)
    try:
        target.add_arguments(parser)
    except Exception as error:
        raise AugkitError(f"training target {target.name!r} of plugin {target.plugin.name!r} "
                          f"({target.plugin.distribution}) failed to add its arguments: {error!r}") from error
    return run_plugin_command(target, context, parser.parse_args(args.augkit_train_arguments))


def print_table(rows: list[tuple[str, ...]], file=None) -> None:
    print("\n".join(table_lines(rows)), file=file)
