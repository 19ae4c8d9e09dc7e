"""``augkit parabank``: build a paraphrase bank from parallel or monolingual text by machine
translation, the ParaZh-22M recipe (:mod:`augkit_backtranslation.parabank`), and write the
pairs as a table.

    augkit parabank zh-en.tsv --text-column zh --translation-column en \\
        --language zh --pivot en --wrong-script Latin -o parazh.csv
    augkit parabank questions.csv --engine bergamot -o pairs.csv
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from augkit.plugin import InputError, Runtime, UsageError
from augkit_backtranslation.parabank import (
    DEFAULT_K,
    DEFAULT_MAX_WRONG_SCRIPT_SHARE,
    DEFAULT_MIN_EDIT_RATIO,
    DEFAULT_TOP_FRACTION,
)

HELP = "build a paraphrase bank by machine translation (ParaZh-22M recipe): beam candidates, script, edit-ratio and dual-score filters"
ENGINES = ("transformers", "bergamot")
#: Opus-MT models of the Helsinki-NLP group; ``{language}`` and ``{pivot}`` are replaced.
DEFAULT_TO_LANGUAGE_MODEL = "Helsinki-NLP/opus-mt-{pivot}-{language}"
DEFAULT_FROM_LANGUAGE_MODEL = "Helsinki-NLP/opus-mt-{language}-{pivot}"
#: Pivot when ``--pivot`` is not given: French for opus-mt, Portuguese (the only one) for bergamot.
DEFAULT_PIVOTS = {"transformers": "fr", "bergamot": "pt"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``augkit parabank``."""
    parser.description = (
        "Paraphrase pairs from translation data (ParaZh-22M, Hao et al. 2022, section 2.4). For each sentence "
        "in the language L (--language) with its translation into the pivot P (--translation-column, or made "
        "by the L->P model when omitted), the P->L model translates P back with beam K; every candidate is "
        "paired with the original, and pairs are dropped when mostly in --wrong-script, a copy, or below "
        "--min-edit-ratio. Each sentence keeps its candidate with the best dual score per token (forward "
        "log P(candidate|P) + reverse log P(P|candidate)); the best --top-fraction of those are written, "
        "best first. The paper kept ~22M of 30.4M sentence pairs, hence 0.72."
    )
    parser.add_argument("input", metavar="INPUT", help="table of sentences: .csv, .tsv, .jsonl or .parquet")
    parser.add_argument("-o", "--output", required=True, help="pairs table to write (.csv, .tsv, .jsonl or .parquet)")
    parser.add_argument("--text-column", default="text", help="column of the sentences to paraphrase (default: text)")
    parser.add_argument(
        "--translation-column", default=None,
        help="column of their pivot-language translations (parallel mode); omitted: monolingual mode",
    )
    parser.add_argument("--engine", choices=ENGINES, default="transformers",
                        help="transformers (default: Hugging Face seq2seq models) or bergamot (offline en<->pt, one "
                             "candidate per sentence, no scores: no dual ranking and no top-fraction cut)")
    parser.add_argument("--language", default="en", help="language of the sentences (default: en)")
    parser.add_argument("--pivot", default=None, help="pivot language (default: fr; pt, the only one, with bergamot)")
    parser.add_argument("--to-language-model", default=None, metavar="MODEL",
                        help=f"pivot->language model id or directory (default: {DEFAULT_TO_LANGUAGE_MODEL})")
    parser.add_argument("--from-language-model", default=None, metavar="MODEL",
                        help=f"language->pivot model id or directory (default: {DEFAULT_FROM_LANGUAGE_MODEL})")
    parser.add_argument("-k", "--beam-size", type=int, default=None, metavar="K",
                        help=f"beam size and candidates per sentence (default: {DEFAULT_K}, the paper's)")
    parser.add_argument("--wrong-script", default=None, metavar="SCRIPT",
                        help="drop sentences and candidates mostly in this script (e.g. Latin for Chinese); default: no script filter")
    parser.add_argument("--max-wrong-script-share", type=float, default=DEFAULT_MAX_WRONG_SCRIPT_SHARE, metavar="SHARE",
                        help=f"largest share of letters in --wrong-script kept (default: {DEFAULT_MAX_WRONG_SCRIPT_SHARE}, the paper's)")
    parser.add_argument("--min-edit-ratio", type=float, default=DEFAULT_MIN_EDIT_RATIO, metavar="RATIO",
                        help=f"minimum character edit-distance ratio to the original (default: {DEFAULT_MIN_EDIT_RATIO}, the paper's)")
    parser.add_argument("--top-fraction", type=float, default=None, metavar="FRACTION",
                        help=f"share of the scored pairs kept, best first, ceil(fraction x pairs) (default: {DEFAULT_TOP_FRACTION}: "
                             "the paper kept ~22M of 30.4M sentence pairs)")
    parser.add_argument("--device", default="auto", help="transformers engine: auto, cpu or cuda:N (default: auto)")
    parser.add_argument("--dtype", default="auto", help="transformers engine: auto, float32, float16 or bfloat16")
    parser.add_argument("--runtime", default="transformers", choices=("transformers", "ctranslate2"),
                        help="transformers engine: run the models in torch (default) or CTranslate2 (converted once, cached)")
    parser.add_argument("--compute-type", default="auto",
                        help="--runtime ctranslate2: auto, int8, int8_float32, int16 or float32 (default: auto)")
    parser.add_argument("--token-budget", type=int, default=None, metavar="TOKENS",
                        help="transformers engine: padded input tokens times beams per batch")
    parser.add_argument("--threads", type=int, default=None, help="bergamot engine: threads (default: up to 2)")
    parser.add_argument("--progress", action="store_true", help="show progress bars")


