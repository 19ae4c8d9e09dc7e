"""``python -m benchmarks.fewshot.map``: where does augmentation help? The same methods across
classifiers, shots and tasks, with paired gains.

For every seed, task, K and method the K-shot sample is augmented once and every classifier
trains on that same training set (each with its own parameter grid, chosen on the valid
split), so a method's gain over ``none`` is paired per (task, classifier, K, seed). Seeds are
the outer loop: an interrupted map has whole seeds across the grid rather than all seeds of a
corner. Runs already in ``runs.csv`` are skipped, so a map is resumed by running the same
command again (or extended by a larger one).

    python -m benchmarks.fewshot.map --data banking77 clinc150 sst2 trec --classifiers tfidf logreg \\
        --shots 5 10 50 --seeds 5 --methods none eda aeda "eda|semantic|label_integrity" nlpaug:synonym \\
        --max-train-rows 2000 --out /work/runs/fewshot-map/cheap

Outputs in ``--out``: ``runs.csv`` (one row per run, as ``python -m benchmarks.fewshot``),
``summary.md`` (the command, the time, the map of gains, the full tables) and
``gain-<task>.png`` (see :func:`plot_name`; accuracy gain against classifier and K, one bar per method).
"""

from __future__ import annotations

import argparse
import ast
import logging
import os
import re
import shlex
import sys
import time
from pathlib import Path

import pandas as pd

from benchmarks.fewshot.classifiers import CLASSIFIERS
from benchmarks.fewshot.data import hold_out, load_dataset, sample_k_shot
from benchmarks.fewshot.methods import parse_method
from benchmarks.fewshot.report import (
    RUNS_CSV,
    SUMMARY_MD,
    map_table,
    markdown_table,
    plot_map,
    summarise,
    write_runs,
)
from benchmarks.fewshot.runner import evaluate, pin_evaluation_splits, takes_pairs

logger = logging.getLogger("benchmarks.fewshot")

#: Each classifier's parameter sets when ``--grid`` names none for it; several are chosen
#: among on the valid split per run. logreg's C grid is the one of docs/benchmarks/fewshot.md;
#: TF-IDF rows have few active features, so its C range sits higher; setfit's grid varies
#: the head only (one body training per run, see ``SetFitClassifier.HEAD_PARAMS``).
DEFAULT_GRIDS = {
    "tfidf": [{"C": 1.0}, {"C": 10.0}, {"C": 100.0}],
    "logreg": [{"C": 1.0}, {"C": 4.0}, {"C": 16.0}, {"C": 64.0}],
    "finetune": [{}],
    "setfit": [{"C": 1.0}, {"C": 16.0}, {"C": 64.0}],
}
RUN_KEY = ["dataset", "classifier", "shots", "seed", "method"]


