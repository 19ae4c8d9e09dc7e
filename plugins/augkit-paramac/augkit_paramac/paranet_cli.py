"""``augkit paramac build-pairs``: ParaNet from a corpus (Liu et al. 2022, section 4): select
sentences of 60-100 characters with their context (:mod:`augkit_paramac.paranet`), paraphrase
them with ParaMac, write (source, paraphrase, scores) pairs.

    augkit paramac build-pairs book.txt --sample 10000 --seed 1 -o paranet.csv
    augkit paramac build-pairs sentences.csv --before-column left --after-column right -o paranet.csv
    augkit train paraphraser --preset paramod --table paranet.csv --source-column source --target-column paraphrase -o paramod

The paraphrasing is ``augkit augment`` itself, run through the command line's
:class:`augkit.plugin.CommandContext` (``context.run_augkit``): the selected sources are written to a table in the job folder, and ``augkit augment -m paramac --drop-original
--context-column before --context-column after`` runs on it with its chunks, ``--resume``,
lock on the job, exit codes and messages. Only the selection is this command's own: its
settings and seed are recorded beside the table, so that ``--resume`` selects the same
sources or refuses, naming what changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from augkit.plugin import CommandContext, InputError, UsageError
from augkit_paramac.paranet import (
    DEFAULT_CONTEXT_CHARS,
    DEFAULT_MAX_CHARS,
    DEFAULT_MIN_CHARS,
    PAIR_COLUMNS,
    PAPER_SAMPLE,
    Selection,
)

HELP = "ParaNet: paraphrase pairs made by ParaMac from running text (`augkit paramac build-pairs`)"
METHOD = "paramac"
#: Rows augmented, written and kept for --resume at a time. ParaMac takes "about 30-50s to
#: produce a pair on a 24GB RTX 3090" (Limitations), so 100 rows are about an hour of work:
#: what a crash can cost, while augment's default (50,000 rows) would be weeks.
DEFAULT_CHUNK_ROWS = 100
#: Corpus file names read as running text; any other must be a table augkit reads.
TEXT_SUFFIXES = (".txt",)
#: Files of the job folder: the sources ParaMac runs on, the selection's record, its output.
SOURCES_FILE = "sources.jsonl"
RECORD_FILE = "selection.json"
PARAPHRASES_FILE = "paraphrases.jsonl"
#: Sources without a paraphrase named in the summary (the rest are counted).
NAMED_UNPARAPHRASED = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``augkit paramac COMMAND``; one command so far, ``build-pairs``."""
    commands = parser.add_subparsers(dest="paramac_command", metavar="COMMAND", required=True)
    build = commands.add_parser(
        "build-pairs", help="select sentences with their context from a corpus, paraphrase them with ParaMac, write the pairs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "ParaNet (Liu et al. 2022, section 4). From running text (a .txt file: paragraphs at blank lines, sentences\n"
            "by segtok), each sentence of --min-chars to --max-chars characters (60-100, inclusive) gets the whole\n"
            "neighbouring sentences before and after it, nearest first, until each side has --context-chars (250)\n"
            "characters; contexts cross paragraph boundaries (the authors' code gathered whole paragraphs) but not the\n"
            "corpus' ends: a sentence too near the start or the end is skipped, and counted. From a table (.csv, .tsv,\n"
            ".jsonl, .parquet), --before-column/--after-column give each row's context; without them the rows are the\n"
            "paragraphs of one running text, in order. --sample N draws N of the sentences (the paper: 10,000).\n"
            "\n"
            "ParaMac then paraphrases each source with its context: this is `augkit augment -m paramac --drop-original`\n"
            "on the sources, run in the job folder with its chunks, --resume and exit codes (2: bad arguments or input,\n"
            "or the job is in use by another run; 1: failure; 130/143: interrupted, resume with --resume). The output\n"
            f"has the columns {', '.join(PAIR_COLUMNS)}: -n pairs per source at most (the n best by\n"
            "ParaMac's rank). Sources that got no paraphrase are counted and named in the summary."
        ),
    )
    build.add_argument("corpus", metavar="CORPUS", help="running text (.txt) or a table (.csv, .tsv, .jsonl, .parquet)")
    build.add_argument("-o", "--output", required=True, help="pairs table to write (.csv, .tsv, .jsonl, .parquet)")
    build.add_argument("--text-column", default=None, help="table corpus: the column of the texts (default: text)")
    build.add_argument("--before-column", default=None, help="table corpus: the column of each row's preceding context")
    build.add_argument("--after-column", default=None, help="table corpus: the column of each row's following context")
    build.add_argument("--min-chars", type=int, default=DEFAULT_MIN_CHARS,
                       help=f"shortest source sentence, in characters (default: {DEFAULT_MIN_CHARS}, section 4)")
    build.add_argument("--max-chars", type=int, default=DEFAULT_MAX_CHARS,
                       help=f"longest source sentence, in characters (default: {DEFAULT_MAX_CHARS}, section 4)")
    build.add_argument("--context-chars", type=int, default=DEFAULT_CONTEXT_CHARS,
                       help=f"running text: characters of whole sentences gathered on each side (default: {DEFAULT_CONTEXT_CHARS})")
    build.add_argument("--sample", type=int, default=None, metavar="N",
                       help=f"draw N sources at random, kept in corpus order (the paper: {PAPER_SAMPLE}); default: all")
    build.add_argument("--seed", type=int, default=None,
                       help="seed of the draw and of ParaMac (default: drawn at random, reported, and kept for --resume)")
    build.add_argument("-n", type=int, default=1, help="pairs per source at most, the best first (default 1, as ParaNet)")
    build.add_argument("-p", "--param", action="append", default=[], metavar="NAME=VALUE",
                       help="ParaMac parameter (augkit info paramac lists them), repeatable, e.g. -p generator=t5-base")
    build.add_argument("--batch-size", type=int, default=None, help="texts per ParaMac batch (output does not depend on it)")
    build.add_argument("--workers", type=int, default=1, help="worker processes (output does not depend on it)")
    build.add_argument("--chunk-rows", type=int, default=DEFAULT_CHUNK_ROWS,
                       help=f"sources paraphrased and kept for --resume at a time (default: {DEFAULT_CHUNK_ROWS}, about an hour "
                            "on a GPU); the output does not depend on it, but --resume needs the same value")
    build.add_argument("--encoding", default="utf-8", help="encoding of a .txt, CSV, TSV or JSONL corpus (default: utf-8)")
    build.add_argument("--resume", action="store_true",
                       help="continue an interrupted run from its finished chunks (same arguments required)")
    build.add_argument("--job-dir", default=None, metavar="DIR",
                       help="folder for the sources and finished chunks (default: .OUTPUT.paramac-job beside the output; "
                            "removed at the end)")
    progress = build.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show a progress bar")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")


