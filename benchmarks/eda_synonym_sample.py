"""The sample behind "which share of EDA's synonym replacements would a reader accept?"

Draws 200 rows of BANKING77's official test CSV (rows 200 onwards: the tests use the first
200), makes one synonym replacement per row with each synonym mode of EDA (synonym
replacement only, seed 0, through ``augkit.augment``), and writes one line per (row, mode):
the text, the replaced word, its replacement and the augmented text (``candidate``), with
empty ``accept`` and ``note`` columns for a reader to fill in. A row where a mode finds no
synonym to use gets an empty replacement (counted as "no replacement", not judged).

Labels already in the output file are kept for every line whose candidate did not change,
so re-running after a change to EDA asks only about the new replacements. ``--blind`` writes
the lines to judge without their mode, shuffled, with repeated candidates once: what the
reader labels (docs/benchmarks/eda-synonyms.md says how); ``--merge`` copies those labels
back. ``--summary`` prints the shares for the docs page.

Usage::

    python benchmarks/eda_synonym_sample.py                        # (re)write the sample
    python benchmarks/eda_synonym_sample.py --blind /tmp/judge.csv # lines to label, mode hidden
    python benchmarks/eda_synonym_sample.py --merge /tmp/judge.csv # labels back into the sample
    python benchmarks/eda_synonym_sample.py --summary
"""

from __future__ import annotations

import argparse
import csv
import difflib
import os
import random
from pathlib import Path

from augkit_eda import EDA

import augkit
from augkit.text import split_words

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
SAMPLE = REPO / "docs" / "benchmarks" / "eda-synonyms" / "sample.csv"
#: The rows: a fixed random draw (seed 13, the issue's number) among test rows 200-3079.
SAMPLE_SEED = 13
SAMPLE_SIZE = 200
FIRST_ROW = 200
#: Synonym replacement only; alpha_sr this small makes n_sr = max(1, int(alpha_sr * words))
#: one replacement for every text under 100 words (all of BANKING77).
SYNONYM_REPLACEMENT_ONLY = dict(alpha_sr=0.01, alpha_ri=0, alpha_rs=0, p_rd=0)
MODES = ("wordnet-all", "safe")
AUGMENT_SEED = 0
COLUMNS = ["row", "label", "text", "mode", "replaced", "replacement", "candidate", "accept", "note"]
BLIND_COLUMNS = ["item", "text", "replaced", "replacement", "candidate", "accept", "note"]


def sample_rows(size: int = SAMPLE_SIZE, seed: int = SAMPLE_SEED) -> list[tuple[int, str, str]]:
    """(row number in test.csv, text, label) of the sample, in row order."""
    with (SHARED_DATA / "banking77" / "polyai" / "test.csv").open(encoding="utf-8", newline="") as handle:
        rows = [(number, row["text"], row["category"]) for number, row in enumerate(csv.DictReader(handle))]
    return sorted(random.Random(seed).sample(rows[FIRST_ROW:], size))


def replaced_span(text: str, candidate: str) -> tuple[str, str]:
    """The words of ``text`` that ``candidate`` replaced, and what replaced them (" / "
    between the occurrences when a word occurs more than once: all are replaced)."""
    before, after = split_words(text).words, split_words(candidate).words
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    spans = []
    for kind, i1, i2, j1, j2 in matcher.get_opcodes():
        if kind == "equal":
            continue
        if kind == "insert":  # a multiword synonym that contains the word: "card" -> "visiting card"
            if i1 < len(before) and j2 < len(after) and after[j2] == before[i1]:
                i2, j2 = i1 + 1, j2 + 1
            elif i1 > 0 and j1 > 0 and after[j1 - 1] == before[i1 - 1]:
                i1, j1 = i1 - 1, j1 - 1
        spans.append((" ".join(before[i1:i2]), " ".join(after[j1:j2])))
    return " / ".join(old for old, _ in spans), " / ".join(new for _, new in spans)


