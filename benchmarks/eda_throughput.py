"""Throughput of augkit's EDA against nlpaug's equivalent word augmenters, same inputs, same run.

Inputs: the first 10,000 texts of BANKING77's official training CSV (../shared/data).
Peers, configured to the same edit rule (max(1, int(0.1 * words)) edits, at least one):

- synonym replacement: nlpaug ``SynonymAug(aug_src="wordnet", aug_p=0.1)`` vs augkit EDA
  with only ``alpha_sr=0.1``, with EDA's default safe synonyms (POS-tagged, sense chosen by
  the sentence) and with the paper's ``synonyms="wordnet-all"``;
- random swap: nlpaug ``RandomWordAug(action="swap", aug_p=0.1)`` vs EDA ``alpha_rs=0.1``;
- random deletion: nlpaug ``RandomWordAug(action="delete", aug_p=0.1)`` vs EDA ``p_rd=0.1``;
- the EDA set: one synonym replacement, one swap and one deletion of every sentence (nlpaug:
  the three augmenters in turn; augkit: EDA without insertion, ``n=3``).

augkit runs through its public ``augkit.augment`` (seeding, pipeline, duplicate removal
included). nlpaug is timed through its batch API (a list) and one call per text, and credited
with the faster. Both are warmed up on 200 test-split sentences
first; each measurement is the best of ``--repeats`` interleaved runs. nlpaug's SynonymAug
POS-tags with NLTK's perceptron tagger, whose data cannot be downloaded here, so it is given
TextBlob's offline PatternTagger instead, and WordNet through NLTK_DATA (``make bench`` lays
it out). Cold start: a fresh interpreter imports the EDA plugin and looks up one synonym.

Usage: ``make bench`` or ``python benchmarks/eda_throughput.py [--sentences 10000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
from augkit_eda import EDA

import augkit

try:
    from benchmarks.peers import nlpaug_augmenters
except ModuleNotFoundError:  # run as a script (make bench): benchmarks/ itself is on sys.path
    from peers import nlpaug_augmenters

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
DOC = REPO / "docs" / "benchmarks" / "eda-throughput.md"
RESULTS = REPO / "benchmarks" / "results" / "eda_throughput.json"

#: workload -> (EDA parameters, outputs per sentence, worker processes, nlpaug peer)
WORKLOADS = {
    "synonym replacement (safe synonyms, the default)": (dict(alpha_sr=0.1, alpha_ri=0, alpha_rs=0, p_rd=0), 1, 1, "synonym"),
    "synonym replacement (synonyms=\"wordnet-all\", the paper's)": (
        dict(alpha_sr=0.1, alpha_ri=0, alpha_rs=0, p_rd=0, synonyms="wordnet-all"), 1, 1, "synonym"),
    "random swap": (dict(alpha_sr=0, alpha_ri=0, alpha_rs=0.1, p_rd=0), 1, 1, "swap"),
    "random deletion": (dict(alpha_sr=0, alpha_ri=0, alpha_rs=0, p_rd=0.1), 1, 1, "delete"),
    "EDA set (SR + RS + RD, 3 outputs; safe synonyms)": (dict(alpha_ri=0), 3, 1, "set"),
    "EDA set (SR + RS + RD, 3 outputs; wordnet-all)": (dict(alpha_ri=0, synonyms="wordnet-all"), 3, 1, "set"),
    "EDA set, 2 worker processes / 2 threads (safe synonyms)": (dict(alpha_ri=0), 3, 2, "set"),
}


def load_sentences(count: int, split: str = "train") -> list[str]:
    frame = pd.read_csv(SHARED_DATA / "banking77" / "polyai" / f"{split}.csv")
    texts = frame["text"].tolist()[:count]
    if len(texts) < count:
        raise SystemExit(f"BANKING77 {split} has only {len(texts)} sentences")
    return texts


def nlpaug_peers() -> dict:
    """nlpaug's word augmenters (offline POS tagger, see benchmarks/peers.py) per workload."""
    augmenters = nlpaug_augmenters(aug_p=0.1)
    return {name: [augmenter] for name, augmenter in augmenters.items()} | {"set": list(augmenters.values())}


def run_nlpaug(augmenters: list, texts: list[str], api: str) -> list[list[str]]:
    """nlpaug's batch API (``augment(list)``, with ``num_thread`` threads for "batch, N
    threads") or one ``augment(text)`` call per text."""
    if api.startswith("batch"):
        threads = int(api.split(", ")[1].split()[0]) if ", " in api else 1
        outputs = [augmenter.augment(texts, num_thread=threads) for augmenter in augmenters]
    else:
        outputs = [[augmenter.augment(text)[0] for text in texts] for augmenter in augmenters]
    return [list(row) for row in zip(*outputs)]


