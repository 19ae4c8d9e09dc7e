"""ParaMac throughput: the whole ``paramac`` method batched across sentences against the same
pipeline one sentence at a time, same process, same inputs, at the models' real sizes.

Models, built in the run with :mod:`augkit.testing` (random weights run exactly as fast as
trained ones), tokenizers trained on the shared Quora questions and padded to the real
vocabulary sizes so every output layer costs what the real one does:

- generator: t5-base shape (``t5_base_shape()``: 768 wide, 12 + 12 layers, 12 heads,
  feed-forward 3,072, 32,100 tokens with 100 sentinels);
- substitution masked LM and BERTScore encoder: one bert-base shape model
  (``bert_base_shape()``; the paper's BERTScore model, roberta-large-mnli, is about three
  times bigger per token);
- fluency: gpt2-small shape (``gpt2_small_shape()``).

A random T5 rarely ends a sequence, so every infilling runs to ``--max-new-tokens`` (32;
a trained T5 ends a Quora-length infilling after about 15-20 tokens, and the authors' code
stopped at 20). Nor does it write T5's span sentinels, so every beam would fill back to the
bare keywords and collapse into one candidate per keyword order: scoring would see a
tenth of the candidates of a real run. The benchmark therefore lets the real beam search run
(its full cost) and then hands the pipeline, in place of each generated text, a stand-in
infilling of realistic shape: the template's sentinels with 0-3 common Quora words in each
span, drawn from a generator seeded by the input and the beam's rank (``StandInInfillings``).
Every step after generation then sees as many distinct candidates, of about the length of a
Quora question, as with a trained T5. ``--raw-outputs`` turns the stand-in off.

Settings: ``paper`` (permutations 15, num_beams 20, num_return 10, appendix A and the
authors' code) on ``--paper-sentences`` sentences that get all 15 keyword orders (5 or more
keywords: most Quora questions have 1-3 and get 1-5 orders), and ``light`` (3 orders, 4
beams, 2 returns) on the first ``--light-sentences``. Inputs: distinct Quora questions
(val.q1 of the shared data), in file order. Each repeat runs both ways, batched (``batch_size=--batch-size``, capped at the
sentence count) and one sentence at a time (``batch_size=1``), alternating which goes first;
medians are reported. Per step, time spent in keyword extraction, keyword scoring (T5
teacher forcing), substitution (tagger and masked LM), infilling (T5 beam search),
BERTScore and fluency is measured by wrapping those functions; "other" is the rest (the
pipeline, dedup, diversity, ranking). The run checks both ways give identical outputs,
records every T5 beam-search call (inputs, beams, seconds) and measures how float32 matrix
products of the model's shapes speed up with the number of rows.

    .venv/bin/python benchmarks/paramac_throughput.py --out benchmarks/results/paramac_throughput.json
    .venv/bin/python benchmarks/paramac_throughput.py --settings light   # measure one again, keep the other

An existing ``--out`` file keeps the settings this run does not measure.
"""

from __future__ import annotations

import os

# OpenMP threads that spin while waiting collapse when another process shares the cores
# (10x slower here with another test run going); read when the runtime starts, before torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import functools
import json
import platform
import random
import re
import statistics
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
QUORA = Path("quora_pairs") / "paragen"
RESULTS = REPO / "benchmarks" / "results" / "paramac_throughput.json"

#: The two searches timed: the paper's (appendix A; 20 beams and 10 returns are the authors'
#: code) and a light one.
SETTINGS = {
    "paper": {"permutations": 15, "num_beams": 20, "num_return": 10},
    "light": {"permutations": 3, "num_beams": 4, "num_return": 2},
}
#: Steps timed inside the pipeline: (label, module, owner attribute path, function name).
STEPS = (
    ("keyword extraction", "augkit_paramac.plan", None, "extract_keywords"),
    ("keyword scoring (T5)", "augkit_paramac.plan", "Planner", "filtered"),
    ("substitution (tagger, BERT MLM)", "augkit_paramac.plan", "Planner", "substitute"),
    ("infilling (T5 beam search)", "augkit_paramac.augmenter", "ParaMac", "infill"),
    ("bertscore (BERT)", "augkit.filters.bertscore", "BertScoreScorer", "score_batch"),
    ("fluency (GPT-2)", "augkit.filters.fluency", "FluencyScorer", "score_batch"),
)
#: Row counts of the matrix-product sweep: one beam, the light search's beams of one order,
#: one sentence's orders x beams in the light search, the paper's beams of one order, of 3
#: orders, of a full token-budget batch (12 orders of 16 tokens), of two.
SWEEP_ROWS = (1, 4, 12, 20, 60, 240, 480)
#: Words a stand-in span draws from: the most frequent lower-cased words of the Quora questions.
STAND_IN_WORDS = 2000
_SENTINEL = re.compile(r"<extra_id_(\d+)>")

