"""FAQ-paraphrasing evidence on the shared FAQ corpora (issue 5).

For each corpus (StackFAQ, JHU COVID FAQ) and generator, runs :func:`augkit_faq.paraphrase_faq`
and reports: candidates generated per question, left after post-processing (unique), after
selection step (a) (similarity >= 0.8) and step (b) (retrieves its own question first),
examples of each rejection, and FAQ retrieval top-1 accuracy of the corpus' user queries
against the FAQ's questions before and after adding the accepted paraphrases to the index.

    .venv/bin/python -m benchmarks.faq                                  # both corpora, offline generators
    .venv/bin/python -m benchmarks.faq --corpora covidfaq_jhu --generators backtranslation --limit 20

Writes ``benchmarks/results/faq_evidence.json`` and ``docs/benchmarks/faq-evidence.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path

from benchmarks.faq.data import LOADERS
from benchmarks.faq.retrieval import top1_accuracy_embeddings, top1_accuracy_tfidf

REPO = Path(__file__).resolve().parents[2]
DEFAULT_GENERATORS = ["backtranslation", "backtranslation+eda"]
REJECTIONS = ("duplicate", "low_similarity", "other_question_nearer")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from augkit_faq import paraphrase_faq

    shared = Path(args.data)
    runs = []
    for corpus_name in args.corpora:
        corpus = LOADERS[corpus_name](shared)
        faq = corpus.faq.iloc[: args.limit] if args.limit else corpus.faq
        baseline = _retrieval(faq["question"].tolist(), faq["answer"].tolist(), corpus.queries)
        for generator in args.generators:
            started = time.perf_counter()
            result = paraphrase_faq(faq, "question", "answer", generator=generator, num_return=args.num_return, seed=args.seed)
            seconds = time.perf_counter() - started
            accepted = result.candidates[result.candidates["status"] == "accepted"]
            augmented = _retrieval(
                faq["question"].tolist() + accepted["candidate"].tolist(),
                faq["answer"].tolist() + [faq.loc[s, "answer"] for s in accepted["source"]],
                corpus.queries,
            )
            runs.append({
                "corpus": corpus_name, "generator": generator, "seconds": round(seconds, 1),
                "questions": int(result.summary["paraphrased"]), "summary": _jsonable(result.summary),
                "per_question": _per_question(result.summary),
                "examples": _examples(result.candidates, args.examples, args.seed),
                "retrieval": {"queries": len(corpus.queries), "before": baseline, "after": augmented},
            })
            print(json.dumps({k: runs[-1][k] for k in ("corpus", "generator", "seconds", "per_question", "retrieval")}))
    report = {"environment": _environment(args), "runs": runs}
    Path(args.out_json).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    Path(args.out_md).write_text(_markdown(report))
    return 0


def _retrieval(index_texts, index_answers, queries) -> dict[str, float]:
    query_texts, query_answers = queries["query"].tolist(), queries["answer"].tolist()
    return {
        "index_size": len(index_texts),
        "embedding_top1": round(top1_accuracy_embeddings(index_texts, index_answers, query_texts, query_answers), 4),
        "tfidf_top1": round(top1_accuracy_tfidf(index_texts, index_answers, query_texts, query_answers), 4),
    }


def _per_question(summary: dict) -> dict[str, float]:
    questions = max(summary["paraphrased"], 1)
    steps = ("generated", "unique", "after_semantic", "after_integrity", "accepted")
    return {step: round(summary[step] / questions, 2) for step in steps}


def _examples(candidates, count: int, seed: int) -> dict[str, list[dict]]:
    picked = {}
    for status in (*REJECTIONS, "accepted"):
        rows = candidates[candidates["status"] == status]
        chosen = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
        columns = ["question", "candidate", "semantic", "label_integrity", "nearest_question"]
        picked[status] = [_jsonable(rows.iloc[i][columns].to_dict()) for i in chosen]
    return picked


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return None if value != value else round(value, 4)
    return value


def _environment(args) -> dict:
    return {
        "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "num_return": args.num_return, "seed": args.seed, "limit": args.limit,
        "encoder": "all-MiniLM-L6-v2 (packaged)", "min_similarity": 0.8,
    }


def _markdown(report: dict) -> str:
    lines = [
        "# FAQ paraphrasing on the shared FAQ corpora",
        "",
        "Written by `python -m benchmarks.faq` (see its docstring); raw figures in "
        "`benchmarks/results/faq_evidence.json`. Method: [docs/methods/faq.md](../methods/faq.md).",
        "",
        f"Settings: {report['environment']['num_return']} candidates asked per question, seed "
        f"{report['environment']['seed']}, selection with the packaged all-MiniLM-L6-v2 (step (a): similarity >= 0.8; "
        "step (b): the candidate, used as a query over all the FAQ's questions, retrieves its own first).",
        "",
        "## Candidates per question at each step",
        "",
        "| corpus | generator | questions | generated | unique | after (a) | after (b) | questions with >= 1 | seconds |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in report["runs"]:
        p, s = run["per_question"], run["summary"]
        lines.append(
            f"| {run['corpus']} | `{run['generator']}` | {run['questions']} | {p['generated']} ({s['generated']}) | "
            f"{p['unique']} ({s['unique']}) | {p['after_semantic']} ({s['after_semantic']}) | "
            f"{p['after_integrity']} ({s['after_integrity']}) | {s['questions_with_paraphrases']} | {run['seconds']} |"
        )
    lines += ["", "Per question, totals in brackets.", "", "## Retrieval: user queries to FAQ answers, top-1 accuracy", "",
              "| corpus | generator | queries | index before -> after | embedding before | embedding after | TF-IDF before | TF-IDF after |",
              "|---|---|---:|---|---:|---:|---:|---:|"]
    for run in report["runs"]:
        r = run["retrieval"]
        lines.append(
            f"| {run['corpus']} | `{run['generator']}` | {r['queries']} | {r['before']['index_size']} -> {r['after']['index_size']} | "
            f"{r['before']['embedding_top1']:.4f} | {r['after']['embedding_top1']:.4f} | "
            f"{r['before']['tfidf_top1']:.4f} | {r['after']['tfidf_top1']:.4f} |"
        )
    lines += ["", "## Examples", ""]
    for run in report["runs"]:
        lines += [f"### {run['corpus']}, `{run['generator']}`", ""]
        for status, examples in run["examples"].items():
            lines.append(f"**{status}**" + ("" if examples else ": none"))
            lines.append("")
            for e in examples:
                detail = f"similarity {e['semantic']}" if e["semantic"] is not None else "not scored"
                if e["label_integrity"] is not None:
                    detail += f", margin {e['label_integrity']}"
                if e["nearest_question"]:
                    detail += f"; retrieves instead: \"{e['nearest_question']}\""
                lines.append(f"- \"{e['question']}\" -> \"{e['candidate']}\" ({detail})")
            lines.append("")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.faq", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("AUGKIT_SHARED_DATA", str(REPO.parent / "shared" / "data")))
    parser.add_argument("--corpora", nargs="+", choices=sorted(LOADERS), default=["stackfaq", "covidfaq_jhu"])
    parser.add_argument("--generators", nargs="+", default=DEFAULT_GENERATORS)
    parser.add_argument("--num-return", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None, help="first N FAQ entries only")
    parser.add_argument("--examples", type=int, default=3, help="examples shown per status")
    parser.add_argument("--out-json", default=str(REPO / "benchmarks" / "results" / "faq_evidence.json"))
    parser.add_argument("--out-md", default=str(REPO / "docs" / "benchmarks" / "faq-evidence.md"))
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