def run_augkit(eda: EDA, n: int, texts: list[str], workers: int = 1) -> list[list[str]]:
    return augkit.augment(texts, eda, n=n, seed=0, workers=workers)


def changed_fraction(texts: list[str], outputs: list[list[str]]) -> float:
    produced = sum(len(row) for row in outputs)
    changed = sum(1 for text, row in zip(texts, outputs) for out in row if out != text)
    return changed / produced if produced else 0.0


def measure(workload: str, nlpaug_augs: list, eda: EDA, n: int, workers: int, texts: list[str], repeats: int) -> dict:
    """Best-of-``repeats`` rates, runs interleaved so drifts in machine speed hit both tools;
    nlpaug is timed through each of its APIs and credited with the fastest."""
    apis = ["batch", "per-text"] + ([f"batch, {workers} threads"] if workers > 1 else [])
    nlpaug_times: dict[str, list[float]] = {api: [] for api in apis}
    augkit_times = []
    for _ in range(repeats):
        for api, times in nlpaug_times.items():
            start = time.perf_counter()
            nlpaug_out = run_nlpaug(nlpaug_augs, texts, api)
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        augkit_out = run_augkit(eda, n, texts, workers)
        augkit_times.append(time.perf_counter() - start)
    best_api = min(nlpaug_times, key=lambda api: min(nlpaug_times[api]))
    nlpaug_rate = len(texts) / min(nlpaug_times[best_api])
    augkit_rate = len(texts) / min(augkit_times)
    return {
        "workload": workload,
        "sentences": len(texts),
        "outputs_per_sentence": n,
        "augkit_workers": workers,
        "nlpaug_sentences_per_s": nlpaug_rate,
        "augkit_sentences_per_s": augkit_rate,
        "ratio": augkit_rate / nlpaug_rate,
        "nlpaug_api": best_api,
        "nlpaug_seconds": nlpaug_times,
        "augkit_seconds": augkit_times,
        "nlpaug_outputs": sum(len(r) for r in nlpaug_out),
        "augkit_outputs": sum(len(r) for r in augkit_out),
        "nlpaug_changed_fraction": changed_fraction(texts, nlpaug_out),
        "augkit_changed_fraction": changed_fraction(texts, augkit_out),
    }


def cold_start(repeats: int) -> dict:
    """Seconds from a fresh interpreter's first line to its first synonym, augkit and NLTK."""
    probes = {
        "augkit_first_synonym_s": (
            "import time; t = time.perf_counter(); from augkit_eda import EDA; "
            "s = EDA().synonyms_of('buy', 'I want to buy a new card'); assert s; print(time.perf_counter() - t)"
        ),
        "augkit_first_wordnet_all_synonym_s": (
            "import time; t = time.perf_counter(); from augkit_eda import EDA; "
            "s = EDA(synonyms='wordnet-all').synonyms_of('bank'); assert s; print(time.perf_counter() - t)"
        ),
        "augkit_first_augment_s": (
            "import time; t = time.perf_counter(); import augkit; "
            "out = augkit.augment(['I lost my card'], 'eda', n=1, seed=0); assert out[0]; print(time.perf_counter() - t)"
        ),
        "nltk_first_synset_s": (
            "import time; t = time.perf_counter(); from nltk.corpus import wordnet; "
            "s = wordnet.synsets('bank'); assert s; print(time.perf_counter() - t)"
        ),
    }
    results = {}
    for name, code in probes.items():
        times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
                 for _ in range(repeats)]
        results[name] = statistics.median(times)
    return results


