"""POINTER insertion throughput: insertion stages batched across rows against one keyword
list at a time, same process, same inputs, bert-base shape, identical outputs required.

The insertion model is built in the run with :mod:`augkit.testing`: ``bert_base_shape()``
(768 wide, 12 layers, 12 heads, feed-forward 3,072, 512 positions, 30,522 tokens: the
WordPiece tokenizer trained on BANKING77's training texts, padded to bert-base-uncased's
vocabulary size so the output layer costs what the real one does) plus ``[NOI]``. Random
weights run exactly as fast as trained ones, but a random model almost never says
``[NOI]``: every row inserts at every gap and doubles per stage (4 -> 9 -> 19 -> 39
tokens). ``--max-stages 3`` (default) therefore stops rows at about 39 word pieces, the
length of the seed paper's outputs (Table 2: 117-154 characters on average, about 30-40
word pieces); the real decoder runs more stages with fewer insertions each.

Inputs: keyword lists of distinct BANKING77 test queries from the method's own keyword
step (``extract_keywords``, k = 3, final punctuation kept), one list per query. Three ways,
each repeat alternating which goes first, medians reported:

- ``batched``: one ``generate`` call over every list (rows grouped by length per stage);
- ``one at a time``: one ``generate`` call per list, as the method would run with
  ``batch_size=1`` (small passes topped up with copies, which keeps outputs bitwise equal);
- ``one at a time, plain``: one list per call without the top-up, the bare single-row
  forward pass of POINTER's own ``inference.py`` (batch size 1).

The run checks that all three give identical texts.

    .venv/bin/python benchmarks/pointer_throughput.py --out benchmarks/results/pointer_throughput.json
"""

from __future__ import annotations

import os

# OpenMP threads that spin while waiting collapse when another process shares the cores;
# read when the runtime starts, before torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import json
import random
import statistics
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
BANKING77 = Path("banking77") / "jianguoz"
RESULTS = REPO / "benchmarks" / "results" / "pointer_throughput.json"


def distinct_queries(data: Path, split: str, count: int) -> list[str]:
    """The first ``count`` distinct queries of a BANKING77 split, in file order."""
    seen: dict[str, None] = {}
    for line in (data / BANKING77 / split / "seq.in").read_text(encoding="utf-8").splitlines():
        if line.strip():
            seen.setdefault(line.strip())
    return list(seen)[:count]


def keyword_lists(texts: list[str], seed: int) -> list[list[str]]:
    from augkit_pointer.keywords import extract_keywords

    return [[k.text for k in extract_keywords(text, random.Random(f"{seed}:{i}"), k=3)] for i, text in enumerate(texts)]


def build_model(folder: Path, texts: list[str]) -> Path:
    """bert-base shape insertion model with ``[NOI]`` (built once, reused)."""
    if (folder / "model.safetensors").is_file():
        return folder
    from augkit.testing import bert_base_shape, build_bert_masked_lm

    return build_bert_masked_lm(folder, texts, vocab_size=16000, special_tokens=["[NOI]"], **bert_base_shape())


def timed(run) -> tuple[float, list]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--lists", type=int, default=128, help="keyword lists (one per distinct test query)")
    parser.add_argument("--max-stages", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", type=Path, default=REPO / ".cache" / "bench-models" / "pointer")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    import torch
    from paramac_throughput import (
        machine,  # this folder is on the path when run as a script
    )

    torch.set_num_threads(args.threads)
    from augkit_pointer.insertion import InsertionGenerator, InsertionSettings

    from augkit.plugin import load_masked_lm

    training = (args.data / BANKING77 / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    folder = build_model(args.models / "bert-base-pointer", training)
    lists = keyword_lists(distinct_queries(args.data, "test", args.lists), args.seed)
    lm = load_masked_lm(str(folder), device="cpu")
    settings = InsertionSettings(max_stages=args.max_stages)
    generator = InsertionGenerator(lm, settings)
    plain = InsertionGenerator(lm, settings, top_up_small_passes=False)
    ways = {
        "batched": lambda: generator.generate(lists),
        "one at a time": lambda: [generator.generate([k])[0] for k in lists],
        "one at a time, plain": lambda: [plain.generate([k])[0] for k in lists],
    }
    ways["batched"]()  # warm-up: first-call allocations
    seconds: dict[str, list[float]] = {way: [] for way in ways}
    outputs: dict[str, list] = {}
    for repeat in range(args.repeats):
        order = list(ways) if repeat % 2 == 0 else list(reversed(ways))
        for way in order:
            elapsed, result = timed(ways[way])
            seconds[way].append(elapsed)
            outputs.setdefault(way, [o.text for o in result])
            print(f"repeat {repeat + 1}: {way}: {elapsed:.2f} s", flush=True)
    identical = {way: outputs[way] == outputs["batched"] for way in ways}
    medians = {way: statistics.median(values) for way, values in seconds.items()}
    tokens = [len(lm.tokenizer(text)["input_ids"]) for text in outputs["batched"]]
    summary = {
        "lists": len(lists), "max_stages": args.max_stages, "threads": args.threads,
        "median_seconds": medians, "seconds": seconds,
        "lists_per_second": {way: len(lists) / value for way, value in medians.items()},
        "speedup_vs_one_at_a_time": medians["one at a time"] / medians["batched"],
        "speedup_vs_plain_single_row": medians["one at a time, plain"] / medians["batched"],
        "identical_outputs": identical,
        "output_tokens_mean": statistics.mean(tokens),
        "examples": [{"keywords": k, "output": o} for k, o in list(zip(lists, outputs["batched"]))[:3]],
        "machine": {**machine(), "load_average": list(os.getloadavg())},
    }
    print(json.dumps({key: summary[key] for key in ("median_seconds", "speedup_vs_one_at_a_time",
                                                   "speedup_vs_plain_single_row", "identical_outputs", "output_tokens_mean")}, indent=2))
    if not all(identical.values()):
        raise SystemExit("outputs differ between the ways: the comparison is void")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
