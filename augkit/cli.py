"""The ``augkit`` command: ``list``, ``info METHOD``, ``augment INPUT -m METHOD -n N -o OUTPUT``,
``evaluate ORIGINAL AUGMENTED``, ``serve`` (the web page), ``train TARGET ...`` (the targets plugins register through the
``register_training_targets`` hook), and the commands plugins register (``register_commands`` hook).

Exit codes: 0 success, 1 failure while running (an OS error such as a full disk included; a row
that failed under ``--strict``; a run in which a step failed on every row asked),
2 usage error (bad arguments, unknown method or parameter, missing column, unreadable input,
a job folder in use by another run), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

from augkit._version import __version__
from augkit.run_options import DEFAULT_BATCH_SIZE
from augkit.file_augment import DEFAULT_CHUNK_ROWS
from augkit.errors import AugkitError, UsageError
from augkit.os_errors import describe_os_error
from augkit.params import REQUIRED, Parameter, RenamedWarning, describe_any_keyword, parse_cli_value
from augkit.process_tree import descendants
from augkit.protection.reading import phrase_list
from augkit.docstring_text import plain_text
from augkit.terminal_table import output_width, table_lines
from augkit.termination import Terminated, terminate_like_interrupt

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: 128 + SIGTERM, as a shell reports a process ended by it.
EXIT_TERMINATED = 143
#: Widest the SCORES column of ``augkit list`` gets before it wraps after a comma: room for two
#: score names, so that ParaMac's five do not push the descriptions off the terminal.
SCORES_WIDTH = 24
#: ``augkit augment --row-timeout`` when no step of the pipeline runs a model: model-free
#: methods take milliseconds per batch (EDA: 0.05 s for 256 rows, n=4), so only a hung row
#: (a plugin stuck on the network, in a sleep or a loop) comes near it. Pipelines with a
#: model-backed step (``uses_model``) get no default limit: their batches take seconds to
#: minutes depending on the hardware.
DEFAULT_ROW_TIMEOUT = 60.0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``augkit`` console script."""
    with warnings.catch_warnings(), terminate_like_interrupt():
        warnings.simplefilter("always", RuntimeWarning)
        warnings.showwarning = _show_warning_once()
        return _parse_and_run(argv)


def console_main() -> None:
    """The ``augkit`` console script (and ``python -m augkit.cli``): :func:`main`, then exit
    with its code. A run on Ray that was stopped (SIGTERM, Ctrl-C) ends right after its
    report: at a normal exit Ray's shutdown races the stopped dataset's threads, and Ray's
    core worker then ends the process with status 1, hiding 143 or 130 (seen in CI). The Ray
    processes a local run started end with it (:func:`_kill_processes_below`)."""
    code = main()
    if code in (EXIT_TERMINATED, EXIT_INTERRUPTED) and _ray_running():
        sys.stdout.flush()
        sys.stderr.flush()
        _kill_processes_below()
        os._exit(code)
    sys.exit(code)


def _ray_running() -> bool:
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


def _kill_processes_below() -> None:
    """Kill every process below this one, right before this process exits. Called only for
    a stopped run on Ray, where those are the Ray processes a local ``ray.init`` started
    (the raylet, GCS, agents and workers: augkit starts no other children on that backend).
    Killed, not asked: this process's core worker ends the process with status 1 as soon as
    it sees them go, and a raylet asked to stop left its runtime-env agent behind (seen once
    in three runs); killed together, none outlived the command (tested) and nothing was left
    in /dev/shm. A cluster joined by ``--address`` has no processes here; it sees the driver
    end without ``ray.shutdown``, as after a crash."""
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def run_cli(argv: list[str]) -> int:
    """Run one ``augkit`` command line in this process and return its exit code
    (``run_cli(["augment", "in.csv", "-m", "eda", "-o", "out.csv"])``): for plugin commands
    built on another command, as ``augkit paramac build-pairs`` runs ``augment``."""
    return main(list(argv))