def run(args: argparse.Namespace, context: CommandContext) -> int:
    """Run the ``augkit paramac`` command named on the command line."""
    if args.paramac_command == "build-pairs":
        return build_pairs(args, context)
    raise UsageError(f"unknown paramac command {args.paramac_command!r}; available: build-pairs")


def build_pairs(args: argparse.Namespace, context: CommandContext) -> int:
    """Select the sources, paraphrase them with ``augkit augment`` (``context.run_augkit``),
    write the pairs, print a summary; the exit code (augment's when it fails)."""
    from augkit.plugin import read_table, resolve_seed, write_table
    from augkit_paramac.paranet import pairs_from, sources_frame

    corpus, output, text = _checked_arguments(args)
    folder = Path(args.job_dir) if args.job_dir else output.with_name(f".{output.name}.paramac-job")
    if not folder.parent.exists():
        raise UsageError(f"the job folder's parent {str(folder.parent)!r} does not exist")
    settings = _selection_settings(args, corpus)
    recorded_seed = _recorded_seed(folder, settings, args) if folder.exists() else None
    seed = recorded_seed if recorded_seed is not None else resolve_seed(args.seed)
    selection = _select(args, corpus, text, seed)
    if not selection.sources:
        raise InputError(f"no source sentence in {str(corpus)!r}: {_describe(selection, args)}")
    if recorded_seed is None:
        _start_folder(folder, settings, seed, sources_frame(selection.sources))
    paraphrases = folder / PARAPHRASES_FILE
    code = context.run_augkit(_augment_arguments(args, folder / SOURCES_FILE, paraphrases, seed))
    if code != 0:
        if not _augment_job(paraphrases).exists():  # nothing finished to resume: start over next time
            shutil.rmtree(folder, ignore_errors=True)
        return code
    pairs = pairs_from(read_table(paraphrases), selection.sources)
    write_table(pairs.frame, output)
    shutil.rmtree(folder, ignore_errors=True)
    drawn = f" (drawn at random: --seed {seed} reproduces this run)" if args.seed is None and recorded_seed is None else ""
    print(f"augkit paramac build-pairs: {_describe(selection, args)}; {len(selection.sources)} sources; "
          f"{len(pairs.frame)} pairs for {pairs.sources_paired} sources; {_unparaphrased(pairs)}; seed {seed}{drawn}; "
          f"wrote {output}", file=sys.stderr)
    return 0


