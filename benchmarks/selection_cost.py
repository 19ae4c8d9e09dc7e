"""What the selection filters ``pvi`` and ``consistency`` cost next to generating the
candidates they judge: 10,000 EDA candidates of BANKING77 training texts, in one process.

For each filter and classifier (``logreg``: logistic regression on all-MiniLM-L6-v2
embeddings; ``tfidf``: on TF-IDF word 1-2 grams), the time of ``prepare`` (the classifier and
its cross-fitting folds trained on the 2,500 originals) plus ``filter_batch`` over every
candidate in batches of 256 (the pipeline's default batch), against the time EDA took to
generate the candidates. For ``logreg`` the embedding of every text (originals and candidates)
is timed first on a cold cache, then the filter, whose texts are then embedded already: the
two parts add up to the filter's cost. The embedding work is also given as a
share of the machine's float32 matrix-multiply peak, measured in the same run: a batched
encoder near that peak cannot be made much cheaper on this CPU.

    python benchmarks/selection_cost.py --rows 2500 --n 4

Writes benchmarks/results/selection_cost.json; figures: docs/benchmarks/selection-cost.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

try:
    from benchmarks.semantic_throughput import flops_per_text, matmul_peak_gflops
except ModuleNotFoundError:  # run as a script: benchmarks/ itself is on sys.path
    from semantic_throughput import flops_per_text, matmul_peak_gflops

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", ROOT.parent / "shared" / "data"))
DATA = SHARED_DATA / "banking77" / "jianguoz" / "train"
BATCH = 256


def read_rows(count: int):
    import pandas as pd

    texts = (DATA / "seq.in").read_text(encoding="utf-8").splitlines()
    labels = (DATA / "label").read_text(encoding="utf-8").splitlines()
    return pd.DataFrame({"text": texts, "label": labels}).drop_duplicates("text").head(count).reset_index(drop=True)


def eda_candidates(frame, n: int):
    """EDA's candidates per row (seeded), and the seconds augkit took to make them."""
    import augkit

    augkit.augment(frame.head(50), "eda", n=n, seed=0, label_column="label", progress=False)  # load the lexicon
    start = time.perf_counter()
    out = augkit.augment(frame, "eda", n=n, seed=0, label_column="label", progress=False)
    seconds = time.perf_counter() - start
    augmented = out[out.augkit_method.notna()]
    rows = [[] for _ in range(len(frame))]
    for source, text in zip(augmented.augkit_source, augmented.text):
        rows[int(source)].append(text)
    return rows, seconds


def judge(step, frame, rows) -> float:
    """Seconds of ``prepare`` plus ``filter_batch`` over every candidate, in batches."""
    from augkit.steps.candidate import Candidate
    from augkit.steps.context import BatchContext, DatasetContext

    texts, labels = frame.text.tolist(), frame.label.tolist()
    start = time.perf_counter()
    step.prepare(DatasetContext(texts, labels))
    for first in range(0, len(texts), BATCH):
        part = slice(first, first + BATCH)
        step.filter_batch(texts[part], [[Candidate(t) for t in row] for row in rows[part]],
                          BatchContext(labels=labels[part]))
    return time.perf_counter() - start


def embedding_flops(texts: list[str]) -> float:
    """Forward FLOPs of all-MiniLM-L6-v2 over ``texts`` (their own token lengths)."""
    from augkit.models.encoder import get_encoder
    encoder = get_encoder()
    config = encoder._model[0].auto_model.config
    return sum(flops_per_text(config, len(ids)) for ids in encoder._token_ids(list(dict.fromkeys(texts))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2500)
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "selection_cost.json")
    args = parser.parse_args()
    import torch

    from augkit.filters import ConsistencyFilter, PviFilter
    from augkit.models.encoder import get_encoder

    torch.set_num_threads(args.threads)
    frame = read_rows(args.rows)
    rows, eda_seconds = eda_candidates(frame, args.n)
    count = sum(map(len, rows))
    print(f"EDA: {count:,} candidates of {len(frame):,} rows in {eda_seconds:.2f} s", flush=True)
    encoder = get_encoder()
    encoder.encode(frame.text.tolist()[:32])  # load the model outside the timings
    peak = matmul_peak_gflops()
    flops = embedding_flops(frame.text.tolist() + [t for row in rows for t in row])
    results = {"machine": platform.machine(), "threads": args.threads, "rows": len(frame), "candidates": count,
               "eda_seconds": eda_seconds, "matmul_peak_gflops": peak, "embedding_gflop": flops / 1e9, "filters": {}}
    everything = frame.text.tolist() + [t for row in rows for t in row]
    for name, cls in (("pvi", PviFilter), ("consistency", ConsistencyFilter)):
        for classifier in ("tfidf", "logreg"):
            entry = {}
            if classifier == "logreg":  # the embeddings first, on a cold cache; then the rest of the filter
                encoder.clear_cache()
                start = time.perf_counter()
                encoder.encode(everything)
                embed = time.perf_counter() - start
                entry.update(embedding_seconds=embed, embedding_peak_fraction=flops / embed / 1e9 / peak)
            rest = judge(cls(classifier=classifier), frame, rows)
            total = rest + entry.get("embedding_seconds", 0.0)
            entry.update(seconds=total, ratio_to_eda=total / eda_seconds, without_embedding_seconds=rest,
                         without_embedding_ratio_to_eda=rest / eda_seconds)
            results["filters"][f"{name}({classifier})"] = entry
            print(f"{name}(classifier={classifier!r}): {total:.2f} s, {total / eda_seconds:.2f}x EDA's time"
                  + (f"; of which embedding {entry['embedding_seconds']:.1f} s at {entry['embedding_peak_fraction']:.0%} "
                     f"of the {peak:.0f} GFLOP/s matmul peak, and the classifiers {rest:.2f} s "
                     f"({rest / eda_seconds:.2f}x EDA's time)" if classifier == "logreg" else ""), flush=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
