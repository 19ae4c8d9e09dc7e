"""What the trace costs: ``eda|semantic`` on 10,000 BANKING77 texts with ``trace=True``
against the same run without it, in one process run, runs alternated (off, on, off, on ...)
so that a drift of the machine's speed touches both alike; the ratio is taken pair by pair
and its median reported.

The cost of the trace when it is *off* (against the code before the trace existed) cannot be
measured in one process: it is measured with ``farm-bench`` on the command line, this
checkout against the commit before the trace, and the figures are in
docs/benchmarks/trace-overhead.md.

    python benchmarks/trace_overhead.py --texts 10000 --repeats 3 --out benchmarks/results/trace_overhead.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "banking77" / "polyai" / "train.csv"


def read_texts(path: Path, count: int) -> list[str]:
    import pandas as pd

    texts = pd.read_csv(path)["text"].astype(str).tolist()
    if len(texts) < count:
        sys.exit(f"{path} has {len(texts)} texts; {count} asked")
    return texts[:count]


def timed_run(texts: list[str], spec: str, n: int, trace: bool) -> tuple[float, int, int]:
    """Seconds of one ``augment_with_report`` call, the augmentations it made and the
    trace rows (0 when off)."""
    import augkit
    from augkit.models.encoder import get_encoder

    get_encoder(None).clear_cache()  # the encoder remembers embeddings: each run embeds everything afresh
    start = time.perf_counter()
    _, report = augkit.augment_with_report(texts, spec, n=n, seed=0, progress=False, trace=trace)
    seconds = time.perf_counter() - start
    return seconds, report.augmentations, len(report.trace or [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--texts", type=int, default=10_000)
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--method", default="eda|semantic")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    texts = read_texts(args.data, args.texts)
    timed_run(texts[:256], args.method, args.n, trace=False)  # load the encoder, warm caches
    pairs = []
    for repeat in range(args.repeats):
        off = timed_run(texts, args.method, args.n, trace=False)
        on = timed_run(texts, args.method, args.n, trace=True)
        if off[1] != on[1]:
            sys.exit(f"the trace changed the output: {off[1]} augmentations without it, {on[1]} with it")
        pairs.append({"off_s": off[0], "on_s": on[0], "ratio": on[0] / off[0], "augmentations": off[1], "trace_rows": on[2]})
        print(f"run {repeat + 1}: off {off[0]:.2f} s, on {on[0]:.2f} s, on/off {on[0] / off[0]:.3f} "
              f"({on[2]} candidates traced, {off[1]} kept)", flush=True)
    result = {
        "method": args.method, "texts": len(texts), "n": args.n, "repeats": args.repeats,
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "median_off_s": statistics.median(p["off_s"] for p in pairs),
        "median_on_s": statistics.median(p["on_s"] for p in pairs),
        "median_ratio": statistics.median(p["ratio"] for p in pairs),
        "runs": pairs,
    }
    print(f"median on/off ratio: {result['median_ratio']:.3f} (goal: under 1.25)")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