try:
    from benchmarks.semantic_throughput import matmul_peak_gflops
except ModuleNotFoundError:  # run as a script: benchmarks/ itself is on sys.path
    from semantic_throughput import matmul_peak_gflops


# -- inputs and models ----------------------------------------------------------------------


def quora_lines(data: Path) -> list[str]:
    """Every distinct question of the shared Quora pairs (val and dev, both sides)."""
    lines: list[str] = []
    for path in sorted((data / QUORA).glob("*/*.q[12]")):
        lines += path.read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(line.strip() for line in lines if line.strip()))


def quora_questions(data: Path, count: int, start: int = 0) -> list[str]:
    """Distinct questions of val.q1, in file order."""
    lines = (data / QUORA / "head_0a142eb" / "val.q1").read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(line.strip() for line in lines if line.strip()))[start : start + count]


def full_search_questions(data: Path, count: int, permutations: int) -> list[str]:
    """The first ``count`` distinct val.q1 questions that get ``permutations`` keyword orders:
    enough keywords left after ``drop_rate`` filtering (5 or more found, with the default
    0.15 and 15 orders). Counted with the plugin's own rules (extraction, the planner's
    dropped count, :func:`keyword_orders`)."""
    from augkit_paramac import ParaMac
    from augkit_paramac.keywords import extract_keywords
    from augkit_paramac.permutation import keyword_orders

    planner = ParaMac(permutations=permutations).planner()
    chosen = []
    for text in quora_questions(data, 10**9):
        found = len(extract_keywords(text))
        kept = found - planner.dropped_count(found)
        if len(keyword_orders(kept, permutations, random.Random(0))) == permutations:
            chosen.append(text)
            if len(chosen) == count:
                return chosen
    raise SystemExit(f"only {len(chosen)} questions get {permutations} keyword orders; {count} asked")


def build_models(root: Path, texts: list[str], vocab_size: int) -> dict[str, Path]:
    """The three models at their real shapes, built once under ``root`` (reused when the
    shape record matches)."""
    from augkit.testing import (
        bert_base_shape,
        build_bert_masked_lm,
        build_gpt2_causal_lm,
        build_t5_model,
        gpt2_small_shape,
        t5_base_shape,
    )

    record = {"t5": t5_base_shape(), "bert": bert_base_shape(), "gpt2": gpt2_small_shape(), "vocab_size": vocab_size,
              "texts": len(texts)}
    stamp = root / "shapes.json"
    folders = {"t5": root / "t5-base", "bert": root / "bert-base", "gpt2": root / "gpt2-small"}
    if stamp.exists() and json.loads(stamp.read_text()) == record and all((f / "config.json").exists() for f in folders.values()):
        return folders
    started = time.perf_counter()
    build_t5_model(folders["t5"], texts, vocab_size=vocab_size, **t5_base_shape())
    build_bert_masked_lm(folders["bert"], texts, vocab_size=vocab_size, **bert_base_shape())
    build_gpt2_causal_lm(folders["gpt2"], texts, vocab_size=vocab_size, **gpt2_small_shape())
    stamp.write_text(json.dumps(record, indent=2) + "\n")
    print(f"built the three models in {time.perf_counter() - started:.0f}s under {root}", flush=True)
    return folders


# -- instrumentation ------------------------------------------------------------------------


