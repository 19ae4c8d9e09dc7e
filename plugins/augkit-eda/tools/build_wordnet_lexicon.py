"""Build the synonym lexicon that augkit-eda ships, from the WordNet 3.0 database files.

Why a derived lexicon: NLTK's WordNet reader needs a prepared data folder (which a fresh
machine does not have, and ``nltk.download`` needs the network) and takes seconds to load
its index. EDA only needs "which synsets contain this lemma" and "which lemma names does a
synset have", plus WordNet's morphological exception lists. This script extracts exactly
that from Princeton's database files (Debian package ``wordnet-base``), so the plugin ships a
small gzipped JSON file under WordNet's licence and loads it in a fraction of a second.

The output is byte-for-byte reproducible (sorted keys, gzip mtime 0), and the test suite
rebuilds it from ``/usr/share/wordnet`` and compares it with the shipped file.

Usage::

    python tools/build_wordnet_lexicon.py --wordnet-dir /usr/share/wordnet \
        --output augkit_eda/data/wordnet-3.0-lexicon.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
from pathlib import Path

#: WordNet file suffix for each part of speech, in the order NLTK's ``synsets`` visits them.
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
FORMAT_VERSION = 2
#: Adjective lemmas may carry a syntactic marker such as ``(a)``, ``(p)`` or ``(ip)``.
SYNTACTIC_MARKER = re.compile(r"\([a-z]+\)$")


def read_data_file(path: Path) -> dict[int, list[str]]:
    """Map each synset offset in a ``data.*`` file to its lemma names, in file order."""
    synsets: dict[int, list[str]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("  "):  # licence header
                continue
            fields = line.split(" ", 4 + 2 * 255)
            offset = int(fields[0])
            word_count = int(fields[3], 16)
            names = [SYNTACTIC_MARKER.sub("", fields[4 + 2 * i]) for i in range(word_count)]
            synsets[offset] = names
    return synsets


def read_index_file(path: Path) -> dict[str, list[int]]:
    """Map each lemma in an ``index.*`` file to the offsets of its synsets, in sense order."""
    index: dict[str, list[int]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("  "):
                continue
            fields = line.split()
            lemma, synset_count, pointer_count = fields[0], int(fields[2]), int(fields[3])
            offsets_start = 4 + pointer_count + 2
            index[lemma] = [int(o) for o in fields[offsets_start : offsets_start + synset_count]]
    return index


def read_exceptions(path: Path) -> dict[str, list[str]]:
    """Map each irregular inflected form in a ``*.exc`` file to its base forms."""
    exceptions: dict[str, list[str]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            terms = line.split()
            if terms:
                exceptions[terms[0]] = terms[1:]
    return exceptions


def build_lexicon(wordnet_dir: Path) -> dict:
    """Assemble the lexicon as line-oriented text blocks (fast to split at load time).

    - ``synsets``: one line per synset, its lemma names separated by spaces; the line
      number is the synset id.
    - ``index[pos]``: one line per lemma, ``lemma id id ...`` in WordNet's sense order.
    - ``exceptions[pos]``: one line per irregular form, ``form base base ...``.
    """
    synset_ids: dict[tuple[str, int], int] = {}
    synset_lines: list[str] = []
    index: dict[str, str] = {}
    exceptions: dict[str, str] = {}
    for pos, suffix in POS_FILES.items():
        data = read_data_file(wordnet_dir / f"data.{suffix}")
        for offset in sorted(data):
            synset_ids[(pos, offset)] = len(synset_lines)
            synset_lines.append(" ".join(data[offset]))
        lemma_index = read_index_file(wordnet_dir / f"index.{suffix}")
        index[pos] = "\n".join(
            " ".join([lemma, *(str(synset_ids[(pos, offset)]) for offset in offsets)])
            for lemma, offsets in sorted(lemma_index.items())
        )
        exception_map = read_exceptions(wordnet_dir / f"{suffix}.exc")
        exceptions[pos] = "\n".join(
            " ".join([form, *bases]) for form, bases in sorted(exception_map.items())
        )
    return {
        "format": FORMAT_VERSION,
        "source": "Princeton WordNet 3.0 database files (data.*, index.*, *.exc)",
        "synsets": "\n".join(synset_lines),
        "index": index,
        "exceptions": exceptions,
    }


def serialise(lexicon: dict) -> bytes:
    """Gzipped JSON with sorted keys and a zero timestamp, so rebuilds are byte-identical."""
    payload = json.dumps(lexicon, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0) as archive:
        archive.write(payload.encode("utf-8"))
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet-dir", type=Path, default=Path("/usr/share/wordnet"))
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    args.output.write_bytes(serialise(build_lexicon(args.wordnet_dir)))
    print(f"wrote {args.output} ({args.output.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
