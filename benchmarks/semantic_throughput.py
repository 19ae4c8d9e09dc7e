"""Throughput of semantic filtering (embedding + scoring) against encoding one text at a time.

Two workloads on BANKING77 (the official training CSV), both in one process run:

- encoding: 10,000 distinct sentences. Peer: sentence-transformers as is, one
  ``model.encode([text])`` call per sentence (and, for reference, its own batched
  ``encode(texts, batch_size=128)``). augkit: :class:`augkit.models.encoder.SentenceEncoder` at
  batch sizes 1, 32 and 128.
- filtering: EDA candidates (n=4) of 2,500 sentences, 10,000 candidates, each scored
  against its source. Peer: one ``encode`` call for the source and one for the candidate,
  then the cosine (how a filter without batching works). augkit: the ``semantic`` filter as
  ``augkit.augment`` drives it (the sources embedded once in ``prepare``, then pipeline
  batches of 256 sources with their candidates).

One-at-a-time peers are timed on the first ``--peer-sample`` items (their rate does not
depend on how many). The run also measures the machine's float32 matrix-multiply peak
(best of several 1024x1024 products on the same threads) and reports which fraction of it
the real tokens achieve: FLOPs per token are counted from the model's configuration (the
dense layers, plus attention scores and mixing at each text's own length).

    python benchmarks/semantic_throughput.py --out benchmarks/results/semantic_throughput.json
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "banking77" / "polyai" / "train.csv"


def read_sentences(path: Path, count: int) -> list[str]:
    import pandas as pd

    texts = list(dict.fromkeys(pd.read_csv(path)["text"].astype(str)))
    if len(texts) < count:
        sys.exit(f"{path} has {len(texts)} distinct texts; {count} asked")
    return texts[:count]


def matmul_peak_gflops(repeats: int = 30) -> float:
    """Best float32 GFLOP/s of a 1024x1024 matrix product on torch's current threads."""
    import torch

    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    for _ in range(5):
        a @ b
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * 1024**3 / best / 1e9


def flops_per_text(config, length: int) -> float:
    """Forward FLOPs of a BERT-style encoder for one text of ``length`` tokens."""
    hidden, layers, inner = config.hidden_size, config.num_hidden_layers, config.intermediate_size
    dense = 2 * length * (4 * hidden * hidden + 2 * hidden * inner)
    attention = 2 * 2 * length * length * hidden  # scores and weighted sum
    return layers * (dense + attention)


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def peer_one_at_a_time(model, texts: list[str]) -> None:
    for text in texts:
        model.encode([text], normalize_embeddings=True)


def peer_pairs_one_at_a_time(model, pairs: list[tuple[str, str]]) -> list[float]:
    scores = []
    for source, candidate in pairs:
        a = model.encode([source], normalize_embeddings=True)[0]
        b = model.encode([candidate], normalize_embeddings=True)[0]
        scores.append(float(a @ b))
    return scores


def augkit_encoding(texts: list[str], batch_size: int):
    from augkit.models.encoder import SentenceEncoder

    encoder = SentenceEncoder(batch_size=batch_size, cache_size=0)
    _, seconds = timed(encoder.encode, texts)
    return seconds, encoder


