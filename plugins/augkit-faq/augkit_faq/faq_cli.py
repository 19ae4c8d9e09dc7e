"""``augkit faq``: augment an FAQ file with paraphrases of its questions.

    augkit faq faq.csv --question-column question --answer-column answer -n 5 -o faq-augmented.csv
    augkit faq faq.xlsx -q Q -a A --generator backtranslation -o out.xlsx --candidates review.csv
"""

from __future__ import annotations

import argparse
import sys
import time

from augkit.plugin import RenamedFlag
from augkit_faq.faq import DEFAULT_MIN_SIMILARITY, DEFAULT_SCREENS
from augkit_faq.generators import (
    BART_UNI_PROBABILITY,
    DEFAULT_GENERATOR,
    DEFAULT_MAX_LENGTH,
    DEFAULT_NUM_RETURN,
    DEFAULT_TOP_K,
    DEFAULT_TOP_P,
    OFFLINE_GENERATOR,
)

HELP = "augment an FAQ (question, answer) table with paraphrases of its questions (Ng 2021)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``augkit faq``."""
    parser.description = (
        "Paraphrase every question of an FAQ and pair each accepted paraphrase with its question's answer "
        "(Ng 2021). Terms written 'Expansion (ABBR)' are shortened before generation and restored after; "
        "candidates that repeat the question or each other are dropped; a candidate is accepted when its "
        "similarity to the question is at least --min-similarity and, used as a query against all the FAQ's "
        "questions, it retrieves its own question first. The output holds every original row, each followed "
        "by its accepted paraphrases with augkit_source, augkit_method, augkit_semantic, "
        "augkit_label_integrity and augkit_rank."
    )
    parser.add_argument("input", metavar="INPUT", help="the FAQ: .csv, .tsv, .jsonl, .parquet or .xlsx")
    parser.add_argument("-o", "--output", required=True, help="augmented FAQ to write (same formats)")
    parser.add_argument("-q", "--question-column", required=True, help="column of the questions")
    parser.add_argument("-a", "--answer-column", required=True, help="column of the answers")
    parser.add_argument("-n", type=int, default=None, help="most paraphrases kept per question, most similar first (default: all accepted)")
    parser.add_argument(
        "-g", "--generator", default=DEFAULT_GENERATOR,
        help=f"seq2seq paraphrase model id or directory, or an augkit method such as {OFFLINE_GENERATOR!r} "
             f"(offline); prefix model: or method: to force either (default: {DEFAULT_GENERATOR})",
    )
    parser.add_argument("--num-return", type=int, default=DEFAULT_NUM_RETURN, help=f"candidates per question (default: {DEFAULT_NUM_RETURN})")
    parser.add_argument("--top-k", type=int, default=DEFAULT_TOP_K, help=f"model sampling: top-k (default: {DEFAULT_TOP_K})")
    parser.add_argument("--top-p", type=float, default=DEFAULT_TOP_P, help=f"model sampling: top-p (default: {DEFAULT_TOP_P})")
    parser.add_argument("--max-new-tokens", type=int, default=DEFAULT_MAX_LENGTH, help=f"model sampling: most tokens per candidate (default: {DEFAULT_MAX_LENGTH})")
    parser.add_argument("--max-length", type=int, dest="max_new_tokens", action=RenamedFlag, new_flag="--max-new-tokens",
                        help=argparse.SUPPRESS)  # its old name, until augkit 0.3
    parser.add_argument(
        "--forbid-source-unigrams", nargs="?", type=float, const=BART_UNI_PROBABILITY, default=0.0, metavar="P",
        help="Bart-uni (ProtAugment's diverse decoding, model generators only): forbid each token of the question in "
             f"its candidates with probability P (default P when the flag is given: {BART_UNI_PROBABILITY}, ProtAugment's; "
             "default: off)",
    )
    parser.add_argument("--runtime", default="transformers", choices=("transformers", "ctranslate2"),
                        help="how a model generator runs: torch, or CTranslate2 (converted once; default: transformers)")
    parser.add_argument("--compute-type", default="auto", choices=("auto", "int8", "int8_float32", "int16", "float32"),
                        help="CTranslate2's weights (--runtime ctranslate2; default: auto)")
    parser.add_argument("--min-similarity", type=float, default=DEFAULT_MIN_SIMILARITY,
                        help=f"selection step (a): lowest similarity to the question (default: {DEFAULT_MIN_SIMILARITY})")
    parser.add_argument("--screens", default=",".join(DEFAULT_SCREENS), metavar="FILTER[,FILTER...]",
                        help="filters that drop candidates whose meaning plainly changed, before step (a) "
                             f"(default: {','.join(DEFAULT_SCREENS)}; 'none' gives the thesis' selection exactly)")
    parser.add_argument("--encoder", default=None, help="sentence-transformers model of both steps (default: all-MiniLM-L6-v2, packaged)")
    parser.add_argument("--device", default="auto", help="auto (CUDA when torch sees a GPU), cpu, cuda or cuda:N (default: auto)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--candidates", default=None, metavar="FILE",
                        help="also write every candidate with its scores and status (accepted or why not) to FILE")
    parser.add_argument("--encoding", default="utf-8",
                        help="encoding of a CSV, TSV or JSONL FAQ, e.g. latin-1 or cp1252 (default: utf-8); output is UTF-8")
    parser.add_argument("--allow-multiline", action="store_true",
                        help="read a CSV/TSV FAQ as pandas does even where a stray quote broke its quoting (refused "
                             "by default, naming the lines: a closing quote followed by more text, or rows merged into one "
                             "cell); well-formed answers of several paragraphs are always read")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar (default: when standard error is a terminal)")


