"""ERAP's entailment oracle, batched against one pair at a time: the same
:class:`augkit.metrics.EntailmentOracle` judging N distinct SICK pairs in one ``judge`` call
and in a loop of ``judge([source], [candidate])``, same process, interleaved rounds,
identical results required (issue 17's goal: batched at least 5x faster).

The model is built in the run, in a temporary folder: a randomly initialised
``RobertaForSequenceClassification`` of roberta-base's size (its ``config.json``: 12 layers,
768 wide, 12 heads, feed-forward 3,072, 514 positions; 3 labels named entailment, neutral,
contradiction) and a byte-level BPE tokenizer with RoBERTa's special tokens trained on
SICK's sentences (``--vocab-size`` 8,000; roberta-base has 50,265, which only makes the
embedding table larger: a classifier has no output layer over the vocabulary, so the size
does not change the speed). ERAP's oracle was RoBERTa (section 4); roberta-large-mnli is
about three times this one, which scales both ways alike. Random weights run exactly as
fast as trained ones. :mod:`augkit.testing` builds BERT pair classifiers (WordPiece); the
RoBERTa tokenizer is trained here the way ``tests/metrics/test_bertscore.py`` trains its RoBERTa's.

Inputs: the first ``--pairs`` distinct (sentence_A, sentence_B) pairs of SICK's TEST split;
the oracle runs each both ways, so a batched call classifies twice as many directed pairs.
Ways, each round alternating which goes first, medians reported:

- ``batched (token budget B)``: one ``judge`` over every pair, one way per ``--token-budgets``
  value (pairs grouped by padded length, as many per forward pass as B tokens allow);
- ``one at a time``: ``judge([s], [c])`` per pair (its two directions share a pass when
  their padded lengths agree).

Then, to tell the oracle's overhead from the hardware's, the bare model on the same token
ids: the batched call's own batches, and one directed pair per forward pass.

    .venv/bin/python benchmarks/erap_oracle_throughput.py --out benchmarks/results/erap_oracle_throughput.json
    .venv/bin/python benchmarks/erap_oracle_throughput.py --quick
"""

from __future__ import annotations

import os

# OpenMP threads that spin while waiting collapse when another process shares the cores;
# read when the runtime starts, before torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import csv
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
SICK = Path("sick") / "kkalouli" / "SICK.txt"
RESULTS = REPO / "benchmarks" / "results" / "erap_oracle_throughput.json"

#: RoBERTa's special tokens, in the ids roberta-base gives them (0-3, and ``<mask>`` last
#: there; here right after, which changes nothing for a classifier).
ROBERTA_SPECIAL = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
NLI_LABELS = ("entailment", "neutral", "contradiction")
#: Largest difference allowed between the ways' probabilities: batches of different sizes
#: take different CPU matrix kernels, which may differ in float32's last bits.
TOLERANCE = 1e-5


def roberta_base_shape() -> dict:
    """roberta-base's ``config.json`` sizes (vocabulary aside, see the module docstring)."""
    return {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
            "max_position_embeddings": 514, "type_vocab_size": 1, "layer_norm_eps": 1e-5, "initializer_range": 0.02}


def sick_rows(data: Path) -> list[dict]:
    with (data / SICK).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def distinct_pairs(rows: list[dict], split: str, count: int) -> list[tuple[str, str]]:
    """The first ``count`` distinct (sentence_A, sentence_B) pairs of a SICK split, in file order."""
    seen: dict[tuple[str, str], None] = {}
    for row in rows:
        if row["SemEval_set"] == split:
            seen.setdefault((row["sentence_A"], row["sentence_B"]))
    return list(seen)[:count]


