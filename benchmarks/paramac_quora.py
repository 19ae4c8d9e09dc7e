"""Table 1's Quora protocol (ParaMac, Liu et al. 2022, section 5.1): several paraphrases per
source, the one with the highest iBLEU kept, then corpus iBLEU, BLEU, ROUGE-1 and ROUGE-2 of
the kept ones, x100 as the table prints them, beside the paper's ParaMod row.

Pairs: line i of ``val.q1`` (the source) and of ``val.q2`` (its reference paraphrase) in the
shared Quora data (``quora_pairs/paragen``; ``--split dev`` reads the dev files), the first
``--pairs``. The paper used the split of Liu et al. (2020) and Meng et al. (2021), which is
not in the shared data: these are other Quora duplicate pairs, so compare trends, not digits.

Generators (``--k`` candidates per source, 10 by default: the authors' eval.sh returns 10):

- ``--method paramac`` (the default; any registered method works), with ``--param
  NAME=VALUE`` as ``augkit augment -p``: the method's ``n=k`` best outputs. Its defaults are
  the paper's models (t5-large, bert-base-uncased, roberta-large-mnli, gpt2). The paper
  itself ran ParaMac only to build ParaNet, without context it cannot apply on Quora
  (section 8), and reports ParaMod; this row shows what ParaMac alone does.
- ``--paraphraser FOLDER_OR_ID``: a seq2seq paraphraser (a ParaMod trained with ``augkit
  train paraphraser --preset paramod``, or a hub id), ``k`` outputs by beam search
  (``--num-beams`` 15, as the authors' eval.sh). Prompted with ``--prompt`` (``<sentence>``
  stands for the source); by default the prompt the folder's ``augkit-training.json`` records,
  else the bare sentence (the authors' ParaMod input).

Selection and metrics, all from :mod:`augkit.metrics`: each candidate's iBLEU is
``ibleu([candidate], [reference], [source])`` (alpha ``IBLEU_ALPHA`` = 0.8, "the same weight
parameter as Meng et al. (2021)"; the authors' evaluate.py uses 0.8); per source the
candidate with the highest is kept (the first on a tie; a source with no candidate keeps a
copy of itself, counted). Then ``ibleu``, ``bleu`` and ``rouge`` over the kept outputs.
Texts are lower-cased first (``--case-sensitive`` keeps case), as the authors' evaluate.py
lower-cases outputs and references. The summary also gives the authors' evaluate.py
aggregation: per source the best of each metric separately (sentence BLEU, here sacrebleu's
with effective order rather than fast_bleu's), averaged over sources.

Writes ``outputs.jsonl`` (per source: the pair, every candidate with its iBLEU, the chosen
one), ``summary.json`` and ``summary.md`` into ``--out-dir``.

    .venv/bin/python benchmarks/paramac_quora.py --pairs 500 --paraphraser ./paramod --out-dir benchmarks/results/paramac_quora
    .venv/bin/python benchmarks/paramac_quora.py --pairs 100 --method paramac --param permutations=15
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
#: The shared Quora duplicate pairs: split -> (folder, source file, reference file).
SPLITS = {
    "val": ("quora_pairs/paragen/head_0a142eb", "val.q1", "val.q2"),
    "dev": ("quora_pairs/paragen/commit_bd93576", "dev.q1", "dev.q2"),
}
#: Table 1 (unsupervised), Quora: iBLEU, BLEU, ROUGE-1, ROUGE-2, x100.
PAPER_QUORA = {
    "ParaMod": {"ibleu": 14.57, "bleu": 27.45, "rouge1": 60.05, "rouge2": 39.32},
    "ConRPG": {"ibleu": 12.68, "bleu": 18.31, "rouge1": 59.62, "rouge2": 33.10},
}
#: The authors' eval.sh: beam search with 15 beams returning 10 paraphrases per source.
PAPER_NUM_BEAMS, PAPER_K = 15, 10
#: The placeholder of ``--prompt`` and of the prompt ``augkit-training.json`` records.
SENTENCE = "<sentence>"
TRAINING_RECORD = "augkit-training.json"


@dataclass
class Scored:
    """One source's candidates with their iBLEU, and the chosen output (``chosen`` indexes
    ``candidates``; None when there was none and the source itself stands in)."""

    source: str
    reference: str
    candidates: list[str] = field(default_factory=list)
    ibleu: list[float] = field(default_factory=list)
    chosen: int | None = None

    @property
    def output(self) -> str:
        return self.source if self.chosen is None else self.candidates[self.chosen]


def read_pairs(data: Path, split: str, count: int | None) -> list[tuple[str, str]]:
    """The first ``count`` (all: None) (source, reference) pairs of the split, both sides
    non-blank."""
    folder, sources, references = SPLITS[split]
    left = (data / folder / sources).read_text(encoding="utf-8").splitlines()
    right = (data / folder / references).read_text(encoding="utf-8").splitlines()
    if len(left) != len(right):
        raise SystemExit(f"{folder}: {sources} has {len(left)} lines, {references} {len(right)}")
    pairs = [(a.strip(), b.strip()) for a, b in zip(left, right) if a.strip() and b.strip()]
    return pairs if count is None else pairs[:count]


# -- generators -----------------------------------------------------------------------------


def generate_with_method(sources: list[str], method: str, k: int, params: dict[str, Any], seed: int, batch_size: int) -> list[list[str]]:
    """A registered augkit method's ``k`` best outputs per source."""
    import augkit

    return augkit.augment(sources, method=method, n=k, seed=seed, batch_size=batch_size, progress=False, **params)