def run(args: argparse.Namespace) -> int:
    """Read, paraphrase, write; print the counts per step to standard error."""
    from augkit.plugin import read_table, table_format, write_table
    from augkit_faq.faq import paraphrase_faq

    table_format(args.output)  # an unknown output format fails before any work
    if args.candidates:
        table_format(args.candidates)
    frame = read_table(args.input, encoding=args.encoding, allow_multiline=args.allow_multiline)
    started = time.perf_counter()
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    result = paraphrase_faq(
        frame, args.question_column, args.answer_column, n=args.n, generator=args.generator, seed=args.seed,
        num_return=args.num_return, top_k=args.top_k, top_p=args.top_p, max_new_tokens=args.max_new_tokens,
        min_similarity=args.min_similarity, encoder=args.encoder, device=args.device, progress=progress,
        screens=parse_screens(args.screens), forbid_source_unigrams=args.forbid_source_unigrams,
        runtime=args.runtime, compute_type=args.compute_type,
    )
    write_table(result.table, args.output)
    if args.candidates:
        write_table(result.candidates, args.candidates)
    print(format_summary(result.summary, time.perf_counter() - started), file=sys.stderr)
    return 0


def parse_screens(option: str) -> tuple[str, ...]:
    """``--screens``: comma-separated filter names, or ``none``."""
    if option.strip().lower() in ("none", ""):
        return ()
    return tuple(name.strip() for name in option.split(",") if name.strip())


def format_summary(summary: dict, seconds: float) -> str:
    """The per-step counts as a few readable lines."""
    questions = max(summary["paraphrased"], 1)
    lines = [
        f"augkit faq ({summary['generator']}): {summary['rows']} rows, {summary['paraphrased']} questions paraphrased in {seconds:.1f} s",
        f"  generated {summary['generated']} ({summary['generated'] / questions:.1f} per question), "
        f"unique {summary['unique']}, meaning kept {summary['meaning_kept']}, similar enough {summary['after_semantic']}, "
        f"retrieve their own question {summary['after_integrity']}, kept {summary['accepted']}",
        f"  {summary['questions_with_paraphrases']} of {summary['paraphrased']} questions got at least one paraphrase; "
        f"output: {summary['rows'] + summary['accepted']} rows",
    ]
    lines.extend(f"  note: {note}" for note in summary.get("notes", []))
    return "\n".join(lines)