def augkit_filtering(sources: list[str], rows: list[list[str]], batch_size: int):
    """The semantic filter as augkit.augment runs it: the sources embedded once in
    ``prepare``, then pipeline batches of sources (augkit.augment's default size) with
    their candidates."""
    from augkit.engine.run import DEFAULT_BATCH_SIZE as engine_batch
    from augkit.filters import BatchContext, DatasetContext, SemanticFilter
    from augkit.models.encoder import EncoderStats, get_encoder
    from augkit.steps.candidate import Candidate

    encoder = get_encoder()
    encoder.batch_size, encoder.stats = batch_size, EncoderStats()
    encoder.clear_cache()
    step = SemanticFilter()
    start = time.perf_counter()
    step.prepare(DatasetContext(sources))
    scores = []
    for begin in range(0, len(sources), engine_batch):
        batch_rows = [[Candidate(t, "eda") for t in row] for row in rows[begin : begin + engine_batch]]
        step.filter_batch(sources[begin : begin + engine_batch], batch_rows, BatchContext())
        scores.extend(c.scores["semantic"] for row in batch_rows for c in row)
    return time.perf_counter() - start, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--peer-sample", type=int, default=600)
    parser.add_argument("--small-batch-sample", type=int, default=1_500, help="texts timed at batch size 1")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    import augkit
    from augkit.models.encoder import resolve_encoder

    torch.set_num_threads(args.threads)
    texts = read_sentences(args.data, args.sentences)
    peak = matmul_peak_gflops()
    print(f"matmul peak: {peak:.1f} GFLOP/s on {args.threads} threads", flush=True)
    peer = SentenceTransformer(resolve_encoder(None), device="cpu")
    peer.encode(texts[:64])  # warm up both paths on other texts than those timed
    results: dict = {"machine": platform.machine(), "threads": args.threads, "matmul_peak_gflops": peak}

    # Encoding 10,000 distinct sentences.
    sample = texts[: args.peer_sample]
    _, seconds = timed(peer_one_at_a_time, peer, sample)
    one_rate = len(sample) / seconds
    _, seconds = timed(lambda: peer.encode(texts, batch_size=128, normalize_embeddings=True))
    encoding = {"peer_one_at_a_time": one_rate, "peer_batched_128": len(texts) / seconds}
    config = peer[0].auto_model.config
    for batch_size in (1, 32, 128):
        timed_texts = texts[: args.small_batch_sample] if batch_size == 1 else texts
        seconds, encoder = augkit_encoding(timed_texts, batch_size)
        lengths = [len(ids) for ids in encoder._token_ids(timed_texts)]
        achieved = sum(flops_per_text(config, length) for length in lengths) / seconds / 1e9
        encoding[f"augkit_batch_{batch_size}"] = len(timed_texts) / seconds
        encoding[f"augkit_batch_{batch_size}_peak_fraction"] = achieved / peak
        print(f"encoding, batch {batch_size}: {len(timed_texts) / seconds:.0f} sentences/s "
              f"({len(timed_texts) / seconds / one_rate:.1f}x one at a time; {achieved / peak:.0%} of matmul peak)", flush=True)
    print(f"encoding, sentence-transformers one at a time: {one_rate:.0f}/s; its batched encode: "
          f"{encoding['peer_batched_128']:.0f}/s", flush=True)
    results["encoding"] = encoding

    # Semantic filtering of 10,000 EDA candidates.
    per_source = 4
    sources = texts[: args.sentences // per_source]
    rows = augkit.augment(sources, "eda", n=per_source, seed=0)
    pairs = [(s, c) for s, row in zip(sources, rows) for c in row]
    peer_pairs = pairs[: args.peer_sample]
    peer_scores, seconds = timed(peer_pairs_one_at_a_time, peer, peer_pairs)
    filtering = {"candidates": len(pairs), "peer_one_at_a_time": len(peer_pairs) / seconds}
    for batch_size in (1, 32, 128):
        used = len(sources) if batch_size > 1 else args.small_batch_sample // per_source
        seconds, scores = augkit_filtering(sources[:used], rows[:used], batch_size)
        rate = len(scores) / seconds
        filtering[f"augkit_batch_{batch_size}"] = rate
        filtering["max_score_difference_vs_peer"] = float(np.max(np.abs(np.array(scores[: len(peer_scores)]) - peer_scores)))
        print(f"filtering, batch {batch_size}: {rate:.0f} candidates/s "
              f"({rate / filtering['peer_one_at_a_time']:.1f}x one at a time)", flush=True)
    print(f"filtering, one at a time: {filtering['peer_one_at_a_time']:.0f} candidates/s", flush=True)
    results["filtering"] = filtering
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