def paraphraser_prompt(model: str, prompt: str | None) -> str:
    """``prompt`` when given, else the one the model folder's training record names, else the
    bare sentence."""
    if prompt is not None:
        chosen = prompt
    else:
        record = Path(model) / TRAINING_RECORD
        chosen = json.loads(record.read_text(encoding="utf-8")).get("prompt", SENTENCE) if record.is_file() else SENTENCE
    if SENTENCE not in chosen:
        raise SystemExit(f"the prompt {chosen!r} has no {SENTENCE} for the source")
    return chosen


def generate_with_paraphraser(sources: list[str], model: str, k: int, num_beams: int, prompt: str,
                              max_new_tokens: int, device: str) -> list[list[str]]:
    """``k`` beam-search outputs per source from a seq2seq paraphraser."""
    from augkit.models import load_seq2seq

    loaded = load_seq2seq(model, device=device)
    inputs = [prompt.replace(SENTENCE, source) for source in sources]
    return loaded.generate(inputs, num_beams=num_beams, num_return=k, max_new_tokens=max_new_tokens, progress=True,
                           description="paraphrasing").texts


# -- selection and metrics ------------------------------------------------------------------


def normalised(text: str, lowercase: bool) -> str:
    text = " ".join(text.split())
    return text.lower() if lowercase else text


def select_by_ibleu(sources: Sequence[str], references: Sequence[str], candidates: Sequence[Sequence[str]],
                    alpha: float, lowercase: bool = True) -> list[Scored]:
    """Per source, every distinct non-blank candidate's iBLEU (``augkit.metrics.ibleu`` on that
    one candidate) and the index of the highest (the first on a tie)."""
    from augkit.metrics import ibleu

    scored = []
    for source, reference, row in zip(sources, references, candidates, strict=True):
        texts = list(dict.fromkeys(normalised(c, lowercase) for c in row if c and c.strip()))
        item = Scored(normalised(source, lowercase), normalised(reference, lowercase), texts)
        item.ibleu = [ibleu([text], [item.reference], [item.source], alpha=alpha) for text in texts]
        if texts:
            item.chosen = max(range(len(texts)), key=lambda i: (item.ibleu[i], -i))
        scored.append(item)
    return scored