def markdown(rows: list[dict], cold: dict, args: argparse.Namespace) -> str:
    import nlpaug

    lines = [
        "# EDA throughput: augkit vs nlpaug",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} with `make bench` (`python benchmarks/eda_throughput.py "
        f"--sentences {args.sentences} --repeats {args.repeats}`) on {os.cpu_count()} CPU cores, "
        f"Python {platform.python_version()}, augkit {augkit.__version__}, nlpaug {nlpaug.__version__}. "
        f"Inputs: the first {args.sentences:,} texts of BANKING77's training CSV, identical for both tools, "
        "in one process; best of the interleaved runs. All rows but the last run both tools in a single "
        "thread; the last gives augkit 2 worker processes (`workers=2`) and lets nlpaug use 2 threads "
        "(`num_thread=2`), credited with its fastest option (its threads slow it down: one thread is "
        "started per call, nlpaug PR #216).",
        "",
        "| workload | outputs/sentence | nlpaug sentences/s (API) | augkit sentences/s | augkit / nlpaug |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['workload']} | {row['outputs_per_sentence']} | {row['nlpaug_sentences_per_s']:,.0f} "
            f"({row['nlpaug_api']}) | {row['augkit_sentences_per_s']:,.0f} | **{row['ratio']:.1f}x** |"
        )
    lines += [
        "",
        "Share of outputs that differ from their input (nlpaug returns the input unchanged when it "
        "finds nothing to edit; augkit returns only changed, distinct texts and may return fewer):",
        "",
        "| workload | nlpaug changed | augkit changed | augkit outputs / requested |",
        "|---|---:|---:|---:|",
    ]
    for row in rows:
        requested = row["sentences"] * row["outputs_per_sentence"]
        lines.append(
            f"| {row['workload']} | {row['nlpaug_changed_fraction']:.1%} | {row['augkit_changed_fraction']:.1%} | "
            f"{row['augkit_outputs'] / requested:.1%} |"
        )
    lines += [
        "",
        "Cold start (fresh interpreter, median of "
        f"{args.cold_repeats}): first EDA synonym lookup **{cold['augkit_first_synonym_s']:.2f} s** "
        f"(import plugin + load the shipped WordNet lexicon and the tagger's data; "
        f"{cold['augkit_first_wordnet_all_synonym_s']:.2f} s with `synonyms=\"wordnet-all\"`, no tagger); "
        f"first `augkit.augment(..., 'eda')` call "
        f"{cold['augkit_first_augment_s']:.2f} s including plugin discovery; NLTK's first "
        f"`wordnet.synsets` {cold['nltk_first_synset_s']:.2f} s.",
        "",
        "Notes",
        "",
        "- nlpaug's SynonymAug POS-tags every sentence with NLTK's perceptron tagger, whose data cannot be "
        "downloaded here; the benchmark gives it TextBlob's offline PatternTagger instead "
        "(a patched `WordNet.pos_tag`), and WordNet 3.0 through NLTK_DATA (Debian's wordnet-base, laid "
        "out by `scripts/nltk_wordnet.sh`). augkit needs neither: EDA ships its own WordNet lexicon.",
        "- EDA's default safe synonyms tag each text once, only its sentences that hold a word with safe synonyms (TextBlob's lexicon and contextual rules, "
        "applied by `augkit_eda.tagging`) and choose each word's sense by gloss overlap, then replace "
        "only words with a synonym that keeps the meaning; `synonyms=\"wordnet-all\"` is the paper's "
        "untagged lookup. The safe mode returns fewer synonym replacements (32% of those asked for on these texts: a "
        "text with no safe synonym gets none) and costs the tagging: see "
        "[the synonym modes](../methods/eda.md#synonyms-safe-by-default-the-papers-on-request).",
        "- augkit pays per sentence for what nlpaug skips: a generator seeded from (seed, method, text), "
        "so the output does not depend on batching (about 5 us of Mersenne Twister seeding per "
        "sentence), input checks, and duplicate removal. Swap and deletion are so cheap in both tools "
        "that these fixed costs set the ratio; where the work is real (synonyms) the gap is widest.",
        "- Against the goal of 10x nlpaug: not reached. Per sentence augkit spends about 5 us seeding "
        "its per-row Mersenne Twister, 4 us splitting words, 10-15 us in the engine (input checks, "
        "candidate objects, duplicate removal) before any edit; nlpaug spends 70-85 us on a whole "
        "swap or deletion, so those ratios cannot pass about 3x in Python without giving up "
        "per-row reproducibility. Worker processes help less than 2x on 2 cores because the parent "
        "process shares them. The timings on this virtual machine vary by up to 30% between runs; "
        "the ratios, measured in the same run, vary less.",
        "- Raw timings: `benchmarks/results/eda_throughput.json`.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cold-repeats", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print only; do not update docs/ and results/")
    args = parser.parse_args(argv)

    texts = load_sentences(args.sentences)
    warm_up = load_sentences(200, split="test")
    peers = nlpaug_peers()
    rows = []
    for workload, (params, n, workers, peer) in WORKLOADS.items():
        eda = EDA(**params)
        run_nlpaug(peers[peer], warm_up, "batch")
        run_augkit(eda, n, warm_up)
        row = measure(workload, peers[peer], eda, n, workers, texts, args.repeats)
        rows.append(row)
        print(f"{workload}: nlpaug {row['nlpaug_sentences_per_s']:,.0f}/s, augkit "
              f"{row['augkit_sentences_per_s']:,.0f}/s, ratio {row['ratio']:.1f}x", flush=True)
    cold = cold_start(args.cold_repeats)
    print(json.dumps(cold, indent=2))
    report = markdown(rows, cold, args)
    print(report)
    if not args.no_write:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(report, encoding="utf-8")
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps({"rows": rows, "cold_start": cold}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
