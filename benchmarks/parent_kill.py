"""SIGKILL the parent of a ``--workers 2`` run: how long do its workers outlive it?

The input is that of ``benchmarks/fault_injection.py`` (52,507 real rows of CLINC150,
BANKING77, SST-2 and TREC). Each trial starts a run with two worker processes, waits until
both run, lets it work a random while more, sends its parent SIGKILL, and polls Linux's
/proc every 20 ms until no worker runs (giving up after ``--give-up`` seconds). Kills land
at random moments of the run (0.5 to ``--latest`` seconds after the workers start). Two ways
of starting the workers, one after the other:

- ``command line``: ``augkit augment INPUT -m eda -n 1 --workers 2``, whose main thread forks
  the workers (they end by the parent-death signal);
- ``thread``: a Python process that runs ``augkit.augment(frame, "eda", workers=2)`` in a thread
  of its own (the workers end by their parent watch).

    .venv/bin/python benchmarks/parent_kill.py                  # 10 trials of each, about 5 minutes
    PYTHONPATH=/path/to/older/checkout .venv/bin/python benchmarks/parent_kill.py --trials 2 --give-up 30

Writes ``benchmarks/results/parent_kill.json`` and prints the table of
docs/benchmarks/fault-injection.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fault_injection import REPO, write_input  # noqa: E402  (the same input, written the same way)

from augkit.engine.process_tree import descendants, running  # noqa: E402

POLL_SECONDS = 0.02


def commands(input_path: Path, output: Path) -> dict[str, list[str]]:
    """The two ways of starting the workers; the command line's output (and the job folder a
    kill leaves beside it) is removed before each trial by :func:`trial`."""
    thread = textwrap.dedent(f"""
        import threading, pandas as pd, augkit
        frame = pd.read_csv({str(input_path)!r}, dtype=str, keep_default_na=False)
        run = threading.Thread(target=augkit.augment, args=(frame, "eda"), kwargs=dict(n=1, seed=7, workers=2))
        run.start()
        run.join()
    """)
    return {
        "command line": [sys.executable, "-m", "augkit.cli", "augment", str(input_path), "-m", "eda", "-n", "1", "--seed", "7",
                         "--workers", "2", "--no-progress", "-o", str(output)],
        "thread": [sys.executable, "-c", thread],
    }


def _rss_mb(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()
        return int(fields[0]) / 1024
    except (OSError, IndexError, ValueError):
        return 0.0


def trial(command: list[str], rng: random.Random, give_up: float, output: Path, latest: float) -> dict:
    output.unlink(missing_ok=True)
    shutil.rmtree(output.with_name(f".{output.name}.augkit-job"), ignore_errors=True)  # a killed run's chunks
    # run from the work folder: from a checkout, `python -m` and `-c` would import its augkit
    # before the one PYTHONPATH names
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=output.parent)
    workers: set[int] = set()
    while len(workers) < 2 and process.poll() is None:
        workers = running(descendants(process.pid))
        time.sleep(POLL_SECONDS)
    delay = rng.uniform(0.5, latest)
    time.sleep(delay)
    if process.poll() is not None:
        return {"finished_first": True, "delay": round(delay, 2)}
    rss = sum(_rss_mb(pid) for pid in workers)
    killed = time.monotonic()
    process.send_signal(signal.SIGKILL)
    process.wait()
    while running(workers) and time.monotonic() - killed < give_up:
        time.sleep(POLL_SECONDS)
    left = running(workers)
    for pid in left:  # do not leave them behind for the next trial
        subprocess.run(["kill", "-9", str(pid)], check=False)
    return {"finished_first": False, "delay": round(delay, 2), "workers": len(workers), "workers_mb": round(rss), "left": len(left),
            "seconds": None if left else round(time.monotonic() - killed, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10, help="trials of each way of starting the workers")
    parser.add_argument("--give-up", type=float, default=30.0, help="seconds to wait for the workers to end")
    parser.add_argument("--seed", type=int, default=0, help="draws the moments of the kills")
    parser.add_argument("--latest", type=float, default=20.0,
                        help="the latest kill, in seconds after the workers start (a run here takes about 15-25 s)")
    parser.add_argument("--work", type=Path, default=REPO / ".cache" / "bench-faults")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "parent_kill.json")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    input_path = args.work / "input.csv"
    rows = write_input(input_path)
    rng = random.Random(args.seed)
    results: dict[str, list[dict]] = {}
    output = args.work / "parent-kill-out.csv"
    for way, command in commands(input_path, output).items():
        results[way] = [trial(command, rng, args.give_up, output, args.latest) for _ in range(args.trials)]
    import augkit

    record = {"rows": rows, "trials": args.trials, "give_up": args.give_up, "latest": args.latest, "seed": args.seed,
              "augkit": augkit.__file__,
              "machine": platform.platform(), "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print("| workers started by | kills (runs that ended first) | workers left after " f"{args.give_up:g} s | "
          "time until none ran: median (max) | workers' memory at the kill |")
    print("|---|---:|---:|---:|---:|")
    for way, trials in results.items():
        done = [t for t in trials if not t["finished_first"]]
        times = [t["seconds"] for t in done if t["seconds"] is not None]
        shown = f"{statistics.median(times):.2f} s ({max(times):.2f} s)" if times else "-"
        memory = statistics.median(t["workers_mb"] for t in done) if done else 0
        print(f"| {way} | {len(done)} ({len(trials) - len(done)}) | {sum(t['left'] for t in done)} of {sum(t['workers'] for t in done)} | {shown} | "
              f"{memory:.0f} MB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