def corpus_metrics(scored: Sequence[Scored], alpha: float) -> dict[str, float]:
    """iBLEU, BLEU (to the references), BLEU to the sources and ROUGE-1/2/L F1 of the chosen
    outputs, all x100 (ROUGE is 0-1 in augkit.metrics; the table prints it x100)."""
    from augkit.metrics import bleu, ibleu, rouge

    outputs = [item.output for item in scored]
    references = [item.reference for item in scored]
    sources = [item.source for item in scored]
    overlap = rouge(outputs, references)
    return {
        "ibleu": ibleu(outputs, references, sources, alpha=alpha),
        "bleu": bleu(outputs, references),
        "rouge1": 100 * overlap["rouge1"],
        "rouge2": 100 * overlap["rouge2"],
        "rougeL": 100 * overlap["rougeL"],
        "bleu_to_source": bleu(outputs, sources),
    }


def per_metric_best(scored: Sequence[Scored], alpha: float) -> dict[str, float]:
    """The authors' evaluate.py aggregation: per source the best candidate for each metric
    separately (sentence BLEU, sentence iBLEU from sentence BLEUs, ROUGE F1), averaged over
    sources; x100. A source without candidates counts its copy."""
    from augkit.metrics import rouge, sentence_bleu

    totals = {"ibleu": 0.0, "bleu": 0.0, "rouge1": 0.0, "rouge2": 0.0}
    for item in scored:
        texts = item.candidates or [item.source]
        to_reference = sentence_bleu(texts, [item.reference] * len(texts))
        to_source = sentence_bleu(texts, [item.source] * len(texts))
        overlaps = [rouge([text], [item.reference]) for text in texts]
        totals["ibleu"] += max(alpha * r - (1 - alpha) * s for r, s in zip(to_reference, to_source))
        totals["bleu"] += max(to_reference)
        totals["rouge1"] += 100 * max(o["rouge1"] for o in overlaps)
        totals["rouge2"] += 100 * max(o["rouge2"] for o in overlaps)
    return {name: total / len(scored) for name, total in totals.items()}


# -- report ---------------------------------------------------------------------------------


