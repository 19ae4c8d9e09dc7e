"""Peak memory of ``augkit augment`` on 100 thousand and 1 million rows, streamed and in memory.

The input cycles BANKING77's 10,003 training texts (polyai CSV, ``../shared/data``) with their
labels and a row id, written once as CSV under ``--work`` (not committed). Each run is a fresh
``augkit augment INPUT -m eda -n N --seed 0`` process; its peak resident memory comes from the
kernel (``os.wait4``'s ``ru_maxrss``), its time from the wall clock. "streamed" is the default
``--chunk-rows`` (50,000); "in memory" sets ``--chunk-rows`` above the row count, which reads,
augments and writes the whole table at once (the behaviour before streaming).

    .venv/bin/python benchmarks/streaming_memory.py                 # about 10 minutes
    .venv/bin/python benchmarks/streaming_memory.py --sizes 10000 100000

Writes ``benchmarks/results/streaming_memory.json`` and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))


def write_input(path: Path, rows: int) -> None:
    with open(SHARED / "banking77" / "polyai" / "train.csv", newline="", encoding="utf-8") as source:
        records = list(csv.DictReader(source))
    with open(path, "w", newline="", encoding="utf-8") as sink:
        writer = csv.writer(sink)
        writer.writerow(["id", "text", "label"])
        for i in range(rows):
            record = records[i % len(records)]
            writer.writerow([i, record["text"], record["category"]])


def run(input_path: Path, output: Path, n: int, chunk_rows: int) -> dict:
    command = [sys.executable, "-m", "augkit.cli", "augment", str(input_path), "-m", "eda", "-n", str(n), "--seed", "0",
               "--label-column", "label", "--chunk-rows", str(chunk_rows), "--no-progress", "-o", str(output)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    stderr = process.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"augkit failed: {stderr}")
    return {"seconds": round(seconds, 1), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "summary": stderr.strip().splitlines()[-1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("-n", type=int, default=1, help="augmentations per row (default 1)")
    parser.add_argument("--work", type=Path, default=REPO / ".cache" / "bench-streaming")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "streaming_memory.json")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    results = []
    for rows in args.sizes:
        source = args.work / f"input-{rows}.csv"
        if not source.exists():
            write_input(source, rows)
        for mode, chunk_rows in (("streamed", 50_000), ("in memory", rows + 1)):
            output = args.work / f"output-{rows}.csv"
            result = {"rows": rows, "mode": mode, "chunk_rows": chunk_rows, **run(source, output, args.n, chunk_rows)}
            result["rows_per_second"] = round(rows / result["seconds"])
            results.append(result)
            output.unlink()
            print(json.dumps(result), flush=True)
    report = {"python": platform.python_version(), "cpus": os.cpu_count(), "n": args.n, "results": results}
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print("\n| rows | mode | peak RSS (MB) | seconds | input rows/s |\n|---:|---|---:|---:|---:|")
    for r in results:
        print(f"| {r['rows']:,} | {r['mode']} | {r['peak_rss_mb']:,} | {r['seconds']} | {r['rows_per_second']:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