def _parse_and_run(argv: list[str] | None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "augkit_command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.augkit_handler(args)
    except UsageError as error:
        print(f"augkit: error: {_with_notes(error)}", file=sys.stderr)
        return EXIT_USAGE
    except AugkitError as error:
        print(f"augkit: failed: {_with_notes(error)}", file=sys.stderr)
        return EXIT_FAILURE
    except BrokenPipeError:  # the reader went away (``augkit info eda | head``): not an error
        _silence_stdout()
        return EXIT_OK
    except OSError as error:
        print(f"augkit: failed: {describe_os_error(error)}", file=sys.stderr)
        return EXIT_FAILURE
    except Terminated:
        print("augkit: terminated (SIGTERM)", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("augkit: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that flushing it at exit does not raise again
    into a closed pipe (Python's own advice for SIGPIPE)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _with_notes(error: BaseException) -> str:
    """The error's message followed by its notes (what was kept, what to do), one line."""
    return "; ".join([str(error), *getattr(error, "__notes__", ())])


def _show_warning_once():
    """A ``warnings.showwarning`` that prints each warning as it happens (so it comes before
    the closing summary it may explain), augkit's own as one line each, and each distinct
    message once (a warning raised for every batch is not worth a screenful)."""
    shown: set[tuple[type, str]] = set()
    python_default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        key = (category, str(message))
        if key in shown:
            return
        shown.add(key)
        if (issubclass(category, RuntimeWarning) and str(message).startswith("augkit:")) or issubclass(category, RenamedWarning):
            print(f"augkit: warning: {str(message).removeprefix('augkit: ')}", file=sys.stderr)
        else:
            python_default(message, category, filename, lineno, file, line)

    return show


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="augkit", description="Text data augmentation for labelled datasets."
    )
    parser.add_argument("--version", action="version", version=f"augkit {__version__}")
    # "augkit_"-prefixed destinations cannot clash with a plugin command's own arguments.
    commands = parser.add_subparsers(dest="augkit_command", metavar="COMMAND")

    listing = commands.add_parser("list", help="list installed methods, filters and plugin commands")
    listing.set_defaults(augkit_handler=_list)

    info = commands.add_parser("info", help="show a method's or filter's parameters and the models it needs")
    info.add_argument("method", metavar="METHOD")
    info.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                      help="a parameter, repeatable: the models listed are those it needs with these parameters")
    info.set_defaults(augkit_handler=_info)

    augment = commands.add_parser(
        "augment",
        help="augment a CSV, TSV, JSONL or Parquet file",
        description="Augment the text column of a table; other columns are copied to each augmentation.",
    )
    augment.add_argument("input", metavar="INPUT", help="input table (.csv, .tsv, .jsonl, .parquet)")
    augment.add_argument("-m", "--method", required=True, help="method name or pipeline, e.g. eda or 'eda+aeda|dedup'")
    augment.add_argument("-n", type=int, default=1, help="augmentations per row (default 1)")
    augment.add_argument("-o", "--output", required=True, help="output table; format from the extension")
    augment.add_argument("--seed", type=int, default=None, help="seed for reproducible output")
    augment.add_argument("--text-column", default="text", help="column to augment (default: text)")
    augment.add_argument("--label-column", default=None,
                         help="label column (checked to exist; passed to filters and to methods that read labels)")
    augment.add_argument(
        "--context-column", action="append", default=[], metavar="NAME=COLUMN",
        help="for methods that read other columns of each row (augkit info METHOD lists them): map the name the "
        "method reads to a column of INPUT, e.g. premise=sentence_A; a bare COLUMN maps the same name; repeatable",
    )
    augment.add_argument(
        "--protect", action="append", default=[], metavar="PHRASE",
        help="a word or phrase no method may change in any row (whole words, any case); repeatable, or several "
        "separated by '|', e.g. --protect 'fare code|first class'",
    )
    augment.add_argument(
        "--protect-column", default=None, metavar="COLUMN",
        help="a column holding each row's protected text: BIO tags, one per whitespace-separated word (each "
        "augmentation then gets its re-aligned tags there), or phrases (a JSON list, or separated by '|')",
    )
    augment.add_argument(
        "--no-protect-codes", dest="protect_codes", action="store_false",
        help="do not protect single letters, short all-capital tokens and letter-digit words by default",
    )
    augment.add_argument(
        "-p", "--param", action="append", default=[], metavar="KEY=VALUE",
        help="method parameter, repeatable; in a pipeline qualify it: eda.alpha_sr=0.2",
    )
    augment.add_argument("--no-cache", action="store_true",
                         help="ask again instead of reading replies a step cached (steps with a cache parameter, "
                         "such as llm_paraphrase: the same as -p STEP.cache=false)")
    augment.add_argument("--coerce", action="store_true",
                         help="turn non-string texts into strings (bytes decoded as UTF-8) instead of failing; "
                         "the output's text column is then all strings")
    augment.add_argument("--allow-multiline", action="store_true",
                         help="read a CSV/TSV file as pandas does even where a stray quote broke its quoting (refused by "
                         "default, naming the lines: a closing quote followed by more text, or rows merged into one cell); "
                         "well-formed quoted line breaks are always read")
    augment.add_argument("--encoding", default="utf-8",
                         help="encoding of a CSV, TSV or JSONL input, e.g. latin-1 or cp1252 (default utf-8); "
                         "the output is written in UTF-8")
    augment.add_argument("--drop-original", action="store_true", help="write only the augmented rows")
    augment.add_argument(
        "--batch-size", type=int, default=DEFAULT_BATCH_SIZE,
        help=f"texts per pipeline batch (default {DEFAULT_BATCH_SIZE}; output does not depend on it)",
    )
    augment.add_argument("--workers", type=int, default=1, help="worker processes (output does not depend on it)")
    augment.add_argument(
        "--chunk-rows", type=int, default=DEFAULT_CHUNK_ROWS,
        help=f"rows read, augmented and written at a time for CSV/TSV/JSONL/Parquet (default {DEFAULT_CHUNK_ROWS}; "
        "memory depends on it, the output does not)",
    )
    augment.add_argument("--backend", choices=("local", "ray"), default="local",
                         help="local (this machine) or ray (Ray Data actors; needs augkit[ray]); same output")
    augment.add_argument("--address", default=None,
                         help="with --backend ray: the cluster to join (default: start a local Ray instance)")
    augment.add_argument("--cpus-per-worker", type=float, default=1,
                         help="with --backend ray: CPUs each actor reserves (default 1)")
    augment.add_argument("--gpus-per-worker", type=float, default=0,
                         help="with --backend ray: GPUs each actor reserves (default 0; e.g. 1 for a model on GPU)")
    augment.add_argument("--strict", action="store_true",
                         help="stop (exit 1) at the first row an augmenter or filter fails on or cannot produce for, such as "
                              "an LLM reply without a usable list (default: keep that row unaugmented, count the failure "
                              "in the summary and go on; a run in which every row asked failed exits 1 either way)")
    augment.add_argument("--row-timeout", type=_row_timeout_option, default=None, metavar="SECONDS",
                         help=f"seconds a row may take before it counts as failed like a row that raised (0 or none: "
                              f"no limit; default {DEFAULT_ROW_TIMEOUT:g}, or no limit when a step of the pipeline runs "
                              "a model)")
    augment.add_argument("--trace", default=None, metavar="FILE",
                         help="also write every candidate generated and its fate (kept, or the step that dropped it) "
                              "with its scores, and why each row without any candidate got none, to FILE (.csv, .tsv, .jsonl or .parquet; streamed and resumed like the output)")
    augment.add_argument("--resume", action="store_true",
                         help="continue an interrupted run from its finished chunks (same arguments required)")
    augment.add_argument("--job-dir", default=None, metavar="DIR",
                         help="folder for finished chunks (default: .OUTPUT.augkit-job beside the output; removed at the end)")
    augment.add_argument("--no-space-check", dest="space_check", action="store_false",
                         help="start even if the output's disk seems to lack room (the estimate is input size "
                              "times rows written per input row)")
    progress = augment.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show a progress bar")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")
    augment.set_defaults(augkit_handler=_augment)
    _add_evaluate_parser(commands)
    _add_train_parser(commands)
    _add_tune_parser(commands)
    _add_serve_parser(commands)
    _add_plugin_commands(commands)
    return parser


def _add_evaluate_parser(commands) -> None:
    evaluate = commands.add_parser(
        "evaluate",
        help="score augmentations against their sources, per method",
        description="Pair each augmented row of AUGMENTED (written by `augkit augment`) with its source row in "
        "ORIGINAL and print one row of metrics per method (see docs/metrics.md).",
    )
    evaluate.add_argument("original", metavar="ORIGINAL", help="the table that was augmented")
    evaluate.add_argument("augmented", metavar="AUGMENTED", help="the output of `augkit augment` for ORIGINAL")
    evaluate.add_argument("--text-column", default="text", help="text column (default: text)")
    evaluate.add_argument(
        "--metrics", action="append", default=None, metavar="NAME[,NAME...]",
        help="metrics to compute, comma-separated or repeated (default: all that need no extra input): "
        "bleu, self_bleu, rouge, distinct, edit, paramac, semantic, perplexity, ibleu",
    )
    evaluate.add_argument("--encoder", default=None, metavar="MODEL", help="sentence-transformers model for semantic_sim (default: all-MiniLM-L6-v2)")
    evaluate.add_argument("--no-semantic", action="store_true", help="skip the embedding similarity (no encoder needed)")
    evaluate.add_argument("--perplexity-model", default=None, metavar="MODEL", help="causal LM id or directory; adds the ppl column")
    evaluate.add_argument("--references", default=None, metavar="COLUMN", help="column of ORIGINAL with reference paraphrases; adds bleu_ref and ibleu")
    evaluate.add_argument("--alpha", type=float, default=None, help="iBLEU weight (default 0.8)")
    evaluate.add_argument("--paramac-betas", type=float, nargs=2, default=None, metavar=("B1", "B2"), help="ParaMac s_div weights (default 1 1)")
    evaluate.add_argument("--device", default="auto", help="device for the perplexity model: auto (CUDA when torch sees a GPU), cpu, cuda (default: auto)")
    evaluate.add_argument("--encoding", default="utf-8",
                          help="encoding of ORIGINAL if CSV, TSV or JSONL (default utf-8; AUGMENTED, as augkit writes it, is UTF-8)")
    evaluate.add_argument("--allow-multiline", action="store_true",
                          help="read CSV/TSV files as pandas does despite broken quoting, in both files (as augment --allow-multiline)")
    evaluate.add_argument("-o", "--output", default=None, help="also write the table: .csv or .md")
    evaluate.set_defaults(augkit_handler=_evaluate)


def _add_tune_parser(commands) -> None:
    from augkit.tuning.cli import add_tune_parser

    add_tune_parser(commands)


def _add_serve_parser(commands) -> None:
    """``augkit serve``: the web page (:mod:`augkit.web.serve`; gradio is imported only when it runs)."""
    from augkit.web import serve

    parser = commands.add_parser("serve", help=serve.HELP)
    serve.add_arguments(parser)
    parser.set_defaults(augkit_handler=serve.run)


def _add_train_parser(commands) -> None:
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
    train.set_defaults(augkit_handler=_train)


def _training_targets_epilog() -> str | None:
    from augkit.plugins import get_registry

    try:
        targets = get_registry().training_targets
    except Exception:  # noqa: BLE001  (plugin discovery failing is reported by the plugin commands)
        return None
    if not targets:
        return "No training targets are installed."
    return "targets:\n" + "\n".join(f"  {name:<14}{target.help}" for name, target in sorted(targets.items()))


def _train(args: argparse.Namespace) -> int:
    """Run the target named on the command line with its own parser; without a target, list
    the targets."""
    from augkit.plugins import get_registry

    registry = get_registry()
    if args.augkit_train_target is None:
        if registry.training_targets:
            print("augkit train: name a target: augkit train TARGET ... (augkit train TARGET --help for its options)",
                  file=sys.stderr)
            rows = [(name, t.plugin.distribution, t.plugin.version, t.help) for name, t in sorted(registry.training_targets.items())]
            _print_table([("TARGET", "PLUGIN", "VERSION", "DESCRIPTION"), *rows], file=sys.stderr)
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
    return _run_plugin_command(target, parser.parse_args(args.augkit_train_arguments))


def _add_plugin_commands(commands) -> None:
    """One subparser per command registered through the ``register_commands`` hook.

    A command whose ``add_arguments`` raises (or adds clashing options) is reported and left
    out; the built-in commands and ``--version`` work whatever the plugins do.
    """
    from augkit.plugins import get_registry

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
        subparser.set_defaults(augkit_handler=functools.partial(_run_plugin_command, command))


def _run_plugin_command(command, args: argparse.Namespace) -> int:
    code = command.run(args)
    if code is None:  # like sys.exit(None)
        return EXIT_OK
    if isinstance(code, bool) or not isinstance(code, int):
        raise AugkitError(
            f"command {command.name!r} of plugin {command.plugin.name!r} returned {code!r}; "
            "run(args) must return an exit code (int)"
        )
    return code


def _list(args: argparse.Namespace) -> int:
    from augkit.plugins import get_registry

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
                 *([",".join(_scores_added(entry.cls, title)) or "-"] if with_scores else []), plain_text(entry.description))
                for name, entry in sorted(table.items())]
        header = (title, "PLUGIN", "VERSION", *(["SCORES"] if with_scores else []), "DESCRIPTION")
        print("\n".join(table_lines([header, *rows], width, list_columns={3: SCORES_WIDTH} if with_scores else None)))
        print()
    for problem in registry.problems:
        print(f"skipped: {problem}", file=sys.stderr)
    return EXIT_OK