def parse_grid(specs: list[str]) -> dict[str, list[dict]]:
    """``CLASSIFIER:key=value,key=value`` strings into parameter sets per classifier, over
    :data:`DEFAULT_GRIDS` (a classifier named here loses its default sets)."""
    grids: dict[str, list[dict]] = {}
    for spec in specs:
        name, colon, body = spec.partition(":")
        if not colon or name not in CLASSIFIERS:
            raise SystemExit(f"error: --grid {spec!r}: expected CLASSIFIER:key=value,... with CLASSIFIER one of {', '.join(CLASSIFIERS)}")
        params = {}
        for item in filter(None, body.split(",")):
            key, _, value = item.partition("=")
            params[key.strip()] = ast.literal_eval(value.strip())
        grids.setdefault(name, []).append(params)
    return {**DEFAULT_GRIDS, **grids}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fewshot.map", description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", required=True, metavar="TASK",
                        help="banking77, clinc150, sst2, trec (under $AUGKIT_SHARED_DATA) or dataset paths")
    parser.add_argument("--classifiers", nargs="+", choices=CLASSIFIERS, default=["tfidf", "logreg"])
    parser.add_argument("--shots", type=int, nargs="+", default=[5, 10, 50], metavar="K")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..S-1 (default: 5)")
    parser.add_argument("--first-seed", type=int, default=0, metavar="F",
                        help="run seeds F..S-1 only (to add seeds to a map another process is still filling)")
    parser.add_argument("--n", type=int, default=4, help="augmentations per example (default: 4)")
    parser.add_argument("--methods", nargs="+", required=True, metavar="METHOD",
                        help="as python -m benchmarks.fewshot; @into=pairs rows run only with classifiers that train on pairs")
    parser.add_argument("--grid", nargs="+", default=[], metavar="CLASSIFIER:k=v,...",
                        help=f"parameter sets, chosen among on valid per run (defaults: {DEFAULT_GRIDS})")
    parser.add_argument("--max-train-rows", type=int, metavar="R",
                        help="skip a (task, K) whose sample would exceed R rows before augmentation (compute)")
    parser.add_argument("--valid-per-class", type=int, metavar="V",
                        help="choose parameters on the first V valid rows of each class (cheaper for setfit)")
    parser.add_argument("--test-per-class", type=int, metavar="T",
                        help="score on the first T test rows of each class (the task is then named e.g. banking77[test 10/class])")
    parser.add_argument("--heldout-per-class", type=int, metavar="H",
                        help="hold out H rows of each class of the K-shot sample (never augmented, never trained on) "
                        "for early stopping (finetune: --grid finetune:eval_every=25,steps=2000); the test split is "
                        "still never seen before the final score")
    parser.add_argument("--stop-after", type=float, metavar="MINUTES", help="start no run after this long (resume later)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default: 2)")
    parser.add_argument("--verbose", action="store_true", help="also log every grid point's valid accuracy")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S", stream=sys.stderr)
    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
    if args.verbose:
        logger.setLevel(logging.DEBUG)
    import torch

    torch.set_num_threads(args.threads)
    grids = parse_grid(args.grid)
    datasets = [load_dataset(path).limit_per_class(args.valid_per_class, args.test_per_class) for path in args.data]
    methods = [parse_method(spec) for spec in args.methods]
    args.out.mkdir(parents=True, exist_ok=True)
    runs_path = args.out / RUNS_CSV
    rows = pd.read_csv(runs_path).to_dict("records") if runs_path.is_file() else []
    done = {tuple(row[key] for key in RUN_KEY) for row in rows}
    logger.info("%d runs already in %s", len(done), runs_path)
    start = time.perf_counter()
    pinned = set()
    for seed in range(args.first_seed, args.seeds):
        for dataset in datasets:
            for shots in args.shots:
                if args.max_train_rows and shots * len(dataset.labels) > args.max_train_rows:
                    continue
                sample = sample_k_shot(dataset.train, shots, seed).frame
                heldout = None
                if args.heldout_per_class:
                    sample, heldout = hold_out(sample, args.heldout_per_class)
                for method in methods:
                    todo = [
                        name for name in args.classifiers
                        if (dataset.name, name, shots, seed, method.label) not in done
                        and (method.into == "rows" or takes_pairs(name))
                    ]
                    if not todo:
                        continue
                    if args.stop_after and time.perf_counter() - start > 60 * args.stop_after:
                        logger.info("--stop-after %.0f minutes reached; run again to resume", args.stop_after)
                        return finish(rows, args, argv, time.perf_counter() - start)
                    if "logreg" in todo and dataset.name not in pinned:
                        pin_evaluation_splits(dataset, needs_valid=True)
                        pinned.add(dataset.name)
                    began = time.perf_counter()
                    training = method.training_set(sample, args.n, seed)
                    augment_seconds = time.perf_counter() - began
                    for name in todo:
                        needs_valid = heldout is None or len(grids[name]) > 1
                        rows.append(evaluate(dataset, training, shots, seed, method.label, name, grids[name],
                                             needs_valid=needs_valid, augment_seconds=augment_seconds, heldout=heldout))
                        write_runs(rows, runs_path)
    return finish(rows, args, argv, time.perf_counter() - start)


def finish(rows: list[dict], args, argv, elapsed: float) -> int:
    write_map(rows, args.out, header(argv, elapsed))
    logger.info("%d runs in %s; this invocation took %.0f s", len(rows), args.out, elapsed)
    return 0


def header(argv: list[str] | None, elapsed: float) -> str:
    command = "python -m benchmarks.fewshot.map " + shlex.join(sys.argv[1:] if argv is None else argv)
    return f"`{command}`\n\n{time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPU cores; last invocation {elapsed / 60:.1f} min."


def write_map(rows: list[dict], out: Path, header: str) -> pd.DataFrame:
    """``runs.csv``, ``summary.md`` (header, total run time, the map, the full tables) and one
    ``gain-<task>.png`` per task into ``out``."""
    runs = pd.DataFrame(rows)
    write_runs(rows, out / RUNS_CSV)
    summary = summarise(runs)
    total = runs["seconds"].sum() / 3600
    text = (f"{header} Sum of the runs' own times: {total:.2f} h.\n\n## Map of accuracy gains\n\n{map_table(summary)}\n"
            f"## Every row\n\n{markdown_table(summary)}")
    (out / SUMMARY_MD).write_text(text, encoding="utf-8")
    for dataset in summary["dataset"].unique():
        plot_map(summary[summary["dataset"] == dataset], out / plot_name(dataset))
    return summary


def plot_name(dataset: str) -> str:
    """``gain-<task>.png``, the task name made safe for a file name
    (``banking77[test 10/class]`` gives ``gain-banking77-test-10-class.png``)."""
    return "gain-" + re.sub(r"[^A-Za-z0-9_.]+", "-", dataset).strip("-") + ".png"


if __name__ == "__main__":
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see __main__.py
    sys.exit(main())
