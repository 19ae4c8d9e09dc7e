"""Requests per second of ``llm_paraphrase`` at concurrency 1 and 8, and its cache's hit path
(issue 18's goals: the same outputs at 1 and 8; a fully cached run at least 100x faster than
the first run).

Texts: the first ``--texts`` distinct texts of BANKING77's test split (the official CSV),
``augkit.augment(texts, "llm_paraphrase", n=2, seed=0, concurrency=C, cache_dir=<fresh>)``
against two OpenAI-compatible servers on 127.0.0.1:

- ``transformers serve`` (transformers' own server, one process, CPU) serving a random
  Qwen2-shaped chat model that :func:`augkit.testing.build_chat_model` writes (2 layers, 64
  wide, a byte-level BPE tokenizer trained on BANKING77's training texts): what the tests'
  ``llm_server`` fixture serves. Random weights run as fast as trained ones; they answer
  random text, so augkit keeps nothing from the replies: the replies themselves (read from
  the run's cache folder) are what is compared between the concurrencies.
- :class:`augkit.testing.llm_servers.ScriptedChatServer` answering every request after a fixed
  ``--latency`` (0.2 s: a stand-in for a GPU server's generation time, the server itself
  doing nothing) with a JSON list made from the request's text and seed: what the client's
  concurrency buys against a server that is latency-bound, not compute-bound.

Each measured run has a fresh cache folder, so every request reaches the server; the same
run is then repeated on the same folder (the cache's hit path: nothing is asked). Rounds
alternate the order of the concurrencies (1, 8 then 8, 1 ...), medians are reported.
Requests/s = requests sent / wall time of the ``augment`` call.

Checked, with the results written either way: augkit sends the same requests (prompts,
sampling settings, seeds: the cache keys) at 1 and 8; the cached run gives the first run's
rows and asks again only the requests that got no text (only replies are cached); a fully
cached run is at least 100x faster than the first; the replies at 8 equal those at 1. The
last fails on ``transformers serve`` (docs/benchmarks/llm-throughput.md: it seeds torch's one
global generator when a request arrives, not when its generation starts), and the script
then exits with status 1.

    AUGKIT_SHARED_DATA=../shared/data .venv/bin/python benchmarks/llm_throughput.py --repeats 5 \
        --out benchmarks/results/llm_throughput.json
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import argparse
import csv
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
BANKING77_TEST = Path("banking77") / "polyai" / "test.csv"
#: The texts the tests' ``tiny_chat_model`` fixture trains its tokenizer on.
BANKING77_TRAIN = Path("banking77") / "jianguoz" / "train" / "seq.in"
RESULTS = REPO / "benchmarks" / "results" / "llm_throughput.json"
CONCURRENCIES = (1, 8)
#: The issue's goal for the hit path: a fully cached run against the first run.
CACHE_GOAL = 100.0
#: Rows augmented before the timed rounds (loads the openai client, warms the server).
WARM_UP_TEXTS = 4


def read_texts(data: Path, count: int) -> list[str]:
    """The first ``count`` distinct texts of BANKING77's test split, in file order."""
    with (data / BANKING77_TEST).open(encoding="utf-8", newline="") as handle:
        texts = list(dict.fromkeys(row["text"].strip() for row in csv.DictReader(handle)))
    if len(texts) < count:
        sys.exit(f"{data / BANKING77_TEST} has {len(texts)} distinct texts; {count} asked")
    return texts[:count]


def scripted_paraphrases(latency: float) -> Callable:
    """A ScriptedChatServer script: after ``latency`` seconds, two "paraphrases" made from the
    request's text and seed, so the rows depend on what was asked and nothing else."""
    from augkit.testing.scripted_chat import reply

    def answer(request: dict):
        text = request["messages"][-1]["content"].split("Text: ", 1)[-1].split("\n", 1)[0]
        seed = request.get("seed")
        return reply(json.dumps([f"{text} (version {seed % 1000})", f"Put otherwise: {text} ({seed % 997})"]), delay=latency)

    return answer


def replies_in(cache_dir: Path) -> dict[str, str]:
    """The cache folder's entries, {file name: reply text}: the file name is a hash of the
    server, model, prompt, sampling settings and seed (``augkit_llm.cache``), so equal names
    mean augkit sent the same request."""
    return {path.name: json.loads(path.read_text(encoding="utf-8"))["text"] for path in cache_dir.rglob("*.json")}


