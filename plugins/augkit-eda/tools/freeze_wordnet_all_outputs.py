"""Freeze the original EDA's outputs on real BANKING77 rows, so the paper's baseline stays
reproducible byte for byte after EDA gains other synonym sources.

The file it writes (``tests/data/wordnet-all-outputs.json.gz``) was produced by the EDA of
commit ea3b42e, before synonym modes existed: every lemma of every WordNet synset of a word,
the behaviour of Wei and Zou's reference code. ``tests/test_wordnet_all.py`` regenerates the
outputs with ``synonyms="wordnet-all"`` and compares them with this file. Each row gets its
own ``random.Random(row number)``, so the file does not depend on augkit's engine or seeding.

Usage (from the repository root, with ../shared/data beside it)::

    python plugins/augkit-eda/tools/freeze_wordnet_all_outputs.py \
        --output plugins/augkit-eda/tests/data/wordnet-all-outputs.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import inspect
import io
import json
import os
import random
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))
#: Rows 0-299 of BANKING77's official training CSV: real sentences with casing, digits,
#: contractions and punctuation (the acceptance sample of docs/benchmarks/eda-synonyms.md
#: uses other rows).
ROWS = range(300)
#: (name, EDA parameters, outputs per row): the paper's defaults with all four operations,
#: each synonym-based operation alone, and the reference's normalisation.
CONFIGURATIONS = [
    ("default", {}, 4),
    ("synonym replacement", {"alpha_sr": 0.3, "alpha_ri": 0, "alpha_rs": 0, "p_rd": 0}, 2),
    ("random insertion", {"alpha_sr": 0, "alpha_ri": 0.3, "alpha_rs": 0, "p_rd": 0}, 2),
    ("normalize", {"normalize": True}, 4),
]


def banking77_rows() -> list[str]:
    """The frozen rows' texts (the CSV is read with the standard library: no pandas needed)."""
    import csv

    with (SHARED_DATA / "banking77" / "polyai" / "train.csv").open(encoding="utf-8", newline="") as handle:
        texts = [row["text"] for row in csv.DictReader(handle)]
    return [texts[i] for i in ROWS]


def original_eda_outputs(texts: list[str]) -> dict[str, list[list[str]]]:
    """Each configuration's outputs per text, from the original synonym source (the only
    one before synonym modes; ``synonyms="wordnet-all"`` since)."""
    from augkit_eda import EDA

    original = {"synonyms": "wordnet-all"} if "synonyms" in inspect.signature(EDA).parameters else {}
    outputs = {}
    for name, params, n in CONFIGURATIONS:
        eda = EDA(**params, **original)
        outputs[name] = [eda.augment(text, n, random.Random(row)) for row, text in zip(ROWS, texts)]
    return outputs


def serialise(texts: list[str], outputs: dict[str, list[list[str]]]) -> bytes:
    payload = json.dumps({"texts": texts, "outputs": outputs}, ensure_ascii=False, indent=0, sort_keys=True)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0) as archive:
        archive.write(payload.encode("utf-8"))
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    texts = banking77_rows()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(serialise(texts, original_eda_outputs(texts)))
    print(f"wrote {args.output} ({args.output.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
