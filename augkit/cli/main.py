"""The ``augkit`` command: ``list``, ``info METHOD``, ``augment INPUT -m METHOD -n N -o OUTPUT``,
``evaluate ORIGINAL AUGMENTED``, ``serve`` (the web page), ``train TARGET ...`` (the targets plugins register through the
``register_training_targets`` hook), and the commands plugins register (``register_commands`` hook).

Exit codes: 0 success, 1 failure while running (an OS error such as a full disk included; a row
that failed under ``--strict``; a run in which a step failed on every row asked),
2 usage error (bad arguments, unknown method or parameter, missing column, unreadable input,
a job folder in use by another run), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
"""

from __future__ import annotations

import os
import signal
import sys
import warnings

from augkit.cli.exit_codes import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
)
from augkit.cli.parser import build_parser
from augkit.engine.process_tree import descendants
from augkit.engine.termination import Terminated, terminate_like_interrupt
from augkit.errors import AugkitError, UsageError
from augkit.files.os_errors import describe_os_error
from augkit.registry.command_context import CommandContext
from augkit.steps.renamed import RenamedWarning


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


#: What plugin commands and training targets are handed: this command line, run in this process.
COMMAND_LINE = CommandContext(run_augkit=lambda argv: main(list(argv)))

def _parse_and_run(argv: list[str] | None) -> int:
    parser = build_parser(COMMAND_LINE)
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


if __name__ == "__main__":
    console_main()