def _info(args: argparse.Namespace) -> int:
    from augkit.errors import UnknownMethodError
    from augkit.plugins import get_registry

    registry = get_registry()
    try:
        entry, kind = registry.method(args.method), "method"
    except UnknownMethodError:
        if args.method not in registry.filters:
            raise
        entry, kind = registry.filter(args.method), "filter"
    print(f"{entry.name} ({kind}) from plugin {entry.plugin.name!r}: {entry.plugin.distribution} {entry.plugin.version}")
    print(_docstring_body(entry.cls.__doc__))
    _print_row_context(entry.cls)
    any_keyword = describe_any_keyword(entry.cls)
    parameters = [*entry.cls.parameters(), *([any_keyword] if any_keyword else [])]
    print()
    print("Parameters:" if parameters else "Parameters: none")
    for parameter in parameters:
        print(f"  {_signature(parameter)}")
        if parameter.doc:
            print(textwrap.fill(parameter.doc, width=88, initial_indent="      ", subsequent_indent="      "))
    if kind == "method":
        print()
        print("Protected spans (protect=, --protect-column, codes): "
              + ("kept by the method itself" if getattr(entry.cls, "protects", False)
                 else "not seen by the method; a candidate that loses one is dropped by the pipeline's 'protected' step"))
    own = _own_steps(entry.cls) if kind == "method" else []
    if own:
        print()
        print(f"Its own steps (with default parameters), run on its candidates before yours: {' | '.join(step.name for step in own)}")
    scores = _scores_added(entry.cls, kind.upper())
    print()
    print(f"Scores added: {', '.join(scores)} (output columns {', '.join('augkit_' + s for s in scores)})"
          if scores else "Scores added: none")
    _print_models(entry, kind, parse_param_options(args.param, args.method))
    return EXIT_OK


