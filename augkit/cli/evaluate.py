"""``augkit evaluate ORIGINAL AUGMENTED``: metrics of each method's augmentations against their sources."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from augkit.cli.exit_codes import EXIT_OK
from augkit.errors import UsageError


def add_evaluate_parser(commands) -> None:
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
    evaluate.set_defaults(augkit_handler=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    from augkit.evaluation.scoring import evaluate_augmentations
    from augkit.evaluation.table import output_format
    from augkit.metrics import IBLEU_ALPHA, PARAMAC_BETAS
    from augkit.tables.io import read_table

    if args.output:
        from augkit.jobs.output_location import check_output_file

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