def summary_markdown(summary: dict) -> str:
    run = summary["run"]
    rows = [("this run: " + summary["generator"], summary["metrics"]),
            ("this run, per-metric best (evaluate.py's aggregation)", summary["per_metric_best"])]
    rows += [(f"paper, Table 1: {name}", figures) for name, figures in PAPER_QUORA.items()]
    lines = [
        f"# Quora, Table 1 protocol: {summary['generator']}",
        "",
        f"{run['pairs']} pairs of `{run['split']}` ({run['data']}), {run['k']} candidates per source, the highest-iBLEU "
        f"one kept (alpha {run['alpha']}); {'lower-cased' if run['lowercase'] else 'case-sensitive'}; "
        f"{summary['sources_without_candidates']} sources without a candidate kept their copy; "
        f"{summary['mean_candidates']:.1f} distinct candidates per source on average.",
        "",
        "| | iBLEU | BLEU | ROUGE-1 | ROUGE-2 |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [f"| {name} | {m['ibleu']:.2f} | {m['bleu']:.2f} | {m['rouge1']:.2f} | {m['rouge2']:.2f} |" for name, m in rows]
    lines += ["", f"BLEU of the kept outputs to their sources: {summary['metrics']['bleu_to_source']:.2f}. "
              "The paper's pairs are another Quora split; compare trends, not digits.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="the shared data folder")
    parser.add_argument("--split", choices=sorted(SPLITS), default="val", help="val.q1/val.q2 or dev.q1/dev.q2")
    parser.add_argument("--pairs", type=int, default=500, help="the first N pairs (0: all)")
    generator = parser.add_mutually_exclusive_group()
    generator.add_argument("--method", default=None, help="a registered augkit method (default: paramac)")
    generator.add_argument("--paraphraser", metavar="FOLDER_OR_ID", help="a seq2seq paraphraser, k outputs by beam search")
    parser.add_argument("--param", "-p", action="append", default=[], metavar="NAME=VALUE", help="a --method parameter (repeatable)")
    parser.add_argument("--k", type=int, default=PAPER_K, help="candidates per source")
    parser.add_argument("--num-beams", type=int, default=PAPER_NUM_BEAMS, help="--paraphraser beams")
    parser.add_argument("--max-new-tokens", type=int, default=64, help="--paraphraser: longest output in tokens")
    parser.add_argument("--prompt", help=f"--paraphraser input, {SENTENCE} standing for the source (default: see above)")
    parser.add_argument("--alpha", type=float, default=None, help="iBLEU weight (default augkit.metrics.IBLEU_ALPHA, 0.8)")
    parser.add_argument("--case-sensitive", action="store_true", help="score texts as they are, not lower-cased")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=32, help="--method rows per batch")
    parser.add_argument("--device", default="cpu", help="--paraphraser device: cpu, cuda, cuda:N or auto")
    parser.add_argument("--out-dir", type=Path, default=REPO / "benchmarks" / "results" / "paramac_quora")
    args = parser.parse_args(argv)
    if args.k < 1 or args.pairs < 0 or args.num_beams < args.k:
        parser.error("--k must be >= 1, --pairs >= 0 and --num-beams >= --k")
    if args.param and args.paraphraser:
        parser.error("--param sets parameters of --method; a --paraphraser takes --num-beams, --max-new-tokens, --prompt")

    from augkit.metrics import IBLEU_ALPHA

    alpha = IBLEU_ALPHA if args.alpha is None else args.alpha
    pairs = read_pairs(args.data, args.split, args.pairs or None)
    sources, references = [a for a, _ in pairs], [b for _, b in pairs]
    started = time.perf_counter()
    if args.paraphraser:
        prompt = paraphraser_prompt(args.paraphraser, args.prompt)
        candidates = generate_with_paraphraser(sources, args.paraphraser, args.k, args.num_beams, prompt, args.max_new_tokens, args.device)
        name = f"paraphraser {args.paraphraser}"
        setup: dict[str, Any] = {"paraphraser": args.paraphraser, "num_beams": args.num_beams, "prompt": prompt,
                                 "max_new_tokens": args.max_new_tokens}
    else:
        from augkit.pipeline.param_options import parse_param_options

        method = args.method or "paramac"
        params = parse_param_options(args.param, method)
        candidates = generate_with_method(sources, method, args.k, params, args.seed, args.batch_size)
        name = f"method {method}" + "".join(f" {key}={value}" for key, value in params.items())
        setup = {"method": method, "params": params, "seed": args.seed, "batch_size": args.batch_size}
    seconds = time.perf_counter() - started

    scored = select_by_ibleu(sources, references, candidates, alpha, lowercase=not args.case_sensitive)
    summary = {
        "generator": name,
        "run": {"data": str(args.data), "split": args.split, "pairs": len(pairs), "k": args.k, "alpha": alpha,
                "lowercase": not args.case_sensitive, "generation_seconds": seconds, **setup},
        "metrics": corpus_metrics(scored, alpha),
        "per_metric_best": per_metric_best(scored, alpha),
        "paper_table1_quora": PAPER_QUORA,
        "sources_without_candidates": sum(item.chosen is None for item in scored),
        "mean_candidates": sum(len(item.candidates) for item in scored) / len(scored),
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    with (args.out_dir / "outputs.jsonl").open("w", encoding="utf-8") as out:
        for index, item in enumerate(scored):
            out.write(json.dumps({"index": index, "source": item.source, "reference": item.reference,
                                  "candidates": [{"text": t, "ibleu": s} for t, s in zip(item.candidates, item.ibleu)],
                                  "chosen": item.chosen, "output": item.output}, ensure_ascii=False) + "\n")
    (args.out_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    markdown = summary_markdown(summary)
    (args.out_dir / "summary.md").write_text(markdown, encoding="utf-8")
    print(markdown)
    print(f"wrote {args.out_dir}/outputs.jsonl, summary.json, summary.md ({seconds:.0f}s generating)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