def _print_models(entry, kind: str, params: dict[str, Any]) -> None:
    """The models the method or filter needs with ``params`` (its own steps' included), where
    each loads from here, and how to provide the missing ones."""
    from augkit.errors import ModelNotAvailableError
    from augkit.hub_access import forget_hub_answer
    from augkit.model_availability import how_to_provide
    from augkit.model_needs import locate
    from augkit.params import instantiate

    print()
    with_what = "these parameters" if params else "default parameters"
    try:
        step = instantiate(entry.cls, entry.name, params)
        if kind == "method":
            from augkit.pipeline import Pipeline

            needs = Pipeline(step, dedup=False).required_models()
        else:
            needs = list(step.required_models())
    except ModelNotAvailableError as error:  # a step that loads its models when built checked them then
        print(f"Models (with {with_what}): {error}")
        return
    except UsageError:
        if params:
            raise
        print(f"Models: cannot tell without its required parameters (augkit info {entry.name} -p KEY=VALUE)")
        return
    if not needs:
        print(f"Models (with {with_what}): none to load")
        return
    print(f"Models (with {with_what}), and where each loads from here:")
    forget_hub_answer()
    located = [locate(need) for need in needs]
    for place in located:
        print(f"  {place.need.described()}")
        print(f"      {'found: ' + place.found if place.found else 'NOT AVAILABLE: ' + place.missing}")
    advice = how_to_provide([place for place in located if place.missing])
    if advice:
        text = "\n".join(line.removeprefix("  ") for line in advice)
        print(text[:1].upper() + text[1:])


