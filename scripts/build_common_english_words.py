"""Build ``augkit/filters/data/common-english-words.txt.gz``: the English words at least as
common as ``MIN_ZIPF`` in ``wordfreq`` 3 (its data is frozen), which the ``entities`` filter's
``rare`` source reads to tell a name ("amex", "gatlinburg") from an English word.

    .venv/bin/python scripts/build_common_english_words.py          # rewrite the file
    .venv/bin/python scripts/build_common_english_words.py --check  # exit 1 if it differs

``tests/test_learnt_names.py`` rebuilds it and compares the bytes. The list is derived from
wordfreq's data (CC BY-SA 4.0, Robyn Speer; see the file's header line).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

#: Zipf frequency 3.0: once per million words. Rarer words that recur in a data set are taken
#: for names (see augkit.filters.learnt_names).
MIN_ZIPF = 3.0
#: The words kept: lower-case letters, with one inner apostrophe at most ("don't").
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
OUTPUT = Path(__file__).resolve().parents[1] / "augkit" / "filters" / "data" / "common-english-words.txt.gz"
HEADER = "# English words with Zipf frequency >= 3.0 in wordfreq 3 (data CC BY-SA 4.0, Robyn Speer), one a line"


def build() -> bytes:
    """The gzip file's bytes (no timestamp, so a rebuild is byte for byte the same)."""
    from wordfreq import iter_wordlist, zipf_frequency

    words = set()
    for word in iter_wordlist("en", "best"):
        if zipf_frequency(word, "en") < MIN_ZIPF:
            break  # the list is in order of frequency
        if _WORD.fullmatch(word):
            words.add(word)
    text = "\n".join([HEADER, *sorted(words)]) + "\n"
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file instead of writing it")
    args = parser.parse_args(argv)
    data = build()
    if args.check:
        same = OUTPUT.read_bytes() == data
        print("up to date" if same else f"{OUTPUT} differs from a rebuild")
        return 0 if same else 1
    OUTPUT.write_bytes(data)
    print(f"wrote {OUTPUT} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
