"""``python -m benchmarks.fewshot``: the command line of the few-shot benchmark."""

from __future__ import annotations

import argparse
import logging
import os
import platform
import shlex
import sys
import time
from pathlib import Path

from augkit import AugkitError
from benchmarks.fewshot import default_methods
from benchmarks.fewshot.classifiers import CLASSIFIERS
from benchmarks.fewshot.data import DataError, load_dataset
from benchmarks.fewshot.methods import MethodSpecError, parse_method
from benchmarks.fewshot.report import RUNS_CSV, write_outputs, write_runs
from benchmarks.fewshot.runner import RunSettings, run_benchmark

logger = logging.getLogger("benchmarks.fewshot")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.fewshot",
        description="Few-shot intent classification with and without augmentation: K examples per class, "
        "several seeds, accuracy and macro-F1 on the full test split.",
    )
    data = parser.add_argument_group("data")
    data.add_argument("--data", nargs="+", required=True, metavar="PATH",
                      help="dataset folder (train/ valid/ test/, each with seq.in and label), CSV file, or a known name "
                      "(banking77, clinc150, sst2, trec under $AUGKIT_SHARED_DATA); several run in turn")
    data.add_argument("--csv-text-column", default="text", help="CSV: text column (default: text)")
    data.add_argument("--csv-label-column", default="label", help="CSV: label column (default: label)")
    data.add_argument("--csv-split-column", default="split",
                      help="CSV: column naming each row's split: train, valid, or the test split (default: split)")
    data.add_argument("--test-split", default="test", help="CSV: the split column's value for test rows (default: test)")
    data.add_argument("--test-data", metavar="CSV", help="CSV: test rows in their own file (then no split column)")
    data.add_argument("--classes-limit", type=int, metavar="C", help="keep only the first C labels (sorted)")

    protocol = parser.add_argument_group("protocol")
    protocol.add_argument("--shots", type=int, nargs="+", default=[5, 10], metavar="K", help="examples per class (default: 5 10)")
    protocol.add_argument("--seeds", type=int, default=5, help="seeds 0..S-1, each its own K-shot sample (default: 5)")
    protocol.add_argument("--n", type=int, default=4, help="augmentations per example (default: 4)")
    protocol.add_argument("--methods", nargs="+", default=list(default_methods()), metavar="METHOD",
                          help="none, augkit pipeline strings, nlpaug:synonym|swap|delete; options after @, e.g. "
                          "'aeda@weight=0.3,n=8' (default: %(default)s)")
    protocol.add_argument("--valid", action="store_true", help="also score every run on the valid split")

    model = parser.add_argument_group("classifier")
    model.add_argument("--classifier", choices=CLASSIFIERS, default="logreg",
                       help="logreg: logistic regression on frozen all-MiniLM-L6-v2 embeddings; "
                       "tfidf: logistic regression on TF-IDF word 1-2 grams; "
                       "finetune: fine-tune all-MiniLM-L6-v2 with a linear head; "
                       "setfit: SetFit (contrastive fine-tuning, logistic-regression head) (default: logreg)")
    model.add_argument("--C", type=float, nargs="+", default=[1.0],
                       help="logreg, tfidf, setfit's head: inverse regularisation; several values: each run picks one "
                       "on the valid split (default: 1)")
    model.add_argument("--pairs", type=int, default=320,
                       help="setfit: contrastive pairs, the same for every method (default: 320)")
    model.add_argument("--class-weight", choices=["balanced"], help="logreg: scikit-learn class weighting")
    model.add_argument("--steps", type=int, default=300, help="finetune: optimizer steps, the same for every method (default: 300)")
    model.add_argument("--batch-size", type=int, default=16, help="finetune: batch size; setfit: pairs per step (default: 16)")
    model.add_argument("--max-length", type=int, default=64, help="finetune, setfit: tokens per text (default: 64)")
    model.add_argument("--lr", type=float, default=5e-5,
                       help="finetune, setfit: AdamW learning rate of the encoder (default: 5e-5; setfit's figures use 3e-5)")
    model.add_argument("--threads", type=int, default=2, help="torch threads (default: 2)")

    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help=f"output folder ({RUNS_CSV}, summary.md, gain.png)")
    return parser


def classifier_grid(args: argparse.Namespace) -> list[dict]:
    if args.classifier == "logreg":
        extra = {"class_weight": args.class_weight} if args.class_weight else {}
        return [{"C": c, **extra} for c in args.C]
    if args.classifier == "tfidf":
        return [{"C": c} for c in args.C]
    if args.classifier == "setfit":
        return [{"pairs": args.pairs, "batch_size": args.batch_size, "max_length": args.max_length, "lr": args.lr, "C": c}
                for c in args.C]
    return [{"steps": args.steps, "batch_size": args.batch_size, "max_length": args.max_length, "lr": args.lr}]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
    try:
        datasets = [
            load_dataset(path, text_column=args.csv_text_column, label_column=args.csv_label_column,
                         split_column=args.csv_split_column, test_split=args.test_split, test_path=args.test_data)
            .limit_classes(args.classes_limit)
            for path in args.data
        ]
        methods = [parse_method(spec) for spec in args.methods]
        if args.valid or (args.classifier != "finetune" and len(args.C) > 1):
            for dataset in datasets:
                if dataset.valid is None:
                    raise DataError(f"{dataset.name} has no valid split, needed by --valid and by several --C values")
    except (DataError, MethodSpecError, AugkitError) as error:  # AugkitError: unknown method, filter, parameter
        print(f"error: {error}", file=sys.stderr)
        return 2
    import torch

    torch.set_num_threads(args.threads)
    settings = RunSettings(
        shots=args.shots, seeds=range(args.seeds), n=args.n, methods=methods,
        classifier=args.classifier, classifier_grid=classifier_grid(args), evaluate_valid=args.valid,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []

    def save(row: dict) -> None:
        rows.append(row)
        write_runs(rows, args.out / RUNS_CSV)

    start = time.perf_counter()
    run_benchmark(datasets, settings, on_row=save)
    elapsed = time.perf_counter() - start
    write_outputs(rows, args.out, header(argv, datasets, elapsed))
    logger.info("%d runs in %.0f s; wrote %s", len(rows), elapsed, args.out)
    return 0


def header(argv: list[str] | None, datasets, elapsed: float) -> str:
    """What produced the results: the command, the data, the machine, the time it took."""
    import augkit

    command = "python -m benchmarks.fewshot " + shlex.join(sys.argv[1:] if argv is None else argv)
    sizes = "; ".join(
        f"{d.name}: {len(d.labels)} classes, {len(d.train):,} train, {len(d.test):,} test"
        + (f", {len(d.valid):,} valid" if d.valid is not None else "")
        for d in datasets
    )
    return (
        f"`{command}`\n\n"
        f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPU cores, Python {platform.python_version()}, "
        f"augkit {augkit.__version__}; {sizes}. Total time {elapsed / 60:.1f} min."
    )
