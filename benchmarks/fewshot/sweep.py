"""A fast sweep over filter thresholds, augmented-row weights, n and method mixes.

The few-shot runner re-augments and re-embeds for every configuration; this sweep does the
expensive part once per (K, seed): it draws the K-shot sample, generates 8 EDA and 8 AEDA
candidates per example, scores every candidate with the ``semantic`` and
``label_integrity`` filters set to keep everything, and embeds them. Each configuration is
then a selection of those candidates (score thresholds, the first ``n`` per source, a
method or a mix) and one logistic-regression fit per C, so hundreds of configurations cost
minutes. Selection uses the valid split only (C is chosen on it too); test accuracy is
reported beside it.

    python -m benchmarks.fewshot.sweep --data ../shared/data/banking77/jianguoz --seeds 3 \\
        --shots 10 5 --out docs/benchmarks/fewshot/banking77-sweep.csv
"""

from __future__ import annotations

import argparse
import itertools
import logging
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.fewshot.data import load_dataset, sample_k_shot

logger = logging.getLogger("benchmarks.fewshot.sweep")

#: Filters that score every candidate and drop none; thresholds are applied afterwards.
SCORE_EVERYTHING = "semantic(min=-1,max=1)|label_integrity(min=-2)"
METHODS = ("eda", "aeda", "eda+aeda")
#: (semantic minimum, label-integrity minimum margin): unfiltered, the defaults, stricter.
THRESHOLDS = ((-1.0, -2.0), (0.8, 0.0), (0.85, 0.05))
WEIGHTS = (0.1, 0.3, 1.0)
NS = (2, 4, 8)
CS = (16.0, 64.0, 256.0)
CANDIDATES_PER_METHOD = 8


def scored_candidates(sample: pd.DataFrame, method: str, seed: int, encoder) -> pd.DataFrame:
    """Up to 8 candidates of each sample row, with their scores, rank and embedding."""
    import augkit

    out = augkit.augment(sample, f"{method}|{SCORE_EVERYTHING}", n=CANDIDATES_PER_METHOD, seed=seed, label_column="label")
    added = out[out["augkit_method"].notna()].copy()
    added["rank"] = added.groupby("augkit_source").cumcount()
    added["embedding"] = list(encoder.encode(added["text"].tolist()))
    return added


def selection(candidates: dict[str, pd.DataFrame], method: str, semantic_min: float, margin_min: float, n: int) -> pd.DataFrame:
    """The candidates a pipeline with these settings would keep (a mix splits n evenly)."""
    members = method.split("+")
    per_member = n // len(members)
    parts = []
    for member in members:
        frame = candidates[member]
        keep = (
            (frame["augkit_semantic"] >= semantic_min)
            & (frame["augkit_label_integrity"] >= margin_min)
            & (frame["rank"] < per_member)
        )
        parts.append(frame[keep])
    return pd.concat(parts)


def fit_best_c(features, labels, weights, valid_features, valid_labels):
    """The logistic regression (one C of CS) that scores best on the valid split."""
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    best = None
    with threadpool_limits(1):
        for c in CS:
            model = LogisticRegression(C=c, max_iter=1000).fit(features, labels, sample_weight=weights)
            accuracy = float((model.predict(valid_features) == valid_labels).mean())
            if best is None or accuracy > best[0]:
                best = (accuracy, c, model)
    return best


def configurations():
    """(method, semantic min, margin min, weight, n); ``none`` first."""
    yield ("none", None, None, 0.0, 0)
    for method, (semantic_min, margin_min), weight, n in itertools.product(METHODS, THRESHOLDS, WEIGHTS, NS):
        yield (method, semantic_min, margin_min, weight, n)


def sweep(data: str, seeds: int, shots: list[int], out: Path) -> pd.DataFrame:
    from augkit.encoders import get_encoder

    dataset = load_dataset(data)
    if dataset.valid is None:
        raise SystemExit(f"{data} has no valid split; the sweep selects on it")
    encoder = get_encoder()
    valid_x, valid_y = encoder.encode(dataset.valid["text"].tolist()), dataset.valid["label"].to_numpy()
    test_x, test_y = encoder.encode(dataset.test["text"].tolist()), dataset.test["label"].to_numpy()
    rows = []
    for k in shots:
        for seed in range(seeds):
            sample = sample_k_shot(dataset.train, k, seed).frame
            base_x, base_y = encoder.encode(sample["text"].tolist()), sample["label"].to_numpy()
            candidates = {m: scored_candidates(sample, m, seed, encoder) for m in ("eda", "aeda")}
            for method, semantic_min, margin_min, weight, n in configurations():
                kept = pd.DataFrame() if method == "none" else selection(candidates, method, semantic_min, margin_min, n)
                features = np.vstack([base_x, *([np.stack(kept["embedding"].to_numpy())] if len(kept) else [])])
                labels = np.concatenate([base_y, kept["label"].to_numpy()]) if len(kept) else base_y
                weights = np.concatenate([np.ones(len(base_y)), np.full(len(kept), weight)])
                valid, c, model = fit_best_c(features, labels, weights, valid_x, valid_y)
                rows.append({
                    "shots": k, "seed": seed, "method": method, "semantic_min": semantic_min,
                    "margin_min": margin_min, "weight": weight, "n": n, "C": c,
                    "valid_accuracy": valid, "test_accuracy": float((model.predict(test_x) == test_y).mean()),
                    "train_rows": len(labels),
                })
            logger.info("K=%d seed=%d done", k, seed)
            pd.DataFrame(rows).to_csv(out, index=False)
    return pd.DataFrame(rows)


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean gain over ``none`` (points) on valid and test per configuration, best valid first."""
    base = runs[runs["method"] == "none"].set_index(["shots", "seed"])[["valid_accuracy", "test_accuracy"]]
    joined = runs.join(base, on=["shots", "seed"], rsuffix="_none")
    joined["valid_gain"] = 100 * (joined["valid_accuracy"] - joined["valid_accuracy_none"])
    joined["test_gain"] = 100 * (joined["test_accuracy"] - joined["test_accuracy_none"])
    keys = ["method", "semantic_min", "margin_min", "weight", "n"]
    summary = joined[joined["method"] != "none"].groupby(keys).agg(
        valid_gain=("valid_gain", "mean"), test_gain=("test_gain", "mean"), test_gain_sd=("test_gain", "std"),
        runs=("test_gain", "size"),
    )
    return summary.sort_values("valid_gain", ascending=False).round(3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--shots", type=int, nargs="+", default=[10, 5])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 shares the machine well)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    runs = sweep(args.data, args.seeds, args.shots, args.out)
    print(summarise(runs).head(15).to_string())


if __name__ == "__main__":
    main()