def _scores_added(cls: type, kind: str) -> tuple[str, ...]:
    """The scores a method (with its own steps) or a filter adds: its ``augkit_<score>`` columns."""
    scores = tuple(getattr(cls, "scores", ()))
    if kind == "METHOD":
        scores = (*scores, *(name for step in _own_steps(cls) for name in step.scores))
    return tuple(dict.fromkeys(scores))


def _own_steps(cls: type) -> list:
    """The filters a method's candidates always go through (``Augmenter.follow_up``), as its
    default configuration declares them; none when it cannot be built without arguments."""
    from augkit.augmenter import Augmenter

    if getattr(cls, "follow_up", Augmenter.follow_up) is Augmenter.follow_up:
        return []
    try:
        return list(cls().follow_up())
    except Exception:  # noqa: BLE001  (a method needing arguments: nothing to show)
        return []


def _print_row_context(cls: type) -> None:
    """What a method reads and writes beyond the text: the columns to map, labels it sets."""
    reads = tuple(getattr(cls, "context_columns", ()))
    rewrites = tuple(getattr(cls, "rewrites_columns", ()))
    names = tuple(dict.fromkeys((*reads, *rewrites)))
    if names:
        print()
        print(f"Reads the columns: {', '.join(names)} (map each: --context-column NAME=COLUMN)")
        if rewrites:
            print(f"Rewrites the columns: {', '.join(rewrites)} (named in augkit_changed)")
    optional = tuple(name for name in getattr(cls, "optional_context_columns", ()) if name not in names)
    if optional:
        print()
        print(f"Reads, when mapped: {', '.join(optional)} (--context-column NAME=COLUMN; used only if given)")
    optional_rewrites = tuple(name for name in getattr(cls, "optional_rewrites_columns", ()) if name not in names)
    if optional_rewrites:
        print()
        print(f"Reads and rewrites, when mapped: {', '.join(optional_rewrites)} (--context-column NAME=COLUMN; "
              "named in augkit_changed)")
    if getattr(cls, "sets_label", False):
        print("Sets the labels of the rows it writes (needs --label-column; the old label goes to augkit_label_from)")


