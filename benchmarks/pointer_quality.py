"""Paraphrase quality of ``pointer`` next to EDA, AEDA and back-translation on BANKING77's
10-shot split: the seed paper's Figure 2 / Table 2 quantities (Chevasson et al. 2023,
section 4.1), measured offline.

- fluency: perplexity of each paraphrase under a causal LM, averaged and spread in log
  space (geometric mean and std, as the paper does with distilgpt2). No pretrained GPT-2
  installs offline here, so ``--scorer-lm`` is a GPT-2-shaped model trained by this script
  (``--build-scorer``) on CLINC150, TREC and Quora texts: English queries and questions,
  none from BANKING77, so neither POINTER's training texts nor the sources are in it. Its
  perplexities rank methods; they are not distilgpt2's numbers.
- diversity: dist-2 of each source's paraphrases (distinct bigrams / distinct tokens,
  ``augkit.metrics.distinct_n``), averaged over sources;
- length: characters per paraphrase, mean and std (Table 2);
- meaning: cosine of each paraphrase with its source under all-MiniLM-L6-v2 (offline), in
  place of the paper's BLEURT / BERTScore (Table 3);
- examples: every method's paraphrases of a few sources;
- ``sources``: the 10-shot texts themselves, scored the same way (the scorer's reading of
  real queries: a reference for the perplexities; its dist-2 is of one text, not comparable).

    .venv/bin/python benchmarks/pointer_quality.py --pointer-model runs/pointer-b77 --build-scorer \\
        --scorer-lm .cache/bench-models/scorer-gpt2 --out benchmarks/results/pointer_quality.json
"""

from __future__ import annotations

import os

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
#: The scorer LM's corpus: query and question texts from outside BANKING77.
SCORER_CORPUS = (
    Path("clinc150") / "jianguoz" / "train" / "seq.in",
    Path("trec") / "sent-conv-torch" / "TREC.train.all",
    Path("quora_pairs") / "paragen" / "head_0a142eb" / "val.q1",
)
#: GPT-2 "mini" scorer: 4 layers, 256 wide, 4 heads, 8,000 byte-level BPE tokens.
SCORER_SHAPE = {"hidden": 256, "layers": 4, "heads": 4, "max_positions": 128, "vocab_size": 8000}


def read_lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]


def scorer_texts(data: Path) -> list[str]:
    texts = []
    for relative in SCORER_CORPUS:
        lines = read_lines(data / relative)
        if relative.parts[0] == "trec":  # "LABEL text" lines
            lines = [line.split(" ", 1)[1] for line in lines if " " in line]
        texts += lines
    return texts


