"""Batched against one-text-at-a-time: masked-LM fills and causal-LM scoring at real sizes.

Two random-weight models are built in the run with augkit.testing at their real shapes:
BERT-base (``bert_base_shape()``: 12 layers, hidden 768, 12 heads, 30,522 tokens) and GPT-2
small (``gpt2_small_shape()``: 12 layers, 768 wide, 50,257 tokens), tokenizers trained on
BANKING77's training texts (padded with filler tokens to the real vocabulary size, so the
output layers cost what the real ones do). Random weights run exactly as fast as trained
ones. Workloads, on ``--texts`` distinct BANKING77 test texts, each timed ``--repeats`` times
(median reported):

- masked LM: ``MaskedLM.fill(texts, spans, k=5)``, one span per text (its middle word),
  all texts in one call (token-budget batches) against one call per text;
- causal LM: ``CausalLM.mean_logprob(texts)``, one call against one call per text.

Each is also timed against the peer way of doing it one text at a time with transformers
itself, on the same loaded model: the ``fill-mask`` pipeline per masked text (top 5, as
nlpaug's contextual word substitution and most augmentation code call it), and per text
``model(ids, labels=ids).loss`` (transformers' documented perplexity recipe).

The run checks that both ways give the same results (largest difference printed), and
writes the medians and ratios as JSON.

    python benchmarks/model_batching.py --out benchmarks/results/model_batching.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data")) / "banking77"


def distinct_texts(data: Path, count: int) -> list[str]:
    import pandas as pd

    texts = list(dict.fromkeys(pd.read_csv(data / "polyai" / "test.csv")["text"].astype(str)))
    if len(texts) < count:
        sys.exit(f"{data} has {len(texts)} distinct test texts; {count} asked")
    return texts[:count]


def middle_word_span(text: str) -> tuple[int, int]:
    """Character span of the text's middle whitespace-separated word."""
    words, position = [], 0
    for word in text.split():
        start = text.index(word, position)
        words.append((start, start + len(word)))
        position = start + len(word)
    return words[len(words) // 2]


def timed(label: str, function, repeats: int) -> tuple[float, object]:
    """Median seconds of ``repeats`` calls, and the last result (each timing printed)."""
    seconds, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        seconds.append(time.perf_counter() - start)
        print(f"  {label}: {seconds[-1]:.2f}s", flush=True)
    return statistics.median(seconds), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the banking77 folder of the shared data")
    parser.add_argument("--texts", type=int, default=96, help="distinct BANKING77 test texts")
    parser.add_argument("--repeats", type=int, default=3, help="timings per workload (median reported)")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args()

    import torch

    from augkit.models import clear_model_cache, load_causal_lm, load_masked_lm
    from augkit.testing import (
        bert_base_shape,
        build_bert_masked_lm,
        build_gpt2_causal_lm,
        gpt2_small_shape,
    )

    torch.set_num_threads(args.threads)
    texts = distinct_texts(args.data, args.texts)
    spans = [[middle_word_span(text)] for text in texts]
    training = (args.data / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    results: dict = {
        "texts": len(texts), "repeats": args.repeats, "threads": args.threads,
        "torch": torch.__version__, "machine": f"{platform.machine()} {platform.processor() or platform.system()}",
    }
    with tempfile.TemporaryDirectory() as root:
        started = time.perf_counter()
        bert = build_bert_masked_lm(Path(root) / "bert-base", training, vocab_size=8000, **bert_base_shape())
        gpt2 = build_gpt2_causal_lm(Path(root) / "gpt2-small", training, vocab_size=8000, **gpt2_small_shape())
        print(f"built both models in {time.perf_counter() - started:.0f}s", flush=True)
        masked = load_masked_lm(str(bert), device="cpu")
        causal = load_causal_lm(str(gpt2), device="cpu")
        masked.fill(texts[:4], spans[:4], k=5)  # warm-up: first-call allocations
        causal.mean_logprob(texts[:4])
        print("loaded and warmed up", flush=True)

        batched, batched_fills = timed("masked LM, batched", lambda: masked.fill(texts, spans, k=5), args.repeats)
        single, single_fills = timed("masked LM, one by one", lambda: [masked.fill([t], [s], k=5)[0] for t, s in zip(texts, spans)], args.repeats)
        same_tokens = all([f.token for f in a[0]] == [f.token for f in b[0]] for a, b in zip(batched_fills, single_fills))
        fill_difference = max(abs(f.logprob - g.logprob) for a, b in zip(batched_fills, single_fills) for f, g in zip(a[0], b[0]))
        results["masked_lm"] = _entry(batched, single, len(texts), fill_difference, same_tokens)

        batched, batched_scores = timed("causal LM, batched", lambda: causal.mean_logprob(texts), args.repeats)
        single, single_scores = timed("causal LM, one by one", lambda: [causal.mean_logprob([t])[0] for t in texts], args.repeats)
        score_difference = max(abs(a - b) for a, b in zip(batched_scores, single_scores))
        results["causal_lm"] = _entry(batched, single, len(texts), score_difference, True)
        results["masked_lm"]["peer"] = _peer_fill_mask(masked, texts, spans, args.repeats, results["masked_lm"]["batched_s"])
        results["causal_lm"]["peer"] = _peer_causal_loss(causal, texts, args.repeats, results["causal_lm"]["batched_s"])
        clear_model_cache()

    print(f"{len(texts)} distinct BANKING77 texts, torch {torch.__version__}, {args.threads} threads, median of {args.repeats}")
    print(f"{'workload':<28}{'batched s':>10}{'one by one s':>14}{'ratio':>8}{'max diff':>11}")
    for name, label in (("masked_lm", "masked-LM fill (BERT-base)"), ("causal_lm", "causal-LM score (GPT-2 small)")):
        entry = results[name]
        print(f"{label:<28}{entry['batched_s']:>10.2f}{entry['one_by_one_s']:>14.2f}{entry['ratio']:>7.1f}x{entry['max_difference']:>11.1e}")
        peer = entry["peer"]
        print(f"{'  peer: ' + peer['how']:<42}{peer['one_by_one_s']:>10.2f} s, batched augkit {peer['ratio']:.1f}x faster")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def _peer_fill_mask(masked, texts, spans, repeats: int, batched_s: float) -> dict:
    """transformers' fill-mask pipeline, one masked text per call, top 5."""
    from transformers import pipeline

    fill = pipeline("fill-mask", model=masked.model, tokenizer=masked.tokenizer, device=-1, top_k=5)
    masked_texts = [masked.mask_spans(text, span) for text, span in zip(texts, spans)]
    fill(masked_texts[0])  # warm-up
    seconds, _ = timed("masked LM, peer fill-mask pipeline one by one", lambda: [fill(t) for t in masked_texts], repeats)
    return {"how": "fill-mask pipeline, one text per call", "one_by_one_s": round(seconds, 3), "ratio": round(seconds / batched_s, 2)}


def _peer_causal_loss(causal, texts, repeats: int, batched_s: float) -> dict:
    """Per text, ``model(ids, labels=ids).loss``: transformers' perplexity recipe."""
    import torch

    def score_each():
        losses = []
        with torch.inference_mode():
            for text in texts:
                ids = causal.tokenizer(causal.tokenizer.bos_token + text, return_tensors="pt").input_ids
                losses.append(float(causal.model(ids, labels=ids).loss))
        return losses

    score_each()  # warm-up
    seconds, _ = timed("causal LM, peer model(labels=ids) one by one", score_each, repeats)
    return {"how": "model(ids, labels=ids).loss, one text per call", "one_by_one_s": round(seconds, 3),
            "ratio": round(seconds / batched_s, 2)}


def _entry(batched: float, single: float, count: int, difference: float, same_tokens: bool) -> dict:
    return {
        "batched_s": round(batched, 3), "one_by_one_s": round(single, 3), "ratio": round(single / batched, 2),
        "texts_per_s_batched": round(count / batched, 1), "texts_per_s_one_by_one": round(count / single, 1),
        "max_difference": difference, "same_top_tokens": same_tokens,
    }


if __name__ == "__main__":
    main()