def _augment(args: argparse.Namespace) -> int:
    from augkit.file_augment import FileJob, Interrupted, augment_file
    from augkit.table_io import table_format

    output = Path(args.output)
    table_format(output)  # fail on an unknown output format before doing any work
    if output.resolve() == Path(args.input).resolve():
        raise UsageError("the output file would overwrite the input; choose another -o")
    if not output.parent.exists():
        raise UsageError(f"output directory {str(output.parent)!r} does not exist")
    for option, value, minimum in (("-n", args.n, 0), ("--chunk-rows", args.chunk_rows, 1),
                                   ("--batch-size", args.batch_size, 1), ("--workers", args.workers, 1)):
        if value < minimum:
            raise UsageError(f"{option} must be at least {minimum}, got {value}")
    job = FileJob(
        input=Path(args.input), output=output, method=args.method,
        params=_without_cache(parse_param_options(args.param, args.method), args.method) if args.no_cache
        else parse_param_options(args.param, args.method),
        n=args.n, seed=args.seed, text_column=args.text_column, label_column=args.label_column,
        context_columns=parse_context_column_options(args.context_column),
        keep_original=not args.drop_original, coerce=args.coerce, chunk_rows=args.chunk_rows,
        batch_size=args.batch_size, workers=args.workers, progress=args.progress, resume=args.resume,
        job_dir=Path(args.job_dir) if args.job_dir else None, strict=args.strict,
        row_timeout=_row_timeout(args.row_timeout, args.method),
        backend=args.backend, address=args.address, cpus_per_worker=args.cpus_per_worker,
        gpus_per_worker=args.gpus_per_worker, space_check=args.space_check,
        allow_multiline=args.allow_multiline, encoding=args.encoding,
        trace=Path(args.trace) if args.trace else None,
        protect=tuple(phrase for option in args.protect for phrase in phrase_list(option, "--protect")),
        protect_column=args.protect_column, protect_codes=args.protect_codes,
    )
    try:
        report = augment_file(job)
    except Interrupted as stop:
        print(f"augkit: {'terminated (SIGTERM); ' if stop.terminated else ''}{stop.message}", file=sys.stderr)
        return EXIT_TERMINATED if stop.terminated else EXIT_INTERRUPTED
    drawn = f" (drawn at random: --seed {report.seed} reproduces this run)" if args.seed is None else ""
    traced = f"; trace: {args.trace}" if args.trace else ""
    print(f"augkit: {report.summary()}{drawn}; output: {output}{traced}", file=sys.stderr)
    return EXIT_OK


