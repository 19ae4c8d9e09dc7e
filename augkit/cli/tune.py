"""``augkit tune DATA --label-column label``: the command line of :func:`augkit.tuning.tune`."""

from __future__ import annotations

import argparse
from pathlib import Path

from augkit.tuning.runner import DEFAULT_SPLITS, DEFAULT_VALID_FRACTION
from augkit.tuning.space import (
    DEFAULT_N,
    DEFAULT_PIPELINES,
    DEFAULT_TRAININGS,
    DEFAULT_WEIGHTS,
    TRAININGS,
)

JOB_SUFFIX = ".augkit-tune"


def add_tune_parser(commands: argparse._SubParsersAction) -> None:
    tune = commands.add_parser(
        "tune",
        help="find out which augmentation, if any, helps a classifier on your labelled data",
        description="Hold out a stratified validation part of DATA (several seeded splits), augment the rest with each "
        "configuration (pipeline x n x training weight), train a classifier on it, and rank the configurations by "
        "validation gain over no augmentation, with the spread over splits. Recommends a pipeline only when its gain "
        "beats its spread; otherwise says: no augmentation. Resumable; see docs/tune.md.",
    )
    tune.add_argument("data", metavar="DATA", help="labelled table: .csv, .tsv, .jsonl, .parquet or .xlsx")
    tune.add_argument("--label-column", default="label", help="label column (default: label)")
    tune.add_argument("--text-column", default="text", help="text column (default: text)")
    tune.add_argument("-o", "--output", default=None, metavar="DIR",
                      help=f"job folder: settings, runs, ranking.csv, summary.md (default: DATA's name + {JOB_SUFFIX} "
                      "in the current folder)")
    tune.add_argument("-m", "--methods", nargs="+", default=None, metavar="PIPELINE",
                      help="pipelines to try (default: " + " ".join(repr(p) for p in DEFAULT_PIPELINES) + ", and 'contextual' "
                      "where its masked LM loads without a download)")
    tune.add_argument("-n", nargs="+", type=int, default=None, metavar="N",
                      help=f"augmentations per row to try (default: {' '.join(map(str, DEFAULT_N))})")
    tune.add_argument("--weights", nargs="+", type=float, default=None, metavar="W",
                      help=f"training weights of augmented rows to try (default: {' '.join(map(str, DEFAULT_WEIGHTS))})")
    tune.add_argument("--training", nargs="+", default=None, choices=TRAININGS, metavar="TRAINING",
                      help="how to train on augmented rows: joint (all rows at once), two-stage (all rows, then the "
                      f"originals alone); {', '.join(TRAININGS)} (default: {' '.join(DEFAULT_TRAININGS)})")
    tune.add_argument("--classifier", default="logreg", choices=("logreg", "tfidf", "finetune"),
                      help="the judge: logistic regression on frozen MiniLM embeddings (default) or on TF-IDF, or MiniLM "
                      "fine-tuned with early stopping (minutes per fit on a CPU); a recommendation holds for its judge")
    tune.add_argument("--encoder", default=None, metavar="MODEL",
                      help="logreg: its sentence-transformers model; finetune: the model fine-tuned, a folder or hub id "
                      "(default: all-MiniLM-L6-v2)")
    tune.add_argument("--splits", type=int, default=DEFAULT_SPLITS, help=f"validation splits (seeds) (default: {DEFAULT_SPLITS})")
    tune.add_argument("--valid-fraction", type=float, default=DEFAULT_VALID_FRACTION,
                      help=f"share of each label held out (default: {DEFAULT_VALID_FRACTION})")
    tune.add_argument("--seed", type=int, default=0, help="seed of the first split and its augmentations (default: 0)")
    tune.add_argument("--budget", type=float, default=None, metavar="MINUTES",
                      help="stop at the first run boundary past this many minutes; the runs done are ranked, --resume continues")
    tune.add_argument("--resume", action="store_true", help="continue the job in the output folder (same arguments)")
    tune.add_argument("--encoding", default="utf-8", help="encoding of a CSV, TSV or JSONL DATA (default: utf-8)")
    tune.add_argument("--allow-multiline", action="store_true",
                      help="read a CSV/TSV DATA as pandas does despite quoting a stray quote broke (as augment --allow-multiline)")
    progress = tune.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show a progress bar")
    progress.add_argument("--no-progress", dest="progress", action="store_false", help="never show a progress bar")
    tune.set_defaults(augkit_handler=run_tune)


def run_tune(args: argparse.Namespace) -> int:
    from augkit.tables.io import read_table
    from augkit.tuning.runner import tune

    data = read_table(args.data, encoding=args.encoding, allow_multiline=args.allow_multiline)
    output = Path(args.output) if args.output else Path(Path(args.data).name + JOB_SUFFIX)
    space = {key: value for key, value in (("pipelines", args.methods), ("n", args.n), ("weights", args.weights),
                                           ("trainings", args.training)) if value}
    tune(data, label_column=args.label_column, text_column=args.text_column, classifier=args.classifier,
         encoder=args.encoder, splits=args.splits, valid_fraction=args.valid_fraction, seed=args.seed,
         budget=args.budget, job_dir=str(output), resume=args.resume, progress=args.progress, **space)
    print((output / "summary.md").read_text(encoding="utf-8"), end="")
    print(f"(ranking: {output / 'ranking.csv'})")
    return 0
