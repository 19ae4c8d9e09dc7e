"""How many back-translation and EDA candidates each label-safety filter drops (issue 13).

Data: 500 rows of BANKING77 (the official training CSV, cased) and 500 of CLINC150 (the
jianguoz training split, lower-cased), drawn with seed 0, and every StackFAQ (125) and JHU
COVID FAQ (68) question. Candidates: augkit's ``backtranslation`` (Bergamot, English ->
Portuguese -> English, offline; one per text, none when the round trip is too close to the
source) and ``eda`` (four per text), seed 0, exact duplicates dropped as in every pipeline.

Each of ``negation``, ``numbers`` and ``entities`` decides on every candidate on its own (not
after the others), so their overlaps show; ``semantic`` (default bounds 0.8-0.98, packaged
all-MiniLM-L6-v2) scores every candidate too, to show how many of the drops it accepts.

False positives cannot be counted by a script: ``benchmarks/label_safety_review.csv`` holds a
person's verdicts on drops, at least on a random sample of them (up to ``--review`` per
filter and generator): ``changed`` (the candidate says something else: the drop is right) or
``harmless`` (the candidate means the same for its label or answer: a false positive). The
report counts the verdicts on every current drop and says how many sampled drops have none.

    .venv/bin/python -m benchmarks.label_safety                  # about 3 minutes on 2 cores
    .venv/bin/python -m benchmarks.label_safety --rows 50        # a quick look
    .venv/bin/python -m benchmarks.label_safety --render-only    # re-read the review file

Writes ``benchmarks/results/label_safety.json`` and ``docs/benchmarks/label-safety.md``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import platform
import random
import re
import time
from itertools import combinations
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FILTERS = ("negation", "numbers", "entities")
#: Candidates asked per text: back-translation through Bergamot gives one; four is EDA's
#: usual n in the few-shot benchmark.
GENERATORS = {"backtranslation": 1, "eda": 4}
VERDICTS = ("changed", "harmless")
#: A section of the page another script writes (see :func:`sections_written_by_others`).
_OTHERS_SECTION = re.compile(r"^<!-- ([\w-]+): begin.*?^<!-- \1: end -->\n", re.MULTILINE | re.DOTALL)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not args.render_only:
        report = measure(Path(args.data), args.rows, args.seed, args.review)
        Path(args.out_json).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    report = json.loads(Path(args.out_json).read_text(encoding="utf-8"))
    verdicts = read_review(Path(args.review_file))
    page = Path(args.out_md)
    page.write_text(markdown(report, verdicts, args.examples) + sections_written_by_others(page), encoding="utf-8")
    return 0


def sections_written_by_others(page: Path) -> str:
    """The blocks of ``page`` other scripts write between their own markers
    (``<!-- NAME: begin ... -->`` to ``<!-- NAME: end -->``, such as
    ``benchmarks/intent_filters.py``'s), kept when this script rewrites the page."""
    if not page.exists():
        return ""
    text = page.read_text(encoding="utf-8")
    return "".join("\n" + match.group(0) for match in _OTHERS_SECTION.finditer(text))


def datasets(shared: Path, rows: int, seed: int) -> dict[str, list[str]]:
    """The texts augmented, by dataset."""
    import pandas as pd

    from benchmarks.faq.data import load_covid_faq, load_stackfaq

    banking = pd.read_csv(shared / "banking77" / "polyai" / "train.csv")["text"]
    clinc = pd.Series((shared / "clinc150" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines())
    return {
        "banking77": banking.sample(min(rows, len(banking)), random_state=seed).tolist(),
        "clinc150": clinc.sample(min(rows, len(clinc)), random_state=seed).tolist(),
        "stackfaq": load_stackfaq(shared).faq["question"].tolist(),
        "covidfaq": load_covid_faq(shared).faq["question"].tolist(),
    }


def measure(shared: Path, rows: int, seed: int, review: int) -> dict:
    """Generate, decide with each filter, and gather counts, overlaps and drops."""
    import augkit
    from augkit.filters import (
        BatchContext,
        EntitiesFilter,
        NegationFilter,
        NumbersFilter,
        SemanticFilter,
    )
    from augkit.steps.candidate import Candidate

    steps = {"negation": NegationFilter(), "numbers": NumbersFilter(), "entities": EntitiesFilter()}
    semantic = SemanticFilter()
    runs, decisions = [], []
    for dataset, texts in datasets(shared, rows, seed).items():
        for generator, n in GENERATORS.items():
            started = time.perf_counter()
            outputs = augkit.augment(texts, generator, n=n, seed=seed)
            generated = time.perf_counter() - started
            pairs = [(source, text) for source, row in zip(texts, outputs) for text in row]
            started = time.perf_counter()
            flags = {name: [bool(step.mismatch(s, t)) for s, t in pairs] for name, step in steps.items()}
            filtered = time.perf_counter() - started
            scored = [[Candidate(t, generator)] for _, t in pairs]
            semantic.filter_batch([s for s, _ in pairs], scored, BatchContext())
            similarity = [row[0].scores["semantic"] for row in scored]
            accepted = [semantic.min <= value <= semantic.max for value in similarity]
            for index, (source, text) in enumerate(pairs):
                dropped_by = [name for name in FILTERS if flags[name][index]]
                decisions.append({
                    "dataset": dataset, "generator": generator, "source": source, "candidate": text,
                    "dropped_by": dropped_by, "semantic": round(similarity[index], 4), "semantic_accepts": accepted[index],
                    "reasons": {name: steps[name].explain(source, text) for name in dropped_by},
                })
            runs.append(_counts(dataset, generator, len(texts), decisions[len(decisions) - len(pairs):], generated, filtered))
            print(json.dumps(runs[-1]))
    return {
        "environment": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
                        "rows": rows, "seed": seed, "semantic": [semantic.min, semantic.max]},
        "runs": runs,
        "overlaps": _overlaps(decisions),
        "drops": [d for d in decisions if d["dropped_by"]],
        "review_sample": _review_sample(decisions, review, seed),
        "kept_sample": _kept_sample(decisions, seed),
    }


def _counts(dataset: str, generator: str, sources: int, decisions: list[dict], generated: float, filtered: float) -> dict:
    accepted = [d for d in decisions if d["semantic_accepts"]]
    counts = {
        "dataset": dataset, "generator": generator, "sources": sources, "candidates": len(decisions),
        "semantic_accepts": len(accepted),
        "any": sum(bool(d["dropped_by"]) for d in decisions),
        "two_or_more": sum(len(d["dropped_by"]) >= 2 for d in decisions),
        "any_semantic_accepted": sum(bool(d["dropped_by"]) for d in accepted),
        "generate_seconds": round(generated, 1), "filter_seconds": round(filtered, 2),
    }
    for name in FILTERS:
        counts[name] = sum(name in d["dropped_by"] for d in decisions)
        counts[f"{name}_semantic_accepted"] = sum(name in d["dropped_by"] for d in accepted)
    return counts


def _overlaps(decisions: list[dict]) -> dict[str, int]:
    """Candidates dropped by each pair of filters, and by all three."""
    overlaps = {}
    for first, second in combinations(FILTERS, 2):
        overlaps[f"{first}+{second}"] = sum(first in d["dropped_by"] and second in d["dropped_by"] for d in decisions)
    overlaps["all three"] = sum(len(d["dropped_by"]) == len(FILTERS) for d in decisions)
    return overlaps


def _review_sample(decisions: list[dict], size: int, seed: int) -> list[dict]:
    """Up to ``size`` random drops per filter and generator, for a person to judge. A drop's
    place in the draw hangs on its own text and the seed only, so a change to a filter that
    adds or removes other drops leaves the rest of the sample, and its verdicts, in place."""
    sample = []
    for name in FILTERS:
        for generator in GENERATORS:
            drops = [d for d in decisions if name in d["dropped_by"] and d["generator"] == generator]
            drawn = sorted(drops, key=lambda d: _draw(seed, name, d["source"], d["candidate"]))[:size]
            sample += [{"filter": name, **d} for d in drops if d in drawn]
    return sample


def _draw(seed: int, *texts: str) -> str:
    return hashlib.blake2b("\x00".join((str(seed), *texts)).encode("utf-8"), digest_size=8).hexdigest()


def _kept_sample(decisions: list[dict], seed: int, size: int = 5) -> list[dict]:
    """Candidates all three keep and semantic accepts, a few per dataset and generator: what
    still gets through."""
    sample = []
    for dataset in dict.fromkeys(d["dataset"] for d in decisions):
        for generator in GENERATORS:
            kept = [d for d in decisions if d["dataset"] == dataset and d["generator"] == generator
                    and not d["dropped_by"] and d["semantic_accepts"]]
            sample += [kept[i] for i in sorted(random.Random(seed).sample(range(len(kept)), min(size, len(kept))))]
    return sample


def read_review(path: Path) -> dict[tuple[str, str, str], dict]:
    """Verdicts by (filter, source, candidate)."""
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        if row["verdict"] not in VERDICTS:
            raise ValueError(f"{path}: verdict must be one of {', '.join(VERDICTS)}, got {row['verdict']!r}")
    return {(row["filter"], row["source"], row["candidate"]): row for row in rows}


def markdown(report: dict, verdicts: dict, examples: int) -> str:
    env = report["environment"]
    lines = [
        "# Label-safety filters: what they drop on intent and FAQ data",
        "",
        "Written by `python -m benchmarks.label_safety` (see its docstring); raw figures and every drop in "
        "`benchmarks/results/label_safety.json`; verdicts in `benchmarks/label_safety_review.csv`. "
        "Filters: [user guide](../user-guide.md#label-safe-recipes).",
        "",
        f"Data: {env['rows']} random rows (seed {env['seed']}) of BANKING77 (official training CSV) and of CLINC150 "
        "(jianguoz training split, lower-cased), every StackFAQ and JHU COVID FAQ question. Candidates: "
        "`backtranslation` (Bergamot EN->PT->EN, one per text at most) and `eda` (4 per text), exact duplicates "
        "dropped. Each filter decides on every candidate on its own; `semantic` "
        f"({env['semantic'][0]}-{env['semantic'][1]}, packaged all-MiniLM-L6-v2) scores every candidate too.",
        "",
        "## Candidates each filter drops",
        "",
        "| dataset | generator | texts | candidates | semantic accepts | negation | numbers | entities | any | by 2+ | "
        "any, among semantic's accepted |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in report["runs"]:
        total = max(run["candidates"], 1)
        cells = [f"{run[name]} ({100 * run[name] / total:.1f}%)" for name in (*FILTERS, "any")]
        lines.append(
            f"| {run['dataset']} | `{run['generator']}` | {run['sources']} | {run['candidates']} | {run['semantic_accepts']} | "
            + " | ".join(cells)
            + f" | {run['two_or_more']} | {run['any_semantic_accepted']} of {run['semantic_accepts']} |"
        )
    lines += ["", "Percentages are of the candidates. Overlaps over all runs: "
              + ", ".join(f"{name} {count}" for name, count in report["overlaps"].items()) + ".", ""]
    lines += _review_table(report, verdicts)
    lines += ["", "## What each filter drops", ""]
    for name in FILTERS:
        lines += [f"### `{name}`", ""]
        for generator in GENERATORS:
            drops = [d for d in report["review_sample"] if d["filter"] == name and d["generator"] == generator]
            lines.append(f"**`{generator}`**" + ("" if drops else ": nothing dropped"))
            lines.append("")
            for drop in drops[:examples]:
                verdict = verdicts.get((name, drop["source"], drop["candidate"]), {}).get("verdict", "not reviewed")
                lines.append(f"- {drop['dataset']}: \"{drop['source']}\" -> \"{drop['candidate']}\" "
                             f"({drop['reasons'][name]}; similarity {drop['semantic']}; {verdict})")
            lines.append("")
    lines += ["## What all three keep and semantic accepts (a sample)", "",
              "What these filters do not look at still gets through: a content word changed (\"move money\" -> "
              "\"change money\"), a question turned into a statement, a word lost that no list names.", ""]
    for kept in report["kept_sample"]:
        lines.append(f"- {kept['dataset']}, `{kept['generator']}`: \"{kept['source']}\" -> \"{kept['candidate']}\" "
                     f"(similarity {kept['semantic']})")
    lines += ["", "## Timing", "", "| dataset | generator | generate (s) | three filters (s) |", "|---|---|---:|---:|"]
    for run in report["runs"]:
        lines.append(f"| {run['dataset']} | `{run['generator']}` | {run['generate_seconds']} | {run['filter_seconds']} |")
    lines.append("")
    return "\n".join(lines)


def _review_table(report: dict, verdicts: dict) -> list[str]:
    lines = [
        "## False positives, from a person's reading",
        "",
        "At least a random sample of each filter's drops (per generator, all datasets together) was read and judged: "
        "*changed* (the candidate says something else, so dropping it is right) or *harmless* (it means the same "
        "for its label or answer: a false positive).",
        "",
        "| filter | generator | drops | read | changed | harmless | false-positive share |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    unreviewed = []
    for name in FILTERS:
        for generator in GENERATORS:
            drops = sum(run[name] for run in report["runs"] if run["generator"] == generator)
            sample = [d for d in report["review_sample"] if d["filter"] == name and d["generator"] == generator]
            dropped = [d for d in report["drops"] if name in d["dropped_by"] and d["generator"] == generator]
            found = [verdicts[key]["verdict"] for d in dropped if (key := (name, d["source"], d["candidate"])) in verdicts]
            unreviewed += [d for d in sample if (name, d["source"], d["candidate"]) not in verdicts]
            harmless = found.count("harmless")
            share = f"{100 * harmless / len(found):.0f}%" if found else "n/a"
            lines.append(f"| `{name}` | `{generator}` | {drops} | {len(found)} | {found.count('changed')} | {harmless} | {share} |")
    dropped = {(name, d["source"], d["candidate"]) for d in report["drops"] for name in d["dropped_by"]}
    harmless_notes = [row for key, row in verdicts.items() if row["verdict"] == "harmless" and key in dropped]
    if harmless_notes:
        lines += ["", "The false positives read:", ""]
        lines += [f"- `{row['filter']}`: \"{row['source']}\" -> \"{row['candidate']}\"" + (f" ({row['note']})" if row.get("note") else "")
                  for row in harmless_notes]
    if unreviewed:
        lines += ["", f"{len(unreviewed)} sampled drops have no verdict yet (add them to the review file)."]
    lines += [
        "",
        "These shares are in-sample: the filters' rules were refined after reading earlier drops of this same run "
        "(\"one\" as a pronoun next to a modal, \"tonight\" = \"this evening\", \"24 hours\" = a day, WordNet's "
        "\"twelvemonth\" and \"hebdomad\", a time unit named again, acronyms spelled out, plural and dotted names, "
        "\"unable\" and \"unaware\" as negations), and the false alarms those rules removed are no longer counted. "
        "Expect somewhat more on new data, most of them from EDA's WordNet replacements of time words and acronyms, "
        "which keep the meaning in odd words.",
    ]
    return lines


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.label_safety", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.environ.get("AUGKIT_SHARED_DATA", str(REPO.parent / "shared" / "data")))
    parser.add_argument("--rows", type=int, default=500, help="rows drawn from each intent dataset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--review", type=int, default=25, help="drops sampled for review per filter and generator")
    parser.add_argument("--examples", type=int, default=5, help="examples shown per filter and generator")
    parser.add_argument("--render-only", action="store_true", help="rewrite the markdown from the JSON and the review file")
    parser.add_argument("--review-file", default=str(REPO / "benchmarks" / "label_safety_review.csv"))
    parser.add_argument("--out-json", default=str(REPO / "benchmarks" / "results" / "label_safety.json"))
    parser.add_argument("--out-md", default=str(REPO / "docs" / "benchmarks" / "label-safety.md"))
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