class StepClock:
    """Seconds spent in each of :data:`STEPS` during the current label (outermost call only,
    so a step calling another is not counted twice), and the candidates infilling returned."""

    def __init__(self):
        self.label = "untracked"
        self.seconds: dict[str, Counter] = {}
        self.candidates: dict[str, list[int]] = {}
        self._depth = 0

    def install(self) -> None:
        import importlib

        for step, module_name, owner_name, function in STEPS:
            module = importlib.import_module(module_name)
            owner = getattr(module, owner_name) if owner_name else module
            setattr(owner, function, self._timed(step, getattr(owner, function)))

    def _timed(self, step: str, function):
        clock = self

        @functools.wraps(function)
        def timed(*args, **kwargs):
            clock._depth += 1
            start = time.perf_counter()
            try:
                result = function(*args, **kwargs)
                if function.__name__ == "infill":
                    clock.candidates.setdefault(clock.label, []).extend(len(row) for row in result)
                return result
            finally:
                clock._depth -= 1
                if clock._depth == 0:
                    clock.seconds.setdefault(clock.label, Counter())[step] += time.perf_counter() - start

        return timed


class GenerateLog:
    """Every beam-search call of the T5 model under the current label: inputs, padded width,
    beams, new tokens per returned sequence, seconds."""

    def __init__(self):
        self.label = "untracked"
        self.calls: dict[str, list[dict]] = {}

    def wrap(self, model) -> None:
        original = model.generate
        pad, eos = model.generation_config.pad_token_id, model.generation_config.eos_token_id

        def generate(*args, **kwargs):
            start = time.perf_counter()
            sequences = original(*args, **kwargs)
            seconds = time.perf_counter() - start
            ids = sequences if hasattr(sequences, "shape") else sequences.sequences
            new = ids[:, 1:]
            lengths = ((new != pad) & (new != eos)).sum(dim=1) + (new == eos).any(dim=1).long()
            mask = kwargs["attention_mask"]
            self.calls.setdefault(self.label, []).append({
                "inputs": int(mask.shape[0]), "padded_width": int(mask.shape[1]), "beams": int(kwargs.get("num_beams", 1)),
                "sequences": int(ids.shape[0]), "new_tokens": dict(Counter(int(n) for n in lengths)), "seconds": seconds,
            })
            return sequences

        model.generate = generate

    def summary(self, label: str) -> dict:
        calls = self.calls.get(label, [])
        tokens: Counter = Counter()
        for call in calls:
            tokens.update({int(k): v for k, v in call["new_tokens"].items()})
        rows = [call["inputs"] * call["beams"] for call in calls]
        steps = sum(call["inputs"] * call["beams"] * max(int(k) for k in call["new_tokens"]) for call in calls)
        seconds = sum(call["seconds"] for call in calls)
        return {
            "calls": len(calls), "inputs": sum(call["inputs"] for call in calls),
            "decoder_rows_per_call": dict(sorted(Counter(rows).items())),
            "mean_decoder_rows_per_call": statistics.fmean(rows) if rows else 0.0,
            "new_tokens_per_sequence": dict(sorted(tokens.items())),
            "beam_search_seconds": seconds,
            "decoder_row_steps": steps, "decoder_row_steps_per_s": steps / seconds if seconds else 0.0,
        }


class StandInInfillings:
    """Runs the infiller's real beam search, then returns in place of each generated text a
    stand-in infilling of the input's template: its sentinels in order, 0-3 common Quora
    words in each span (about a Quora question's length with the keywords), a question mark
    at the end. Drawn from a generator seeded by the input text and the beam's rank, so the
    same input gets the same stand-ins whatever the batch."""

    def __init__(self, model, words: list[str]):
        self.words = words
        self.raw_first_sentinel = Counter()  # generated texts holding <extra_id_0>, and all
        original = model.generate

        def generate(texts, *args, **kwargs):
            result = original(texts, *args, **kwargs)
            for outputs in result.texts:
                self.raw_first_sentinel.update({"with": sum("<extra_id_0>" in text for text in outputs), "all": len(outputs)})
            result.texts = [[self.stand_in(text, rank) for rank in range(len(outputs))]
                            for text, outputs in zip(texts, result.texts, strict=True)]
            return result

        model.generate = generate

    def stand_in(self, model_input: str, rank: int) -> str:
        spans = len({int(n) for n in _SENTINEL.findall(model_input)})
        keyword_words = len(_SENTINEL.sub(" ", model_input).split())
        rng = random.Random(f"{model_input}\x00{rank}")
        total = rng.randint(max(2, 8 - keyword_words), max(4, 13 - keyword_words))
        counts = [0] * spans
        for _ in range(total):
            counts[rng.randrange(spans)] += 1
        pieces = []
        for index, count in enumerate(counts):
            pieces.append(f"<extra_id_{index}>")
            pieces += [rng.choice(self.words) for _ in range(count)]
        return " ".join(pieces) + " ?"


