"""Augment BANKING77's 10-shot training split with EDA and AEDA, and show before and after.

Run with ``make demo`` (sets up .venv first) or ``python examples/banking77_demo.py``.
Reads ../shared/data/banking77/jianguoz/train_10 (770 texts, 77 intents, 10 each), writes
the augmented table to examples/output/banking77_train10_eda.csv and prints:

- a few source texts, each followed by its augmentations;
- the size of the data set before and after, per method;
- the run's report (rows read, augmentations written, candidates each step dropped, rows that got none).
"""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd

import augkit

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
SPLIT = SHARED_DATA / "banking77" / "jianguoz" / "train_10"
OUTPUT = REPO / "examples" / "output" / "banking77_train10_eda.csv"


def load_split(folder: Path) -> pd.DataFrame:
    """A jianguoz few-shot split: one text per line in seq.in, its intent in label."""
    texts = (folder / "seq.in").read_text(encoding="utf-8").splitlines()
    labels = (folder / "label").read_text(encoding="utf-8").splitlines()
    return pd.DataFrame({"text": texts, "label": labels})


def show_examples(augmented: pd.DataFrame, sources: list[int]) -> None:
    for source in sources:
        group = augmented[augmented["augkit_source"] == source]
        original = group[group["augkit_method"].isna()].iloc[0]
        print(f"\n[{original['label']}]")
        print(f"  original  {original['text']}")
        for _, row in group[group["augkit_method"].notna()].iterrows():
            print(f"  {row['augkit_method']:<9} {textwrap.shorten(row['text'], width=96)}")


def main() -> int:
    if not SPLIT.is_dir():
        print(f"BANKING77 10-shot split not found at {SPLIT}; set AUGKIT_SHARED_DATA", file=sys.stderr)
        return 2
    frame = load_split(SPLIT)
    print(f"BANKING77 train_10: {len(frame)} texts, {frame['label'].nunique()} intents")

    summary = []
    results = {}
    for method in ("eda", "aeda", "eda+aeda"):
        start = time.perf_counter()
        augmented, report = augkit.augment_with_report(frame, method, n=4, seed=0, label_column="label")
        seconds = time.perf_counter() - start
        results[method] = augmented
        per_label = augmented.groupby("label").size()
        summary.append(
            {
                "method": method,
                "rows before": len(frame),
                "rows after": len(augmented),
                "per intent (min-max)": f"{per_label.min()}-{per_label.max()}",
                "inputs with no augmentation": sum(report.without_augmentation.values()),
                "seconds": round(seconds, 2),
            }
        )

    print("\nBefore and after, EDA (n=4, seed=0):")
    show_examples(results["eda"], sources=[0, 123, 456])
    print("\nBefore and after, AEDA (n=4, seed=0):")
    show_examples(results["aeda"], sources=[0])
    print("\nData set size:")
    print(pd.DataFrame(summary).to_string(index=False))

    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    results["eda"].to_csv(OUTPUT, index=False)
    print(f"\nWrote {OUTPUT.relative_to(REPO)} ({len(results['eda'])} rows). Same command line:")
    print(f"  augkit augment data.csv -m eda -n 4 --seed 0 --label-column label -o {OUTPUT.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