def _row_timeout_option(text: str) -> float:
    """``--row-timeout``: seconds, 0 or ``none`` for no limit (given back as 0)."""
    if text.strip().lower() == "none":
        return 0.0
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds, or 0 or none for no limit; got {text!r}")
    return seconds


def _row_timeout(option: float | None, method: str) -> float | None:
    """The row time limit of a run: the one given (0: none), else :data:`DEFAULT_ROW_TIMEOUT`
    unless a step of ``method`` declares that it runs a model."""
    if option is None:
        from augkit.pipeline import spec_uses_model

        return None if spec_uses_model(method) else DEFAULT_ROW_TIMEOUT
    return option or None


def _evaluate(args: argparse.Namespace) -> int:
    from augkit.evaluation import evaluate_augmentations
    from augkit.evaluation_table import output_format
    from augkit.metrics import IBLEU_ALPHA, PARAMAC_BETAS
    from augkit.table_io import read_table

    if args.output:
        from augkit.output_location import check_output_file

        output_format(args.output)  # fail on an unknown format before any work
        if not Path(args.output).resolve().parent.exists():
            raise UsageError(f"output directory {str(Path(args.output).parent)!r} does not exist")
        check_output_file(Path(args.output), example="metrics")
    metrics = None
    if args.metrics is not None:
        metrics = [name.strip() for option in args.metrics for name in option.split(",") if name.strip()]
    table = evaluate_augmentations(
        read_table(args.original, encoding=args.encoding, allow_multiline=args.allow_multiline),
        read_table(args.augmented, allow_multiline=args.allow_multiline),
        text_column=args.text_column,
        metrics=metrics,
        encoder=args.encoder,
        semantic=not args.no_semantic,
        perplexity_model=args.perplexity_model,
        references_column=args.references,
        alpha=IBLEU_ALPHA if args.alpha is None else args.alpha,
        paramac_betas=PARAMAC_BETAS if args.paramac_betas is None else tuple(args.paramac_betas),
        device=args.device,
    )
    print(table.to_text())
    for note in table.notes:
        print(f"augkit: note: {note}", file=sys.stderr)
    if args.output:
        table.write(args.output)
        print(f"augkit: wrote {args.output}", file=sys.stderr)
    return EXIT_OK


