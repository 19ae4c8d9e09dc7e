"""``augkit augment INPUT -m METHOD -n N -o OUTPUT``: its options, checked before any work, as a
:class:`~augkit.jobs.file_job.FileJob`, and the closing summary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from augkit.augment_options import (
    DEFAULT_OPTIONS,
    DEFAULT_TEXT_COLUMN,
    RESERVED_PARAMETERS,
)
from augkit.cli.exit_codes import EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED
from augkit.cli.options import parse_context_column_options, without_cache
from augkit.errors import UsageError
from augkit.jobs.file_job import DEFAULT_CHUNK_ROWS
from augkit.pipeline.param_options import parse_param_options
from augkit.protection.reading import phrase_list

#: ``augkit augment --row-timeout`` when no step of the pipeline runs a model: model-free
#: methods take milliseconds per batch (EDA: 0.05 s for 256 rows, n=4), so only a hung row
#: (a plugin stuck on the network, in a sleep or a loop) comes near it. Pipelines with a
#: model-backed step (``uses_model``) get no default limit: their batches take seconds to
#: minutes depending on the hardware.
DEFAULT_ROW_TIMEOUT = 60.0


def add_augment_parser(commands) -> None:
    augment = commands.add_parser(
        "augment",
        help="augment a CSV, TSV, JSONL or Parquet file",
        description="Augment the text column of a table; other columns are copied to each augmentation.",
    )
    augment.add_argument("input", metavar="INPUT", help="input table (.csv, .tsv, .jsonl, .parquet)")
    augment.add_argument("-m", "--method", required=True, help="method name or pipeline, e.g. eda or 'eda+aeda|dedup'")
    augment.add_argument("-n", type=int, default=DEFAULT_OPTIONS.n,
                         help=f"augmentations per row (default {DEFAULT_OPTIONS.n})")
    augment.add_argument("-o", "--output", required=True, help="output table; format from the extension")
    augment.add_argument("--seed", type=int, default=DEFAULT_OPTIONS.seed, help="seed for reproducible output")
    augment.add_argument("--text-column", default=DEFAULT_TEXT_COLUMN,
                         help=f"column to augment (default: {DEFAULT_TEXT_COLUMN})")
    augment.add_argument("--label-column", default=DEFAULT_OPTIONS.label_column,
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
        "--batch-size", type=int, default=DEFAULT_OPTIONS.batch_size,
        help=f"texts per pipeline batch (default {DEFAULT_OPTIONS.batch_size}; output does not depend on it)",
    )
    augment.add_argument("--workers", type=int, default=DEFAULT_OPTIONS.workers,
                         help="worker processes (output does not depend on it)")
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
    augment.set_defaults(augkit_handler=run_augment, augkit_option_flags=_option_flags(augment))


def run_augment(args: argparse.Namespace) -> int:
    from augkit.jobs.file_augment import augment_file
    from augkit.jobs.file_job import FileJob, Interrupted
    from augkit.tables.io import table_format

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
    _refuse_options_given_as_parameters(args.param, args.method, args.augkit_option_flags)
    job = FileJob(
        input=Path(args.input), output=output, method=args.method,
        params=without_cache(parse_param_options(args.param, args.method), args.method) if args.no_cache
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


def _option_flags(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each :func:`augkit.augment` option's flag(s) on ``augkit augment``, by option name
    (``{"protect": "--protect", "progress": "--progress/--no-progress", ...}``)."""
    spelled_apart = {"data": "the INPUT argument", "method": "-m", "keep_original": "--drop-original (its inverse)"}
    flags: dict[str, list[str]] = {name: [spelling] for name, spelling in spelled_apart.items()}
    for action in parser._actions:  # argparse keeps no public list of a parser's options
        name = "context_columns" if action.dest == "context_column" else action.dest
        if name in RESERVED_PARAMETERS and action.option_strings and name not in spelled_apart:
            flags.setdefault(name, []).append(max(action.option_strings, key=len))
    return {name: "/".join(spellings) for name, spellings in flags.items()}


def _refuse_options_given_as_parameters(pairs: list[str], method: str, flags: dict[str, str]) -> None:
    """``-p protect=film`` names an option of ``augkit augment`` itself, which no method
    takes (the registry refuses a plugin parameter of such a name): say which flag it is,
    instead of calling it an unknown parameter of the method."""
    for pair in pairs:
        name = pair.partition("=")[0].strip()
        if name in RESERVED_PARAMETERS:
            flag = flags.get(name)
            how = f"give it as {flag}" if flag else "augkit augment has no flag for it (it is a Python-API option)"
            raise UsageError(
                f"-p {pair}: {name!r} is an option of augkit augment itself, not a parameter of {method!r}; {how}")


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
        from augkit.pipeline.build import spec_uses_model

        return None if spec_uses_model(method) else DEFAULT_ROW_TIMEOUT
    return option or None