def build_roberta_classifier(folder: Path, texts: list[str], vocab_size: int, seed: int) -> Path:
    """A random roberta-base-shaped NLI classifier and its byte-level BPE tokenizer, in ``folder``."""
    import tokenizers
    import torch
    import transformers

    byte_level = tokenizers.pre_tokenizers.ByteLevel
    trained = tokenizers.Tokenizer(tokenizers.models.BPE())
    trained.pre_tokenizer = byte_level(add_prefix_space=False)
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(ROBERTA_SPECIAL),
                                             initial_alphabet=byte_level.alphabet(), show_progress=False)
    trained.train_from_iterator(texts, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    trained.model.save(str(folder))
    tokenizer = transformers.RobertaTokenizer(vocab=str(folder / "vocab.json"), merges=str(folder / "merges.txt"), model_max_length=512)
    config = transformers.RobertaConfig(
        vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, num_labels=len(NLI_LABELS), id2label=dict(enumerate(NLI_LABELS)),
        label2id={label: i for i, label in enumerate(NLI_LABELS)}, **roberta_base_shape(),
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = transformers.RobertaForSequenceClassification(config)
    model.eval()
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder


def timed(run) -> tuple[float, object]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def largest_difference(first: list, second: list) -> tuple[int, float]:
    """(pairs whose relation differs, largest probability difference) between two runs."""
    relations = sum(a.relation != b.relation for a, b in zip(first, second, strict=True))
    gap = 0.0
    for a, b in zip(first, second, strict=True):
        for part in ("probabilities", "forward", "backward"):
            x, y = getattr(a, part), getattr(b, part)
            gap = max(gap, max(abs(x[key] - y[key]) for key in x))
    return relations, gap


def batch_shapes(classifier, sources: list[str], candidates: list[str], token_budget: int) -> dict:
    """How the batched call cuts its directed pairs: batches, rows per batch, padding."""
    from augkit.models.batching import padded_length, token_budget_batches

    ids = classifier.tokenizer([*sources, *candidates], [*candidates, *sources], verbose=False)["input_ids"]
    lengths = [len(row) for row in ids]
    plan = token_budget_batches(lengths, token_budget)
    padded = sum(padded_length(max(lengths[i] for i in batch)) * len(batch) for batch in plan)
    single = sum(padded_length(n) for n in lengths)
    return {
        "directed_pairs": len(lengths), "tokens": sum(lengths), "mean_tokens": statistics.mean(lengths),
        "max_tokens": max(lengths), "batches": len(plan), "rows_per_batch_median": statistics.median(len(b) for b in plan),
        "padded_tokens_batched": padded, "padded_tokens_one_row_per_pass": single, "plan": plan, "ids": ids,
    }


def bare_model_seconds(classifier, shapes: dict) -> dict:
    """The model alone on the oracle's token ids: the batched call's batches, then one
    directed pair per pass (no tokenising, no softmax, no Python around it)."""
    import torch

    from augkit.models.batching import pad_rows

    ids, model = shapes["ids"], classifier.model
    pad = classifier.tokenizer.pad_token_id

    def run(batches):
        with torch.inference_mode():
            for batch in batches:
                input_ids, mask = pad_rows([ids[i] for i in batch], pad, "cpu")
                model(input_ids=input_ids, attention_mask=mask)

    batched, _ = timed(lambda: run(shapes["plan"]))
    single, _ = timed(lambda: run([[i] for i in range(len(ids))]))
    return {"batched_seconds": batched, "one_row_per_pass_seconds": single, "ratio": single / batched}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="the shared data folder")
    parser.add_argument("--pairs", type=int, default=512, help="distinct SICK TEST pairs (each judged both ways)")
    parser.add_argument("--token-budgets", default="4096", help="token budgets of the batched way (comma-separated)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of every way (median reported)")
    parser.add_argument("--vocab-size", type=int, default=8000, help="tokens asked of the BPE trainer")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-bare-model", action="store_true", help="skip the bare-model comparison")
    parser.add_argument("--quick", action="store_true", help="64 pairs, 1 round")
    parser.add_argument("--out", type=Path, default=None, help=f"results JSON, e.g. {RESULTS.relative_to(REPO)}")
    args = parser.parse_args(argv)
    if args.quick:
        args.pairs, args.repeats = 64, 1

    import torch
    import transformers

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from paramac_throughput import machine

    from augkit.metrics import EntailmentOracle

    torch.set_num_threads(args.threads)
    rows = sick_rows(args.data)
    texts = sorted({row[key] for row in rows for key in ("sentence_A", "sentence_B")})
    pairs = distinct_pairs(rows, "TEST", args.pairs)
    sources, candidates = [p[0] for p in pairs], [p[1] for p in pairs]
    budgets = [int(b) for b in args.token_budgets.split(",")]

    with tempfile.TemporaryDirectory(prefix="erap-oracle-") as scratch:
        start = time.perf_counter()
        folder = build_roberta_classifier(Path(scratch) / "roberta-base-nli", texts, args.vocab_size, args.seed)
        build_seconds = time.perf_counter() - start
        oracles = {budget: EntailmentOracle(str(folder), device="cpu", token_budget=budget) for budget in budgets}
        single = EntailmentOracle(str(folder), device="cpu")
        classifier = single.classifier  # loaded once, shared by every oracle on the folder
        ways = {f"batched (token budget {b})": (lambda o=o: o.judge(sources, candidates)) for b, o in oracles.items()}
        ways["one at a time"] = lambda: [single.judge([s], [c])[0] for s, c in zip(sources, candidates, strict=True)]
        reference_way = next(iter(ways))

        ways[reference_way]()  # warm-up: first-call allocations
        [single.judge([s], [c]) for s, c in zip(sources[:8], candidates[:8], strict=True)]
        seconds: dict[str, list[float]] = {way: [] for way in ways}
        reference = None
        worst: dict[str, dict] = {}
        for repeat in range(args.repeats):
            order = list(ways) if repeat % 2 == 0 else list(reversed(ways))
            for way in order:
                elapsed, result = timed(ways[way])
                seconds[way].append(elapsed)
                if reference is None:  # the first run of all is the batched way's: the reference
                    reference = result
                else:
                    relations, gap = largest_difference(reference, result)
                    seen = worst.setdefault(way, {"relations_differing": 0, "largest_probability_difference": 0.0})
                    seen["relations_differing"] = max(seen["relations_differing"], relations)
                    seen["largest_probability_difference"] = max(seen["largest_probability_difference"], gap)
                print(f"round {repeat + 1}: {way}: {elapsed:.2f} s", flush=True)

        shapes = {b: batch_shapes(classifier, sources, candidates, b) for b in budgets}
        bare = None if args.no_bare_model else bare_model_seconds(classifier, shapes[budgets[0]])

    identical = all(w["relations_differing"] == 0 and w["largest_probability_difference"] <= TOLERANCE for w in worst.values())
    medians = {way: statistics.median(values) for way, values in seconds.items()}
    speedups = {way: medians["one at a time"] / medians[way] for way in ways if way != "one at a time"}
    best = max(speedups, key=speedups.get)
    relations = [j.relation for j in reference]
    summary = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "pairs": len(pairs), "directed_pairs_per_call": 2 * len(pairs), "repeats": args.repeats, "threads": args.threads,
        "model": {"architecture": "RobertaForSequenceClassification", **roberta_base_shape(),
                  "vocab_size": len(classifier.tokenizer), "labels": list(classifier.labels),
                  "parameters": sum(p.numel() for p in classifier.model.parameters()), "build_seconds": build_seconds},
        "token_budgets": budgets,
        "median_seconds": medians, "seconds": seconds,
        "pairs_per_second": {way: len(pairs) / value for way, value in medians.items()},
        "speedup_vs_one_at_a_time": speedups,
        "best": {"way": best, "speedup": speedups[best], "goal": 5.0, "met": speedups[best] >= 5.0},
        "identical": {"all": identical, "tolerance": TOLERANCE, "against": reference_way, "ways": worst},
        "batch_shapes": {b: {k: v for k, v in s.items() if k not in ("plan", "ids")} for b, s in shapes.items()},
        "bare_model": bare,
        "relation_counts_random_model": {r: relations.count(r) for r in sorted(set(relations))},
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "machine": {**machine(), "load_average": list(os.getloadavg())},
    }
    print(json.dumps({key: summary[key] for key in ("median_seconds", "speedup_vs_one_at_a_time", "identical", "bare_model")}, indent=2))
    if not identical:
        raise SystemExit("results differ between the ways: the comparison is void")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