def build_scorer(folder: Path, texts: list[str], minutes: float, seed: int) -> dict:
    """Train the GPT-2-shaped scorer on ``texts`` for ``minutes`` (AdamW 5e-4, batches of
    32 texts, one pass after another) and save it; returns what the training did."""
    import torch

    from augkit.testing import build_gpt2_causal_lm

    build_gpt2_causal_lm(folder, texts, seed=seed, **SCORER_SHAPE)
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder)
    model.train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=5e-4)
    order = random.Random(seed)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    start, steps, losses = time.monotonic(), 0, []
    while time.monotonic() - start < minutes * 60:
        batch = order.sample(texts, 32)
        encoded = [[tokenizer.bos_token_id or pad] + tokenizer(text)["input_ids"][:126] + [tokenizer.eos_token_id or pad] for text in batch]
        width = max(map(len, encoded))
        ids = torch.full((len(encoded), width), pad)
        labels = torch.full((len(encoded), width), -100)
        mask = torch.zeros((len(encoded), width), dtype=torch.long)
        for row, tokens in enumerate(encoded):
            ids[row, : len(tokens)] = torch.tensor(tokens)
            labels[row, : len(tokens)] = torch.tensor(tokens)
            mask[row, : len(tokens)] = 1
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
        steps += 1
        if steps % 50 == 0:
            losses.append((steps, round(loss.item(), 4)))
    model.eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    record = {"texts": len(texts), "steps": steps, "minutes": minutes, "losses": losses, "shape": SCORER_SHAPE}
    (folder / "scorer-training.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def paraphrases(method: str, texts: list[str], n: int, seed: int, params: dict) -> tuple[list[list[str]], float]:
    import augkit

    start = time.perf_counter()
    result = augkit.augment(texts, method, n=n, seed=seed, **params)
    return result, time.perf_counter() - start


def quality(sources: list[str], outputs: list[list[str]], scorer: str) -> dict:
    from augkit.metrics import (
        distinct_n,
        geometric_mean,
        geometric_std,
        perplexity,
        semantic_similarity,
    )

    flat = [(source, text) for source, texts in zip(sources, outputs, strict=True) for text in texts]
    if not flat:
        return {"paraphrases": 0}
    texts = [text for _, text in flat]
    ppl = perplexity(texts, scorer)
    lengths = [len(text) for text in texts]
    dist = [distinct_n(texts_of, 2) for texts_of in outputs if texts_of]
    cosine = semantic_similarity([s for s, _ in flat], texts)
    return {
        "sources_with_paraphrases": sum(bool(t) for t in outputs), "paraphrases": len(texts),
        "ppl_geometric_mean": geometric_mean(ppl), "ppl_geometric_std": geometric_std(ppl),
        "dist2_mean": statistics.mean(dist), "chars_mean": statistics.mean(lengths), "chars_std": statistics.pstdev(lengths),
        "minilm_cosine_mean": float(cosine.mean()), "minilm_cosine_std": float(cosine.std()),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--pointer-model", type=Path, required=True, help="a folder written by `augkit train pointer`")
    parser.add_argument("--scorer-lm", type=Path, default=REPO / ".cache" / "bench-models" / "scorer-gpt2")
    parser.add_argument("--build-scorer", action="store_true", help="train the scorer LM first (else it must exist)")
    parser.add_argument("--scorer-minutes", type=float, default=10.0)
    parser.add_argument("--sources", type=int, default=0, help="first N texts of the 10-shot split (0: all 770)")
    parser.add_argument("--n", type=int, default=5, help="paraphrases per source (the paper's m = 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", default="eda,aeda,backtranslation,pointer,pointer-pshuf0,pointer-sampling,pointer-no-ramps,pointer-tuned")
    parser.add_argument("--examples", type=int, default=4)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--add", action="store_true", help="keep the other methods of an existing --out file")
    args = parser.parse_args(argv)

    scorer_record = None
    if args.build_scorer:
        scorer_record = build_scorer(args.scorer_lm, scorer_texts(args.data), args.scorer_minutes, args.seed)
        print(f"scorer LM: {scorer_record['steps']} steps, last losses {scorer_record['losses'][-3:]}", flush=True)
    sources = read_lines(args.data / "banking77" / "jianguoz" / "train_10" / "seq.in")
    if args.sources:
        sources = sources[: args.sources]
    methods = {
        "eda": ("eda", {}), "aeda": ("aeda", {}), "backtranslation": ("backtranslation", {}),
        "pointer": ("pointer", {"insertion_model": str(args.pointer_model)}),
        "pointer-pshuf0": ("pointer", {"insertion_model": str(args.pointer_model), "p_shuf": 0.0}),
        "pointer-sampling": ("pointer", {"insertion_model": str(args.pointer_model), "do_sample": True}),
        # POINTER's first-stage ramps off: the [NOI] and stop-word logits are not zeroed at stage 0
        "pointer-no-ramps": ("pointer", {"insertion_model": str(args.pointer_model), "noi_decay": 0, "stopword_decay": 0}),
        # ramps off and [NOI] 2 nats less likely at every stage: read best on the CPU-trained mini model
        "pointer-tuned": ("pointer", {"insertion_model": str(args.pointer_model), "noi_decay": 0, "stopword_decay": 0,
                                      "noi_bias": -2.0}),
    }
    results, examples = {}, {}
    picks = random.Random(args.seed).sample(range(len(sources)), min(args.examples, len(sources)))
    for name in args.methods.split(","):
        if name == "sources":  # the human-written sources themselves: what the scorer makes of real queries
            outputs, seconds, method, params = [[source] for source in sources], 0.0, "none", {}
        else:
            method, params = methods[name]
            outputs, seconds = paraphrases(method, sources, args.n, args.seed, params)
        results[name] = {"method": method, "params": params, "seconds": seconds, **quality(sources, outputs, str(args.scorer_lm))}
        examples[name] = {sources[i]: outputs[i] for i in picks}
        print(name, json.dumps(results[name]), flush=True)
    summary = {"sources": len(sources), "n": args.n, "seed": args.seed, "scorer_lm": str(args.scorer_lm),
               "scorer_training": scorer_record, "results": results, "examples": examples}
    if args.out:
        if args.add and args.out.is_file():
            earlier = json.loads(args.out.read_text())
            summary["results"] = {**earlier["results"], **results}
            summary["examples"] = {**earlier["examples"], **examples}
            summary["scorer_training"] = summary["scorer_training"] or earlier.get("scorer_training")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