def timed_augment(texts: list[str], options: dict, concurrency: int, cache_dir: Path) -> tuple[float, list, dict]:
    """Seconds of one ``augment_with_report`` call, its rows and its usage."""
    import augkit

    start = time.perf_counter()
    rows, report = augkit.augment_with_report(texts, "llm_paraphrase", n=2, seed=0, progress=False, concurrency=concurrency,
                                              cache_dir=str(cache_dir), **options)
    return time.perf_counter() - start, rows, dict(report.usage)


def measure_server(name: str, texts: list[str], options: dict, repeats: int, scratch: Path) -> dict:
    """Rounds of (first run, cached run) at each concurrency, alternating their order, on a
    fresh cache folder each; the figures and the comparisons of requests and replies."""
    timed_augment(texts[:WARM_UP_TEXTS], options, CONCURRENCIES[0], scratch / f"{name}-warm-up")
    runs = []
    for repeat in range(repeats):
        order = CONCURRENCIES if repeat % 2 == 0 else tuple(reversed(CONCURRENCIES))
        for concurrency in order:
            cache_dir = scratch / f"{name}-{repeat}-c{concurrency}"
            first_s, rows, usage = timed_augment(texts, options, concurrency, cache_dir)
            sent = usage["requests"] - usage["cached"]
            replies = replies_in(cache_dir)
            cached_s, cached_rows, cached_usage = timed_augment(texts, options, concurrency, cache_dir)
            run = {
                "round": repeat + 1, "concurrency": concurrency, "requests_sent": sent, "first_s": first_s,
                "requests_per_s": sent / first_s, "cached_s": cached_s, "cache_speedup": first_s / cached_s,
                "cached_run_sent": cached_usage["requests"] - cached_usage["cached"], "cached_run_same_rows": cached_rows == rows,
                "completion_tokens": usage["completion_tokens"], "rows_with_outputs": sum(1 for row in rows if row),
                "rows": rows, "replies": replies,
                # Only replies with text are cached: a request answered with nothing is asked
                # again by the cached run, alone (what it got then is compared too).
                "requests_without_reply": sent - len(replies),
                "asked_again": {key: text for key, text in replies_in(cache_dir).items() if key not in replies},
            }
            runs.append(run)
            print(f"{name} round {repeat + 1} concurrency {concurrency}: {sent} requests in {first_s:.2f} s "
                  f"({run['requests_per_s']:.2f}/s); cached {cached_s * 1000:.1f} ms ({run['cache_speedup']:.0f}x)", flush=True)
    return summarise(runs)


def summarise(runs: list[dict]) -> dict:
    """Medians per concurrency, ratios, and how each run's requests and replies compare with
    the first run at concurrency 1 (the reference)."""
    reference = next(run for run in runs if run["concurrency"] == CONCURRENCIES[0])
    per = {}
    for concurrency in CONCURRENCIES:
        mine = [run for run in runs if run["concurrency"] == concurrency]
        # The hit path is a run that asks nothing; a run that asked again (see
        # requests_without_reply) is shown in "runs" but is not one.
        hits = [run for run in mine if run["cached_run_sent"] == 0]
        per[concurrency] = {
            "median_first_s": statistics.median(r["first_s"] for r in mine),
            "median_requests_per_s": statistics.median(r["requests_per_s"] for r in mine),
            "fully_cached_runs": len(hits),
            "median_cached_s": statistics.median(r["cached_s"] for r in hits) if hits else None,
            "median_cache_speedup": statistics.median(r["cache_speedup"] for r in hits) if hits else None,
            "min_cache_speedup": min(r["cache_speedup"] for r in hits) if hits else None,
        }
    comparisons = []
    for run in runs:
        same_keys = set(run["replies"]) | set(run["asked_again"]) == set(reference["replies"]) | set(reference["asked_again"])
        same = sum(1 for key, text in run["replies"].items() if reference["replies"].get(key) == text)
        asked_again_same = sum(1 for key, text in run["asked_again"].items() if reference["replies"].get(key) == text)
        comparisons.append({"round": run["round"], "concurrency": run["concurrency"], "same_requests": same_keys,
                            "same_replies": same, "replies": len(run["replies"]), "same_rows": run["rows"] == reference["rows"],
                            "asked_again": len(run["asked_again"]), "asked_again_same_replies": asked_again_same})
    low, high = CONCURRENCIES
    return {
        "by_concurrency": {str(c): figures for c, figures in per.items()},
        f"speedup_{high}_vs_{low}": per[high]["median_requests_per_s"] / per[low]["median_requests_per_s"],
        "same_requests": all(c["same_requests"] for c in comparisons),
        "identical_replies": all(c["same_replies"] == c["replies"] == len(reference["replies"]) for c in comparisons),
        "identical_rows": all(c["same_rows"] for c in comparisons),
        "cached_runs_same_rows": all(r["cached_run_same_rows"] for r in runs),
        "cached_runs_ask_only_the_unanswered": all(r["cached_run_sent"] == r["requests_without_reply"] for r in runs),
        "comparisons_with_first_run_at_1": comparisons,
        "runs": [{key: value for key, value in run.items() if key not in ("rows", "replies", "asked_again")} for run in runs],
    }


