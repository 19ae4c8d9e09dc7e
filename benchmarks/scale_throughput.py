"""EDA over 100 thousand and 1 million rows: one process, Hugging Face datasets with
``num_proc=2``, and Ray with 2 actors, in one run.

Input: BANKING77's 10,003 training texts (polyai CSV, ``../shared/data``) cycled to the row
count with their labels. Each measurement is a fresh Python process that builds the table in
memory (pandas, ``datasets.Dataset.from_pandas`` or ``ray.data.from_pandas``), then times only
``augkit.augment(data, "eda", n=1, seed=0, ...)`` up to a materialised result (for Ray,
``materialize()``); peak memory is the process's ``ru_maxrss`` plus its children's (datasets'
map workers). Ray's actors are not children of the driver, so the Ray figure is the driver's
memory alone, and Ray's start-up (``ray.init``) is left out of the time.

    .venv/bin/python benchmarks/scale_throughput.py                  # about 10 minutes
    .venv/bin/python benchmarks/scale_throughput.py --sizes 20000

Writes ``benchmarks/results/scale_throughput.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODES = ("single process", "datasets num_proc=2", "ray 2 actors")

_CHILD = r'''
import json, os, resource, sys, time
import pandas as pd
import augkit
mode, rows, shared = sys.argv[1], int(sys.argv[2]), sys.argv[3]
source = pd.read_csv(os.path.join(shared, "banking77", "polyai", "train.csv"), dtype=str, keep_default_na=False)
repeat = -(-rows // len(source))
frame = pd.concat([source] * repeat, ignore_index=True).iloc[:rows].rename(columns={"category": "label"})
if mode == "single process":
    data, options = frame, {}
elif mode == "datasets num_proc=2":
    import datasets
    datasets.disable_progress_bar()
    data, options = datasets.Dataset.from_pandas(frame), {"workers": 2}
else:
    import ray
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    data, options = ray.data.from_pandas(frame).repartition(8), {"workers": 2}
del frame
started = time.perf_counter()
out = augkit.augment(data, "eda", n=1, seed=0, progress=False, batch_size=1024, **options)
if mode.startswith("ray"):
    out = out.materialize()
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": round(seconds, 2), "peak_rss_mb": round(peak / 1024, 1), "rows_out": out.count() if mode.startswith("ray") else len(out)}))
'''


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--data", default=os.environ.get("AUGKIT_SHARED_DATA", str(REPO.parent / "shared" / "data")))
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "scale_throughput.json")
    args = parser.parse_args(argv)
    results = []
    for rows in args.sizes:
        for mode in MODES:
            done = subprocess.run([sys.executable, "-c", _CHILD, mode, str(rows), args.data], capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{mode} on {rows} rows failed:\n{done.stderr[-3000:]}")
            measured = json.loads(done.stdout.strip().splitlines()[-1])
            result = {"rows": rows, "mode": mode, **measured, "rows_per_second": round(rows / measured["seconds"])}
            results.append(result)
            print(json.dumps(result), flush=True)
    report = {"python": platform.python_version(), "cpus": os.cpu_count(), "method": "eda, n=1", "results": results}
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print("\n| rows | mode | input rows/s | vs one process | seconds | peak RSS (MB) |\n|---:|---|---:|---:|---:|---:|")
    for r in results:
        base = next(x for x in results if x["rows"] == r["rows"] and x["mode"] == MODES[0])
        print(f"| {r['rows']:,} | {r['mode']} | {r['rows_per_second']:,} | {r['rows_per_second'] / base['rows_per_second']:.2f}x | "
              f"{r['seconds']} | {r['peak_rss_mb']:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