def _checked_arguments(args: argparse.Namespace) -> tuple[Path, Path, bool]:
    """The corpus, the output, and whether the corpus is running text; every argument is
    checked before any work, and ParaMac's parameters are tried on its constructor."""
    from augkit.plugin import get_registry, parse_param_options, table_format

    corpus, output = Path(args.corpus), Path(args.output)
    if not corpus.is_file():
        raise UsageError(f"corpus file {str(corpus)!r} does not exist")
    text = corpus.suffix.lower() in TEXT_SUFFIXES
    if text:
        given = [option for option, value in (("--text-column", args.text_column), ("--before-column", args.before_column),
                                              ("--after-column", args.after_column)) if value is not None]
        if given:
            raise UsageError(f"{', '.join(given)}: only a table corpus has columns; {str(corpus)!r} is running text")
    else:
        try:
            table_format(corpus)
        except InputError:
            raise UsageError(f"cannot tell what {str(corpus)!r} is: give running text as .txt, or a table "
                             "(.csv, .tsv, .jsonl, .parquet)") from None
    table_format(output)  # an unknown output format fails before any work
    if output.resolve() == corpus.resolve():
        raise UsageError("the output file would overwrite the corpus; choose another -o")
    if not output.parent.exists():
        raise UsageError(f"output directory {str(output.parent)!r} does not exist")
    for option, value, minimum in (("--min-chars", args.min_chars, 1), ("--context-chars", args.context_chars, 0),
                                   ("--sample", args.sample, 1), ("-n", args.n, 1), ("--batch-size", args.batch_size, 1),
                                   ("--workers", args.workers, 1), ("--chunk-rows", args.chunk_rows, 1)):
        if value is not None and value < minimum:
            raise UsageError(f"{option} must be at least {minimum}, got {value}")
    if args.max_chars < args.min_chars:
        raise UsageError(f"--max-chars ({args.max_chars}) must be at least --min-chars ({args.min_chars})")
    get_registry().create_augmenter(METHOD, parse_param_options(args.param, METHOD))
    return corpus, output, text


def _select(args: argparse.Namespace, corpus: Path, text: bool, seed: int) -> Selection:
    """The sources of the corpus, drawn with ``seed`` when --sample is given."""
    from augkit_paramac.paranet import (
        sample_sources,
        select_sources,
        table_sources,
        text_paragraphs,
    )

    lengths = {"min_chars": args.min_chars, "max_chars": args.max_chars}
    if text:
        selection = select_sources(text_paragraphs(_read_text(corpus, args.encoding)), context_chars=args.context_chars,
                                   **lengths)
    else:
        from augkit.plugin import read_table

        frame = read_table(corpus, encoding=args.encoding)
        column = args.text_column or "text"
        named = {"--text-column": column, "--before-column": args.before_column, "--after-column": args.after_column}
        missing = [f"{option} {name!r}" for option, name in named.items() if name is not None and name not in frame.columns]
        if missing:
            raise InputError(f"{str(corpus)!r} has no column {', '.join(missing)}; its columns: {', '.join(map(str, frame.columns))}")
        if args.before_column is None and args.after_column is None:  # the rows are paragraphs of running text
            paragraphs = [p for cell in frame[column].tolist() if isinstance(cell, str) for p in text_paragraphs(cell)]
            selection = select_sources(paragraphs, context_chars=args.context_chars, **lengths)
        else:
            befores = frame[args.before_column].tolist() if args.before_column else None
            afters = frame[args.after_column].tolist() if args.after_column else None
            selection = table_sources(frame[column].tolist(), befores, afters, **lengths)
    return sample_sources(selection, args.sample, seed) if args.sample is not None else selection


def _read_text(corpus: Path, encoding: str) -> str:
    try:
        return corpus.read_text(encoding=encoding)
    except UnicodeDecodeError as error:
        raise InputError(f"{str(corpus)!r} is not {encoding} text (byte {error.start}); give its encoding with --encoding") from None
    except LookupError:
        raise UsageError(f"--encoding: unknown encoding {encoding!r}") from None


# -- the job folder: the selection's record, then augment's own job ------------------------


