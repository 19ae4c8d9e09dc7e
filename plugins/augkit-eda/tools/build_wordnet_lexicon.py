"""Build the synonym lexicon that EDA (augkit_eda, built into augkit) ships, from the WordNet 3.0 database files.

Why a derived lexicon: NLTK's WordNet reader needs a prepared data folder (which a fresh
machine does not have, and ``nltk.download`` needs the network) and takes seconds to load
its index. EDA's original synonyms only need "which synsets contain this lemma" and "which
lemma names does a synset have", plus WordNet's morphological exception lists. Its safe
synonyms (``synonyms="safe"``) also need, to pick the sense a sentence means and to keep
rare words out: how often each sense of a lemma was seen in WordNet's sense-tagged corpus
(``index.sense``), each synset's gloss words, and how common each lemma name is in English
(its Zipf frequency from the ``wordfreq`` package, 3.x, whose data is frozen). ParaMac's
antonym check needs WordNet's antonym pointers between lemmas and, for the indirect
antonyms of adjectives, its "similar to" links between adjective head synsets and their
satellites. This script extracts exactly that from Princeton's database files (Debian
package ``wordnet-base``), so the plugin ships a small gzipped JSON file under WordNet's
licence and loads it in a fraction of a second.

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
import math
import re
from pathlib import Path

from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_eda.wordnet import WordNetLexicon

#: WordNet file suffix for each part of speech, in the order NLTK's ``synsets`` visits them.
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
FORMAT_VERSION = 4
#: Adjective lemmas may carry a syntactic marker such as ``(a)``, ``(p)`` or ``(ip)``.
SYNTACTIC_MARKER = re.compile(r"\([a-z]+\)$")
#: ``index.sense`` synset types: 5 is an adjective satellite, listed with adjectives.
SENSE_KEY_POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}
#: Words of a gloss: lower-case letters with inner hyphens (contractions such as "i'm" in
#: the examples are not content words).
GLOSS_WORD = re.compile(r"(?<!['a-z-])[a-z]+(?:-[a-z]+)*(?!['a-z-])")
#: Words that WordNet's definitions use for every kind of sense ("a person who...", "the act
#: of...", "cause to become..."): they say nothing about which sense a sentence means, so,
#: like EDA's stop words, they are left out of the gloss words.
GLOSS_FILLER = frozenset(
    """something someone somebody used use especially usually often etc e g one thing person
    people act state quality make cause become get give take put way manner also kind
    sort part may go come have do keep let set"""
    .split()
)
#: Gloss words at least this common in English (Zipf 5.7, once in 2,000 words: "go", "see",
#: "time", "work", "want") are left out too: they turn up in glosses and requests of every
#: topic, so sharing one says nothing about the sense ("money", 5.6, stays).
COMMON_WORD_ZIPF = 5.7
#: Lemma names rarer than this Zipf frequency (once per 10 million words) are not stored
#: (read as 0): EDA's default floor is far above, and the 26,000 rarer names (mostly
#: multiword) would add 150 kB. Stored values are cut (not rounded) to one decimal, so a
#: floor with one decimal compares exactly as with wordfreq's own value.
STORED_ZIPF_FLOOR = 2.0
#: WordNet pointer symbols (wninput(5WN)): antonym, a lexical pointer between two lemmas
#: of the same part of speech; and "similar to", which links an adjective head synset
#: with each of its satellites, in both directions.
ANTONYM = "!"
SIMILAR_TO = "&"
#: A pointer as ``read_pointers`` gives it: symbol, target offset, target part of speech,
#: source and target word numbers (a synset's lemmas count from 1; 0 for whole synsets).
Pointer = tuple[str, int, str, int, int]


def read_data_file(path: Path) -> dict[int, tuple[list[str], str]]:
    """Map each synset offset in a ``data.*`` file to its lemma names, in file order, and
    its gloss (definition and examples)."""
    synsets: dict[int, tuple[list[str], str]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("  "):  # licence header
                continue
            fields = line.split(" ", 4 + 2 * 255)
            offset = int(fields[0])
            word_count = int(fields[3], 16)
            names = [SYNTACTIC_MARKER.sub("", fields[4 + 2 * i]) for i in range(word_count)]
            gloss = line.split(" | ", 1)[1].strip() if " | " in line else ""
            synsets[offset] = (names, gloss)
    return synsets


def read_pointers(path: Path, symbols: set[str]) -> dict[int, tuple[str, list[Pointer]]]:
    """Map each synset offset in a ``data.*`` file that has pointers with a symbol in
    ``symbols`` to its synset type (``n``, ``v``, ``a``, ``s`` for an adjective satellite,
    ``r``) and those pointers, in file order."""
    synsets: dict[int, tuple[str, list[Pointer]]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("  "):
                continue
            fields = line.split(" | ", 1)[0].split(" ")
            start = 4 + 2 * int(fields[3], 16)
            pointers = []
            for i in range(start + 1, start + 1 + 4 * int(fields[start]), 4):
                symbol, target, target_pos, words = fields[i : i + 4]
                if symbol in symbols:
                    source_word, target_word = int(words[:2], 16), int(words[2:], 16)
                    pointers.append((symbol, int(target), target_pos, source_word, target_word))
            if pointers:
                synsets[int(fields[0])] = (fields[2], pointers)
    return synsets


def antonym_blocks(wordnet_dir: Path, synset_ids: dict[tuple[str, int], int]) -> tuple[str, str]:
    """The ``antonyms`` and ``similar`` blocks (see :func:`build_lexicon`) from the antonym
    and "similar to" pointers of the ``data.*`` files."""
    antonyms: dict[int, list[str]] = {}
    satellites: dict[int, set[int]] = {}
    for pos, suffix in POS_FILES.items():
        symbols = {ANTONYM, SIMILAR_TO} if pos == "a" else {ANTONYM}
        for offset, (synset_type, pointers) in read_pointers(wordnet_dir / f"data.{suffix}", symbols).items():
            source = synset_ids[(pos, offset)]
            for symbol, target_offset, target_pos, source_word, target_word in pointers:
                # Pointers name satellites "a" (wninput(5WN) also allows "s"): both are in data.adj.
                target = synset_ids[("a" if target_pos == "s" else target_pos, target_offset)]
                if symbol == ANTONYM:
                    link = f"{source_word - 1}:{target}:{target_word - 1}"
                    antonyms.setdefault(source, []).append(link)
                else:
                    # A head points at each satellite and each satellite back at its head:
                    # the union of both directions, keyed by head.
                    head, satellite = (target, source) if synset_type == "s" else (source, target)
                    satellites.setdefault(head, set()).add(satellite)
    antonym_block = "\n".join(" ".join([str(synset), *antonyms[synset]]) for synset in sorted(antonyms))
    similar_block = "\n".join(
        " ".join([str(head), *id_runs(sorted(satellites[head]))]) for head in sorted(satellites)
    )
    return antonym_block, similar_block


def id_runs(ids: list[int]) -> list[str]:
    """Sorted ids as runs of consecutive ids, ``first-last`` or a lone ``id``: WordNet lists
    an adjective cluster's satellites right after its head, so a cluster is one run (this
    halves the ``similar`` block)."""
    runs: list[list[int]] = []
    for synset_id in ids:
        if runs and synset_id == runs[-1][1] + 1:
            runs[-1][1] = synset_id
        else:
            runs.append([synset_id, synset_id])
    return [f"{first}-{last}" if last > first else str(first) for first, last in runs]


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


def read_sense_counts(path: Path) -> dict[tuple[str, str, int], int]:
    """How often each (part of speech, lemma, synset offset) sense was tagged in WordNet's
    semantic concordance (``index.sense``: ``sense_key offset sense_number tag_count``)."""
    counts: dict[tuple[str, str, int], int] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            sense_key, offset, _, tag_count = line.split()
            lemma, lexical = sense_key.split("%", 1)
            counts[(SENSE_KEY_POS[lexical[0]], lemma, int(offset))] = int(tag_count)
    return counts


def gloss_words(lexicon: WordNetLexicon, names: list[str], gloss: str, common: set[str]) -> list[str]:
    """A synset's words for gloss overlap: the content words of its definition and examples
    and of its lemma names, each as :meth:`WordNetLexicon.gloss_key` (a base form), without
    stop words, definition filler and ``common`` words, in order of appearance."""
    text = " ".join([gloss.lower(), *(name.replace("_", " ").lower() for name in names)])
    keys: dict[str, None] = {}
    for word in GLOSS_WORD.findall(text):
        key = lexicon.gloss_key(word)
        if not {word, key} & (EDA_STOP_WORDS | GLOSS_FILLER | common):
            keys[key] = None
    return list(keys)


def common_words(texts: list[str]) -> set[str]:
    """The words of ``texts`` at least as common as ``COMMON_WORD_ZIPF`` (wordfreq)."""
    from wordfreq import zipf_frequency

    words = {word for text in texts for word in GLOSS_WORD.findall(text.lower())}
    return {word for word in words if zipf_frequency(word, "en") >= COMMON_WORD_ZIPF}


def zipf_frequencies(names: set[str]) -> dict[str, float]:
    """Zipf frequency (log10 of occurrences per billion words) in English of each lemma name
    (lower case, ``_`` for spaces), from ``wordfreq``; names below the stored floor left out."""
    from wordfreq import zipf_frequency

    found = {}
    for name in names:
        zipf = math.floor(zipf_frequency(name.replace("_", " "), "en") * 10 + 1e-9) / 10
        if zipf >= STORED_ZIPF_FLOOR:
            found[name] = zipf
    return found


def tagged_synsets(counts: dict[tuple[str, str, int], int], synset_ids: dict[tuple[str, int], int]) -> set[int]:
    """Synsets that some lemma was tagged with at least once: the only senses the safe
    synonyms choose between by gloss overlap (an untagged sense is never a candidate sense
    of a word with tagged senses, and a word without any is used only when it has one sense)."""
    return {synset_ids[(pos, offset)] for (pos, _, offset), count in counts.items() if count > 0}


def build_lexicon(wordnet_dir: Path) -> dict:
    """Assemble the lexicon as line-oriented text blocks (fast to split at load time).

    - ``synsets``: one line per synset, its lemma names separated by spaces; the line
      number is the synset id.
    - ``index[pos]``: one line per lemma, ``lemma id id ...`` in WordNet's sense order.
    - ``exceptions[pos]``: one line per irregular form, ``form base base ...``.
    - ``sense_counts[pos]``: for lemmas with a tagged sense, ``lemma count count ...``, one
      count per synset of the index line, in the same order (trailing zeros left out).
    - ``glosses``: one line per synset (same numbering), its gloss words (:func:`gloss_words`);
      empty for synsets never tagged in the concordance (:func:`tagged_synsets`).
    - ``zipf``: one line per lemma name at least as common as ``STORED_ZIPF_FLOOR``,
      ``name zipf`` (lower case, ``_`` for spaces, one decimal).
    - ``antonyms``: one line per synset with a lemma that has antonyms,
      ``synset lemma:antonym_synset:antonym_lemma ...``, lemmas as their 0-based position
      in the synset's line, pointers in WordNet's order.
    - ``similar``: one line per adjective head synset with satellites, ``head satellites``,
      the satellites as runs of ids (:func:`id_runs`): WordNet's "similar to" links, which
      it lists in both directions.
    """
    synset_ids: dict[tuple[str, int], int] = {}
    synset_lines: list[str] = []
    synset_glosses: list[str] = []
    index: dict[str, str] = {}
    exceptions: dict[str, str] = {}
    sense_counts: dict[str, str] = {}
    counts = read_sense_counts(wordnet_dir / "index.sense")
    for pos, suffix in POS_FILES.items():
        data = read_data_file(wordnet_dir / f"data.{suffix}")
        for offset in sorted(data):
            synset_ids[(pos, offset)] = len(synset_lines)
            synset_lines.append(" ".join(data[offset][0]))
            synset_glosses.append(data[offset][1])
        lemma_index = read_index_file(wordnet_dir / f"index.{suffix}")
        index[pos] = "\n".join(
            " ".join([lemma, *(str(synset_ids[(pos, offset)]) for offset in offsets)])
            for lemma, offsets in sorted(lemma_index.items())
        )
        exception_map = read_exceptions(wordnet_dir / f"{suffix}.exc")
        exceptions[pos] = "\n".join(
            " ".join([form, *bases]) for form, bases in sorted(exception_map.items())
        )
        count_lines = []
        for lemma, offsets in sorted(lemma_index.items()):
            lemma_counts = [counts.get((pos, lemma, offset), 0) for offset in offsets]
            while lemma_counts and not lemma_counts[-1]:
                lemma_counts.pop()
            if lemma_counts:
                count_lines.append(" ".join([lemma, *map(str, lemma_counts)]))
        sense_counts[pos] = "\n".join(count_lines)
    lexicon = WordNetLexicon.from_blocks(synset_lines, index, exceptions)
    tagged = tagged_synsets(counts, synset_ids)
    common = common_words([synset_glosses[synset_id] for synset_id in sorted(tagged)])
    common |= {lexicon.gloss_key(word) for word in common}
    glosses = [
        " ".join(gloss_words(lexicon, names.split(" "), gloss, common)) if synset_id in tagged else ""
        for synset_id, (names, gloss) in enumerate(zip(synset_lines, synset_glosses))
    ]
    names = {name.lower() for line in synset_lines for name in line.split(" ")}
    zipf = zipf_frequencies(names)
    antonyms, similar = antonym_blocks(wordnet_dir, synset_ids)
    return {
        "format": FORMAT_VERSION,
        "source": "Princeton WordNet 3.0 database files (data.*, index.*, index.sense, *.exc); "
        "Zipf frequencies from wordfreq 3",
        "synsets": "\n".join(synset_lines),
        "index": index,
        "exceptions": exceptions,
        "sense_counts": sense_counts,
        "glosses": "\n".join(glosses),
        "zipf": "\n".join(f"{name} {zipf[name]:g}" for name in sorted(zipf)),
        "antonyms": antonyms,
        "similar": similar,
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