def parse_context_column_options(options: list[str]) -> dict[str, str]:
    """``--context-column NAME=COLUMN`` (or a bare ``COLUMN``, read under its own name)
    options as ``{name: column}``."""
    mapping: dict[str, str] = {}
    for option in options:
        name, separator, column = option.partition("=")
        name, column = name.strip(), column.strip() if separator else name.strip()
        if not name or not column:
            raise UsageError(f"--context-column expects NAME=COLUMN or COLUMN, got {option!r}")
        if mapping.get(name, column) != column:
            raise UsageError(f"--context-column {name} is given twice ({mapping[name]!r} and {column!r})")
        mapping[name] = column
    return mapping


def _without_cache(params: dict[str, Any], method: str) -> dict[str, Any]:
    """``params`` with ``STEP.cache=False`` for every step of ``method`` that has a ``cache``
    parameter (``--no-cache``); an error when none has."""
    import inspect

    from augkit.pipeline_spec import parse_pipeline_spec
    from augkit.plugins import get_registry

    registry, parsed = get_registry(), parse_pipeline_spec(method)
    names = [step.name for step in (*parsed.generator_steps(), *parsed.filters)]
    cached = []
    for name in dict.fromkeys(names):
        table = registry.methods if name in registry.methods else registry.filters
        entry = table.get(name)
        if entry is not None and "cache" in inspect.signature(entry.cls.__init__).parameters:
            cached.append(name)
    if not cached:
        raise UsageError(f"--no-cache: no step of {method!r} keeps a cache (methods with a cache parameter, such as "
                         "llm_paraphrase, do)")
    return {**params, **{f"{name}.cache": False for name in cached}}


def parse_param_options(pairs: list[str], method: str) -> dict[str, Any]:
    """Turn ``-p key=value`` options into typed parameters, using the declared types of the
    method (or of the step a dotted key ``step.key`` names)."""
    from augkit.pipeline_spec import parse_pipeline_spec
    from augkit.plugins import get_registry

    spec = parse_pipeline_spec(method)
    leaves = [step.name for step in spec.generator_steps()]
    registry = get_registry()
    params: dict[str, Any] = {}
    for pair in pairs:
        key, separator, raw = pair.partition("=")
        key = key.strip()
        if not separator or not key:
            raise UsageError(f"-p expects KEY=VALUE, got {pair!r}")
        step, _, name = key.rpartition(".")
        step = step or (leaves[0] if len(leaves) == 1 else "")
        params[key] = parse_cli_value(_find_parameter(registry, step, name), raw)
    return params


def _find_parameter(registry, step: str, name: str) -> Parameter | None:
    table = registry.methods if step in registry.methods else registry.filters
    entry = table.get(step)
    if entry is None:
        return None
    name = getattr(entry.cls, "renamed_parameters", {}).get(name, name)
    return next((p for p in entry.cls.parameters() if p.name == name), None)


def _signature(parameter: Parameter) -> str:
    text = parameter.name
    if parameter.annotation:
        text += f": {parameter.annotation}"
    if parameter.default is not REQUIRED:
        text += f" = {parameter.default!r}"
    return text


def _docstring_body(doc: str | None) -> str:
    """The docstring's paragraphs before its parameter section, as written (the first line
    is not indented like the others)."""
    first, _, rest = (doc or "").strip().partition("\n")
    lines = [first.strip(), *textwrap.dedent(rest).splitlines()]
    body = []
    for line in lines:
        if line.strip() in {"Parameters", "Args:", "Arguments:", "Example::", "Examples"}:
            break
        body.append(line)
    return "\n".join(body).strip()


def _print_table(rows: list[tuple[str, ...]], file=None) -> None:
    print("\n".join(table_lines(rows)), file=file)


if __name__ == "__main__":
    console_main()