def _selection_settings(args: argparse.Namespace, corpus: Path) -> dict[str, Any]:
    """What decides the sources, besides the seed (recorded, compared on --resume)."""
    digest = hashlib.blake2b(digest_size=16)
    with corpus.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return {
        "corpus": str(corpus.resolve()), "corpus_bytes": corpus.stat().st_size, "corpus_digest": digest.hexdigest(),
        "text_column": args.text_column, "before_column": args.before_column, "after_column": args.after_column,
        "min_chars": args.min_chars, "max_chars": args.max_chars, "context_chars": args.context_chars,
        "sample": args.sample, "encoding": args.encoding,
    }


def _recorded_seed(folder: Path, settings: dict[str, Any], args: argparse.Namespace) -> int:
    """The seed of the interrupted run in ``folder``, once --resume is given and its settings
    (and --seed, if given) are this run's; otherwise a usage error that says what to do."""
    try:
        record = json.loads((folder / RECORD_FILE).read_text())
        previous, seed = record["settings"], record["seed"]
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"{folder} exists but has no readable {RECORD_FILE}: a build-pairs run is starting in it, or one "
                         "was stopped while starting, or it is not a build-pairs job folder; if no run is using it, move "
                         "it away or delete it") from None
    if not args.resume:
        raise UsageError(f"{folder} holds a build-pairs run (interrupted, or running now); run the same command with "
                         "--resume to continue it, or delete that folder to start over")
    changed = [f"{key}: was {previous.get(key)!r}, now {settings.get(key)!r}"
               for key in sorted(set(previous) | set(settings)) if previous.get(key) != settings.get(key)]
    if args.seed is not None and args.seed != seed:
        changed.append(f"seed: was {seed}, now {args.seed}")
    if changed:
        raise UsageError(f"cannot resume {folder}: its sources were selected with other arguments ({'; '.join(changed)}); "
                         "use the same arguments, or delete that folder to start over")
    return seed


def _start_folder(folder: Path, settings: dict[str, Any], seed: int, sources: Any) -> None:
    """Make the job folder (refused if another run just made it) with the sources, then the
    record that marks it complete; a failure on the way leaves no folder."""
    from augkit.plugin import write_table

    try:
        folder.mkdir()
    except FileExistsError:
        raise UsageError(f"{folder} was just made by another build-pairs run; wait for it, or run with --resume") from None
    try:
        write_table(sources, folder / SOURCES_FILE)
        partial = folder / f"{RECORD_FILE}.partial-{os.getpid()}"
        partial.write_text(json.dumps({"settings": settings, "seed": seed}, indent=1, sort_keys=True))
        os.replace(partial, folder / RECORD_FILE)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _augment_job(output: Path) -> Path:
    """The job folder ``augkit augment`` keeps beside ``output`` (its documented default)."""
    return output.with_name(f".{output.name}.augkit-job")


def _augment_arguments(args: argparse.Namespace, sources: Path, paraphrases: Path, seed: int) -> list[str]:
    """``augkit augment`` on the sources: ParaMac with their context, paraphrases only."""
    arguments = [
        "augment", str(sources), "-m", METHOD, "-n", str(args.n), "-o", str(paraphrases), "--seed", str(seed),
        "--text-column", "text", "--context-column", "before", "--context-column", "after", "--drop-original",
        "--workers", str(args.workers), "--chunk-rows", str(args.chunk_rows),
    ]
    for param in args.param:
        arguments += ["-p", param]
    if args.batch_size is not None:
        arguments += ["--batch-size", str(args.batch_size)]
    if args.progress is not None:
        arguments.append("--progress" if args.progress else "--no-progress")
    if args.resume:
        arguments.append("--resume")
    return arguments


# -- the summary ----------------------------------------------------------------------------


def _describe(selection: Selection, args: argparse.Namespace) -> str:
    return selection.describe(min_chars=args.min_chars, max_chars=args.max_chars, context_chars=args.context_chars)


def _unparaphrased(pairs: Any) -> str:
    """The summary's clause on the sources without a paraphrase: counted, the first named."""
    missing = pairs.unparaphrased
    if not missing:
        return "every source got a paraphrase"
    named = ", ".join(f"{s.position} {_excerpt(s.text)}" for s in missing[:NAMED_UNPARAPHRASED])
    more = f" and {len(missing) - NAMED_UNPARAPHRASED} more" if len(missing) > NAMED_UNPARAPHRASED else ""
    return (f"{len(missing)} source{'s' if len(missing) != 1 else ''} got no paraphrase (not in the output; "
            f"augment's line above says why): {named}{more}")


def _excerpt(text: str, width: int = 40) -> str:
    return repr(text if len(text) <= width else text[: width - 3] + "...")