def common_words(texts: list[str], count: int) -> list[str]:
    counts = Counter(word for text in texts for word in text.lower().split() if word.isalpha())
    return [word for word, _ in counts.most_common(count)]


# -- timing ---------------------------------------------------------------------------------


def run_once(texts: list[str], batch_size: int, params: dict, seed: int, n: int) -> list[list[str]]:
    import augkit

    return augkit.augment(texts, method="paramac", n=n, seed=seed, batch_size=batch_size, progress=False, **params)


def alternate(texts: list[str], params: dict, args, clock: StepClock, log: GenerateLog, setting: str) -> dict:
    """``--repeats`` rounds of both ways, alternating which runs first; per way the seconds,
    CPU seconds, load, step times and beam-search calls of each round."""
    batch = min(args.batch_size, len(texts))
    ways = {"batched": batch, "one_at_a_time": 1}
    rounds: dict[str, list[dict]] = {way: [] for way in ways}
    outputs: dict[str, list[list[str]]] = {}
    for repeat in range(args.repeats):
        order = list(ways) if repeat % 2 == 0 else list(reversed(ways))
        for way in order:
            label = f"{setting}/{way}/{repeat}"
            clock.label = log.label = label
            load = os.getloadavg()[0]
            cpu, wall = time.process_time(), time.perf_counter()
            result = run_once(texts, ways[way], params, args.seed, args.n)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            clock.label = log.label = "untracked"
            outputs.setdefault(way, result)
            if result != outputs[way]:
                raise SystemExit(f"{label}: outputs differ from this way's first round")
            steps = dict(clock.seconds.get(label, {}))
            steps["other (pipeline, dedup, diversity, ranking)"] = wall - sum(steps.values())
            rounds[way].append({"seconds": wall, "cpu_seconds": cpu, "load_1min_before": load, "steps": steps,
                                "generation": log.summary(label), "candidates": clock.candidates.get(label, [])})
            print(f"  {setting} {way:<14} round {repeat}: {wall:7.1f}s (cpu {cpu:.0f}s, load {load:.2f})", flush=True)
    same = outputs["batched"] == outputs["one_at_a_time"]
    differing = sum(a != b for a, b in zip(outputs["batched"], outputs["one_at_a_time"]))
    return {"batch_size": batch, "rounds": rounds, "identical_outputs": same, "rows_differing": differing,
            "outputs": outputs["batched"]}