def machine() -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from paramac_throughput import machine as described

    return {**described(), "load_average": list(os.getloadavg())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="the shared data folder")
    parser.add_argument("--texts", type=int, default=64, help="distinct BANKING77 test texts, one request each")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of both concurrencies per server (medians reported)")
    parser.add_argument("--max-tokens", type=int, default=48, help="longest reply from transformers serve (a random model rarely stops early)")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the scripted server waits before each reply")
    parser.add_argument("--servers", default="transformers,scripted", help="which of: transformers, scripted")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    import openai
    import torch
    import transformers

    from augkit.testing import build_chat_model
    from augkit.testing.llm_servers import start_transformers_serve
    from augkit.testing.scripted_chat import ScriptedChatServer

    texts = read_texts(args.data, args.texts)
    servers = args.servers.split(",")
    results: dict = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "texts": len(texts), "data": str(BANKING77_TEST), "n": 2, "seed": 0, "repeats": args.repeats,
        "concurrencies": list(CONCURRENCIES), "cache_goal": CACHE_GOAL, "servers": {},
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "openai": openai.__version__},
    }
    with tempfile.TemporaryDirectory(prefix="llm-throughput-") as scratch_name:
        scratch = Path(scratch_name)
        if "transformers" in servers:
            train = (args.data / BANKING77_TRAIN).read_text(encoding="utf-8").splitlines()
            folder = build_chat_model(scratch / "chat", train)
            with start_transformers_serve(folder) as served:
                options = {"base_url": served.base_url, "model": served.model, "max_new_tokens": args.max_tokens}
                figures = measure_server("transformers", texts, options, args.repeats, scratch)
            results["servers"]["transformers serve"] = {
                "model": "random Qwen2ForCausalLM from augkit.testing.build_chat_model (2 layers, 64 wide, BPE on BANKING77 train)",
                "max_tokens": args.max_tokens, "device": "cpu", **figures}
        if "scripted" in servers:
            with ScriptedChatServer(scripted_paraphrases(args.latency)) as server:
                options = {"base_url": server.base_url, "model": "scripted"}
                figures = measure_server("scripted", texts, options, args.repeats, scratch)
                received = len(server.chat_requests)
            results["servers"]["scripted"] = {"latency_s": args.latency, "requests_received": received, **figures}
    results["machine"] = machine()

    failures = []
    for name, figures in results["servers"].items():
        speedups = [f["median_cache_speedup"] for f in figures["by_concurrency"].values() if f["median_cache_speedup"] is not None]
        figures["cache_goal_met"] = bool(speedups) and min(speedups) >= CACHE_GOAL
        print(f"{name}: requests/s " + ", ".join(f"{c}: {f['median_requests_per_s']:.2f}" for c, f in figures["by_concurrency"].items())
              + f"; 8 vs 1: {figures['speedup_8_vs_1']:.2f}x; cache hit path (fully cached runs) "
              + ", ".join(f"{c}: {f['median_cache_speedup'] or 0:.0f}x of {f['fully_cached_runs']}" for c, f in figures["by_concurrency"].items())
              + f"; same requests {figures['same_requests']}, identical replies {figures['identical_replies']}")
        if not figures["same_requests"]:
            failures.append(f"{name}: augkit sent different requests at different concurrencies")
        if not figures["cached_runs_same_rows"] or not figures["cached_runs_ask_only_the_unanswered"]:
            failures.append(f"{name}: a cached run gave other rows, or asked for a request that had a cached reply")
        if not figures["cache_goal_met"]:
            failures.append(f"{name}: the median fully cached run was less than {CACHE_GOAL:g}x faster than the first run (or none was fully cached)")
        if not figures["identical_replies"]:
            failures.append(f"{name}: the server's replies differ between concurrency 1 and 8 for the same requests")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    for failure in failures:
        print(f"NOT MET: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