def run(args: argparse.Namespace) -> int:
    """Read the table, build the parabank, write the pairs and print a summary to stderr."""
    from augkit.plugin import read_table, table_format, write_table
    from augkit_backtranslation.parabank import build_parabank

    started = time.perf_counter()
    output = Path(args.output)
    table_format(output)  # an unknown output format fails before any work
    if output.resolve() == Path(args.input).resolve():
        raise UsageError("the output file would overwrite the input; choose another -o")
    if not output.parent.exists():
        raise UsageError(f"output directory {str(output.parent)!r} does not exist")
    options = _engine_options(args)
    frame = read_table(args.input)
    if len(frame) == 0:
        raise InputError(f"input file {args.input!r} has no rows")
    sentences = _column(frame, args.text_column, "--text-column", args.input)
    translations = None
    if args.translation_column is not None:
        translations = _column(frame, args.translation_column, "--translation-column", args.input)
    if args.engine == "bergamot":
        options.update(_bergamot_models(args.threads))
    result = build_parabank(
        sentences, translations, wrong_script=args.wrong_script, max_wrong_script_share=args.max_wrong_script_share,
        min_edit_ratio=args.min_edit_ratio, progress=args.progress, **options,
    )
    write_table(result.to_frame(), output)
    elapsed = time.perf_counter() - started
    print(f"augkit parabank: {result.summary()}; wrote {output} in {elapsed:.1f} s", file=sys.stderr)
    return 0


def _engine_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of ``build_parabank`` that depend on the engine, checked before
    the input is read (the bergamot models are added later)."""
    pivot = args.pivot or DEFAULT_PIVOTS[args.engine]
    if args.engine == "transformers":
        if args.threads is not None:
            raise UsageError("--threads applies to --engine bergamot only")
        options = {
            "to_language_model": args.to_language_model or DEFAULT_TO_LANGUAGE_MODEL.format(language=args.language, pivot=pivot),
            "from_language_model": args.from_language_model or DEFAULT_FROM_LANGUAGE_MODEL.format(language=args.language, pivot=pivot),
            "k": DEFAULT_K if args.beam_size is None else args.beam_size,
            "top_fraction": DEFAULT_TOP_FRACTION if args.top_fraction is None else args.top_fraction,
            "device": args.device,
            "dtype": args.dtype,
            "runtime": Runtime(args.runtime, args.compute_type),
        }
        if args.token_budget is not None:
            options["token_budget"] = args.token_budget
        return options
    if (args.language, pivot) != ("en", "pt"):
        raise UsageError(f"the bergamot engine translates English through Portuguese only (--language en --pivot pt), got --language {args.language} --pivot {pivot}")
    not_applicable = {
        "--to-language-model": args.to_language_model, "--from-language-model": args.from_language_model,
        "-k/--beam-size": args.beam_size, "--top-fraction": args.top_fraction, "--token-budget": args.token_budget,
    }
    if args.runtime != "transformers":
        not_applicable["--runtime"] = args.runtime
    given = [name for name, value in not_applicable.items() if value is not None]
    if given:
        raise UsageError(
            f"{', '.join(given)} need(s) --engine transformers: the bergamot engine gives one translation per "
            "sentence and no scores (no beams, no dual ranking, no top-fraction cut)"
        )
    if args.threads is not None and args.threads < 1:
        raise UsageError(f"--threads must be >= 1, got {args.threads}")
    return {"k": 1}  # the models come from _bergamot_models once the input is read


def _bergamot_models(threads: int | None) -> dict:
    """Both directions of one bergamot engine: en->pt makes the pivot side, pt->en the candidate."""
    from augkit_backtranslation.bergamot import BergamotEngine
    from augkit_backtranslation.parabank import BergamotDirection

    engine = BergamotEngine(threads=threads)
    return {"to_language_model": BergamotDirection("pt-en", engine), "from_language_model": BergamotDirection("en-pt", engine)}


def _column(frame, name: str, option: str, path: str) -> list[str]:
    """The column's cells as strings; missing values (JSON null, NaN) become "" (skipped)."""
    if name not in frame.columns:
        raise InputError(f"{option}: column {name!r} not in {path!r}; columns: {', '.join(map(str, frame.columns))}")
    cells = []
    for index, value in enumerate(frame[name].tolist()):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            value = ""
        if not isinstance(value, str):
            raise InputError(f"{option}: row {index} of column {name!r} is not text: {value!r}")
        cells.append(value)
    return cells