def median_round(rounds: list[dict]) -> dict:
    """The round of median seconds (the lower middle one for an even count)."""
    ordered = sorted(rounds, key=lambda r: r["seconds"])
    return ordered[(len(ordered) - 1) // 2]


# -- the matrix-product sweep ---------------------------------------------------------------


def rows_sweep(repeats: int = 7) -> list[dict]:
    """GFLOP/s of the decoder's two kinds of product at each row count of
    :data:`SWEEP_ROWS`: its feed-forward (768 x 3,072) and its output layer (768 x 32,100)."""
    import torch

    shapes = {"feed-forward 768x3072": (768, 3072), "output layer 768x32100": (768, 32100)}
    table = []
    for name, (inner, outer) in shapes.items():
        weight = torch.randn(outer, inner)
        for rows in SWEEP_ROWS:
            x = torch.randn(rows, inner)
            calls = max(1, 480 // rows)
            for _ in range(3):
                torch.nn.functional.linear(x, weight)
            best = float("inf")
            for _ in range(repeats):
                start = time.perf_counter()
                for _ in range(calls):
                    torch.nn.functional.linear(x, weight)
                best = min(best, (time.perf_counter() - start) / calls)
            table.append({"product": name, "rows": rows, "gflops": 2 * rows * inner * outer / best / 1e9})
    return table


# -- report ---------------------------------------------------------------------------------


def setting_summary(setting: str, texts: list[str], params: dict, measured: dict) -> dict:
    """Medians of both ways, their ratio and each step's; candidates: what infilling handed
    the scorers (distinct infilled texts), the same in every round."""
    batched, single = median_round(measured["rounds"]["batched"]), median_round(measured["rounds"]["one_at_a_time"])
    candidates = batched["candidates"]
    if any(r["candidates"] != candidates for way in measured["rounds"].values() for r in way):
        raise SystemExit(f"{setting}: candidates per sentence differ between rounds")
    total = sum(candidates)
    summary = {"setting": setting, "sentences": len(texts), "params": params, "batch_size": measured["batch_size"],
               "candidates": total, "candidates_per_sentence": dict(sorted(Counter(candidates).items())),
               "identical_outputs": measured["identical_outputs"], "rows_differing": measured["rows_differing"]}
    for way, chosen in (("batched", batched), ("one_at_a_time", single)):
        summary[way] = {
            "median_seconds": chosen["seconds"],
            "all_seconds": [r["seconds"] for r in measured["rounds"][way]],
            "cpu_seconds": chosen["cpu_seconds"],
            "load_1min_before": [r["load_1min_before"] for r in measured["rounds"][way]],
            "candidates_per_s": total / chosen["seconds"], "sentences_per_s": len(texts) / chosen["seconds"],
            "steps_seconds": chosen["steps"], "generation": chosen["generation"],
        }
    summary["ratio"] = single["seconds"] / batched["seconds"]
    summary["step_ratios"] = {step: single["steps"][step] / batched["steps"][step]
                              for step in batched["steps"] if batched["steps"].get(step, 0) > 0 and step in single["steps"]}
    return summary


def print_summary(summary: dict) -> None:
    b, s = summary["batched"], summary["one_at_a_time"]
    print(f"\n{summary['setting']}: {summary['sentences']} sentences, {summary['candidates']} candidates, "
          f"batch {summary['batch_size']} vs 1: {b['median_seconds']:.1f}s vs {s['median_seconds']:.1f}s, "
          f"{b['candidates_per_s']:.1f} vs {s['candidates_per_s']:.1f} candidates/s, ratio {summary['ratio']:.2f}x, "
          f"identical outputs: {summary['identical_outputs']}")
    print(f"  {'step':<46}{'batched s':>10}{'share':>7}{'one-by-one s':>14}{'share':>7}{'ratio':>7}")
    for step in b["steps_seconds"]:
        bs, ss = b["steps_seconds"][step], s["steps_seconds"].get(step, 0.0)
        ratio = f"{ss / bs:.2f}" if bs > 0 else ""
        print(f"  {step:<46}{bs:>10.1f}{bs / b['median_seconds']:>7.0%}{ss:>14.1f}{ss / s['median_seconds']:>7.0%}{ratio:>7}")
    for way in ("batched", "one_at_a_time"):
        g = summary[way]["generation"]
        print(f"  {way}: {g['calls']} beam-search calls, {g['mean_decoder_rows_per_call']:.0f} decoder rows per call, "
              f"{g['decoder_row_steps_per_s']:.0f} row-steps/s, new tokens {g['new_tokens_per_sequence']}")


def merge_earlier(results: dict, path: Path, measured: list[str]) -> list[str]:
    """Settings found in an earlier result file at ``path`` and not measured in this run are
    carried into ``results`` (each setting records when and under which load it was
    measured), so one setting can be measured again alone; their names."""
    if not path.exists():
        return []
    earlier = json.loads(path.read_text(encoding="utf-8"))
    kept = [entry for entry in earlier.get("settings", []) if entry["setting"] not in measured]
    results["settings"] = sorted(kept + results["settings"], key=lambda entry: list(SETTINGS).index(entry["setting"]))
    for entry in kept:
        results["outputs"][entry["setting"]] = earlier["outputs"][entry["setting"]]
    return [entry["setting"] for entry in kept]


def machine() -> dict:
    model = ""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        model = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": model or platform.processor(), "cpus": os.cpu_count(), "machine": platform.machine(),
            "python": platform.python_version()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="the shared data folder")
    parser.add_argument("--settings", default="paper,light", help="which of: paper, light (comma-separated)")
    parser.add_argument("--paper-sentences", type=int, default=6, help="distinct Quora questions with 15 keyword orders, for the paper's search")
    parser.add_argument("--light-sentences", type=int, default=64, help="distinct Quora questions for the light search")
    parser.add_argument("--batch-size", type=int, default=32, help="rows per batch of the batched way (capped at the sentences)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of both ways (median reported)")
    parser.add_argument("--max-new-tokens", type=int, default=32, help="longest infilling (a random T5 always reaches it)")
    parser.add_argument("--n", type=int, default=5, help="outputs kept per sentence")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--vocab-size", type=int, default=16000, help="pieces asked of each tokenizer trainer (padded after)")
    parser.add_argument("--raw-outputs", action="store_true", help="give the pipeline the random T5's own texts (no stand-ins)")
    parser.add_argument("--models", type=Path, default=REPO / ".cache" / "bench-models" / "paramac")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        parser.error(f"unknown setting(s) {', '.join(unknown)}; available: {', '.join(SETTINGS)}")

    started = time.perf_counter()
    load_start = os.getloadavg()
    print(f"load average at start: {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} on {os.cpu_count()} CPUs", flush=True)
    import torch
    import transformers

    from augkit.plugin import load_masked_lm, load_seq2seq

    torch.set_num_threads(args.threads)
    transformers.utils.logging.disable_progress_bar()
    training = quora_lines(args.data)
    folders = build_models(args.models, training, args.vocab_size)
    common = dict(generator=str(folders["t5"]), substitution_model=str(folders["bert"]), semantic_model=str(folders["bert"]),
                  fluency_model=str(folders["gpt2"]), max_new_tokens=args.max_new_tokens, device="cpu")
    peak = matmul_peak_gflops()
    print(f"matmul peak: {peak:.0f} GFLOP/s on {args.threads} threads", flush=True)

    clock, log = StepClock(), GenerateLog()
    clock.install()
    infiller = load_seq2seq(common["generator"], device="cpu")
    log.wrap(infiller.model)
    stand_in = None if args.raw_outputs else StandInInfillings(infiller, common_words(training, STAND_IN_WORDS))
    load_masked_lm(common["substitution_model"], device="cpu")
    warm = quora_questions(args.data, 2, start=1000)
    run_once(warm, 2, {**common, **SETTINGS["light"]}, args.seed, args.n)  # loads the models, first-call allocations
    print("models loaded and warmed up", flush=True)

    summaries, outputs = [], {}
    for setting in settings:
        if setting == "paper":
            *texts, spare = full_search_questions(args.data, args.paper_sentences + 1, SETTINGS["paper"]["permutations"])
        else:
            texts, spare = quora_questions(args.data, args.light_sentences), warm[0]
        params = {**common, **SETTINGS[setting]}
        run_once([spare], 1, params, args.seed, args.n)  # this search's first-call allocations
        setting_started, setting_load = time.perf_counter(), os.getloadavg()
        measured = alternate(texts, params, args, clock, log, setting)
        summary = setting_summary(setting, texts, SETTINGS[setting], measured)
        summary["measured"] = {"at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "minutes": (time.perf_counter() - setting_started) / 60,
                               "load_average_before": setting_load, "load_average_after": os.getloadavg(), "matmul_peak_gflops": peak}
        print_summary(summary)
        summaries.append(summary)
        outputs[setting] = {"texts": texts, "outputs": measured["outputs"]}

    sweep = rows_sweep()
    print("\nfloat32 products, GFLOP/s by rows:")
    for entry in sweep:
        print(f"  {entry['product']:<24} rows {entry['rows']:>4}: {entry['gflops']:6.1f}")
    load_end = os.getloadavg()
    total = time.perf_counter() - started
    print(f"load average at end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}; total {total / 60:.1f} min", flush=True)
    results = {
        "setup": {
            "models": {"generator": "t5-base shape (t5_base_shape)", "substitution and bertscore": "bert-base shape (bert_base_shape)",
                       "fluency": "gpt2-small shape (gpt2_small_shape)", "weights": "random"},
            "inputs": ("distinct Quora questions, shared data quora_pairs/paragen/head_0a142eb/val.q1, in file order; "
                       "paper: the first that get all 15 keyword orders; light: the first ones"),
            "max_new_tokens": args.max_new_tokens, "stand_in_infillings": stand_in is not None, "n": args.n, "seed": args.seed,
            "repeats": args.repeats, "threads": args.threads, "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
            "torch": torch.__version__, "transformers": transformers.__version__, "machine": machine(),
            "matmul_peak_gflops": peak, "load_average_start": load_start, "load_average_end": load_end,
            "total_minutes": total / 60,
        },
        "raw_t5_outputs_with_first_sentinel": dict(stand_in.raw_first_sentinel) if stand_in else None,
        "settings": summaries,
        "matmul_rows_sweep": sweep,
        "outputs": outputs,
    }
    kept_from_before = merge_earlier(results, args.out, settings)
    if kept_from_before:
        print(f"kept the earlier results of {', '.join(kept_from_before)} from {args.out}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