def make_sample(rows: list[tuple[int, str, str]]) -> list[dict[str, str]]:
    """One line per row and mode, unlabelled."""
    lines = []
    texts = [text for _, text, _ in rows]
    for mode in MODES:
        outputs = augkit.augment(texts, EDA(**SYNONYM_REPLACEMENT_ONLY, synonyms=mode), n=1, seed=AUGMENT_SEED)
        for (number, text, label), out in zip(rows, outputs):
            line = {column: "" for column in COLUMNS} | {"row": str(number), "label": label, "text": text, "mode": mode}
            if out:
                line["candidate"] = out[0]
                line["replaced"], line["replacement"] = replaced_span(text, out[0])
            lines.append(line)
    return sorted(lines, key=lambda line: (int(line["row"]), MODES.index(line["mode"])))


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def write_csv(path: Path, lines: list[dict[str, str]], columns: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows({column: line.get(column, "") for column in columns} for line in lines)


def keep_labels(lines: list[dict[str, str]], previous: list[dict[str, str]]) -> int:
    """Copy accept/note from ``previous`` to lines with the same row, text and candidate;
    returns how many lines got a label."""
    labels = {(p["row"], p["candidate"]): (p["accept"], p["note"]) for p in previous if p["accept"]}
    kept = 0
    for line in lines:
        label = labels.get((line["row"], line["candidate"]))
        if label and line["candidate"]:
            line["accept"], line["note"] = label
            kept += 1
    return kept


def blind(lines: list[dict[str, str]]) -> list[dict[str, str]]:
    """The unlabelled replacements, each distinct (text, candidate) once, mode hidden, shuffled."""
    items: dict[tuple[str, str], dict[str, str]] = {}
    for line in lines:
        if line["candidate"] and not line["accept"]:
            items.setdefault((line["text"], line["candidate"]), {k: line[k] for k in ("text", "replaced", "replacement", "candidate")})
    shuffled = list(items.values())
    random.Random(SAMPLE_SEED).shuffle(shuffled)
    return [{"item": str(i), **item, "accept": "", "note": ""} for i, item in enumerate(shuffled)]


def merge(lines: list[dict[str, str]], judged: list[dict[str, str]]) -> int:
    """Copy the labels of a blind file back to every line with that text and candidate."""
    labels = {(j["text"], j["candidate"]): (j["accept"], j["note"]) for j in judged if j["accept"]}
    merged = 0
    for line in lines:
        label = labels.get((line["text"], line["candidate"]))
        if label:
            line["accept"], line["note"] = label
            merged += 1
    return merged


def summary(lines: list[dict[str, str]]) -> str:
    """Per mode: rows, replacements made, judged, accepted, and the accepted share."""
    out = ["| mode | rows | rows with a replacement | judged | accepted | accepted share (of replacements) | accepted per row |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for mode in MODES:
        of_mode = [line for line in lines if line["mode"] == mode]
        made = [line for line in of_mode if line["candidate"]]
        judged = [line for line in made if line["accept"] in ("1", "0")]
        accepted = sum(line["accept"] == "1" for line in judged)
        share = accepted / len(judged) if judged else 0.0
        out.append(f"| `{mode}` | {len(of_mode)} | {len(made)} | {len(judged)} | {accepted} | "
                   f"**{share:.0%}** ({accepted}/{len(judged)}) | {accepted / len(of_mode):.0%} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=SAMPLE)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--blind", type=Path, help="write the unlabelled replacements here, mode hidden")
    group.add_argument("--merge", type=Path, help="copy the labels of a --blind file into the sample")
    group.add_argument("--summary", action="store_true", help="print the shares of the labelled sample")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(read_csv(args.out)))
        return
    if args.blind or args.merge:
        lines = read_csv(args.out)
        if args.blind:
            items = blind(lines)
            write_csv(args.blind, items, BLIND_COLUMNS)
            print(f"wrote {len(items)} replacements to judge to {args.blind}")
        else:
            merged = merge(lines, read_csv(args.merge))
            write_csv(args.out, lines, COLUMNS)
            print(f"merged labels into {merged} lines of {args.out}")
        return
    lines = make_sample(sample_rows())
    kept = keep_labels(lines, read_csv(args.out)) if args.out.exists() else 0
    write_csv(args.out, lines, COLUMNS)
    print(f"wrote {len(lines)} lines to {args.out} ({kept} kept their labels)")


if __name__ == "__main__":
    main()
