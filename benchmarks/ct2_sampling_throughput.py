"""Seeded sampling on the CTranslate2 runtime against the transformers runtime, same model,
same inputs, same settings, one process, rounds interleaved.

Model: the first opus-mt-shaped forward model of ``benchmarks/backtranslation_throughput.py``
(``en-p1``: 512 wide, 6 + 6 layers, 58,101-word vocabulary, random weights), built by that
script under ``--models`` (run it once first). Inputs: BANKING77 test texts, a fresh slice of
``--texts`` per round (no cache effects). Each tool samples ``--samples`` sequences per text
with top-k 50 and top-p 0.95, each text seeded by its own seed, 16 new tokens (the model's
generation config forces exactly 16).

The CTranslate2 runtime samples step by step (see ``augkit.models.ct2_sampling``): one
``translate_batch`` call per generated token, each decoding the prefix again, so it is
expected to be slower than torch's cached decoding; this measures by how much.

    .venv/bin/python benchmarks/ct2_sampling_throughput.py --texts 8 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
RESULTS = REPO / "benchmarks" / "results" / "ct2_sampling_throughput.json"
RUNTIMES = {"transformers": {}, "ctranslate2 int8": {"runtime": "ctranslate2", "compute_type": "int8"},
            "ctranslate2 float32": {"runtime": "ctranslate2", "compute_type": "float32"}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=REPO / ".cache" / "bench-models" / "opus-mt-shape-t16")
    parser.add_argument("--texts", type=int, default=8)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("AUGKIT_CACHE_DIR", tempfile.mkdtemp(prefix="ct2-sampling-"))
    from augkit.models import load_seq2seq

    model_dir = args.models / "en-p1"
    if not model_dir.is_dir():
        raise SystemExit(f"{model_dir} not found: run benchmarks/backtranslation_throughput.py once to build it")
    texts = list(dict.fromkeys((SHARED_DATA / "banking77" / "jianguoz" / "test" / "seq.in").read_text(encoding="utf-8").splitlines()))
    models = {name: load_seq2seq(model_dir, device="cpu", **options) for name, options in RUNTIMES.items()}
    seconds: dict[str, list[float]] = {name: [] for name in models}
    for round_index in range(args.rounds):
        chunk = texts[round_index * args.texts:(round_index + 1) * args.texts]
        order = list(models) if round_index % 2 == 0 else list(models)[::-1]
        for name in order:
            started = time.perf_counter()
            models[name].generate(chunk, do_sample=True, num_return=args.samples, top_k=50, top_p=0.95,
                                  seeds=list(range(len(chunk))), max_new_tokens=16)
            seconds[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    rows = [{"runtime": name, "median_seconds": medians[name], "seconds": seconds[name],
             "sequences_per_second": args.texts * args.samples / medians[name],
             "speed_vs_transformers": medians["transformers"] / medians[name]} for name in models]
    for row in rows:
        print(f"{row['runtime']:22s} {row['median_seconds']:7.2f} s  {row['sequences_per_second']:6.2f} sequences/s  "
              f"{row['speed_vs_transformers']:.2f}x transformers")
    if not args.no_write:
        RESULTS.write_text(json.dumps({"texts": args.texts, "samples": args.samples, "rounds": args.rounds,
                                       "machine": platform.machine(), "cpus": os.cpu_count(), "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
