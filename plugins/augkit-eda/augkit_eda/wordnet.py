"""WordNet 3.0 synonyms from the lexicon shipped with this package.

The lexicon (``data/wordnet-3.0-lexicon.json.gz``, built by ``tools/build_wordnet_lexicon.py``
from Princeton's database files, WordNet licence in ``data/WORDNET-LICENSE``) holds every
synset's lemma names, each part of speech's lemma index and its exception lists. With
WordNet's morphology rules this answers "all lemma names of all synsets of this word" exactly
as NLTK's ``wordnet.synsets(word)`` does, without NLTK data, a download, or NLTK's
multi-second index load. For EDA's safe synonyms it also holds each sense's count in
WordNet's sense-tagged corpus, each synset's gloss words and each lemma name's Zipf
frequency; these are parsed on first use only.
"""

from __future__ import annotations

import functools
import gzip
import json
from importlib import resources

#: Parts of speech in the order NLTK's ``synsets`` visits them.
PARTS_OF_SPEECH = ("n", "v", "a", "r")

#: WordNet's detachment rules (suffix, replacement) per part of speech, tried once on a form
#: that is not in the exception list.
DETACHMENT_RULES = {
    "n": (("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
LEXICON_RESOURCE = "data/wordnet-3.0-lexicon.json.gz"
LEXICON_FORMAT = 3


def _table(block: str) -> dict[str, str]:
    """``key rest-of-line`` lines as a dict."""
    return dict(line.split(" ", 1) for line in block.split("\n") if line)


class WordNetLexicon:
    """Synset membership and lemma names of WordNet, with morphological base forms, and the
    sense counts, gloss words and lemma frequencies that EDA's safe synonyms rank with."""

    def __init__(
        self,
        synsets: list[str],
        index: dict[str, dict[str, str]],
        exceptions: dict[str, dict[str, str]],
        extras: dict[str, object] | None = None,
    ):
        self._synsets = synsets
        self._index = index
        self._exceptions = exceptions
        self._cache: dict[str, tuple[str, ...]] = {}
        # Raw blocks for the safe synonyms, parsed on first use (the original EDA never needs them).
        self._extras = extras or {}
        self._sense_counts: dict[str, dict[str, str]] | None = None
        self._glosses: list[str] | None = None
        self._gloss_word_sets: dict[int, frozenset[str]] = {}
        self._zipf: dict[str, str] | None = None
        self._gloss_keys: dict[str, str] = {}

    @classmethod
    def from_bytes(cls, payload: bytes) -> WordNetLexicon:
        """Read a lexicon written by ``tools/build_wordnet_lexicon.py``."""
        raw = json.loads(gzip.decompress(payload))
        if raw.get("format") != LEXICON_FORMAT:
            raise ValueError(f"unsupported WordNet lexicon format {raw.get('format')!r}")
        return cls.from_blocks(
            raw["synsets"].split("\n"),
            raw["index"],
            raw["exceptions"],
            {name: raw[name] for name in ("sense_counts", "glosses", "zipf")},
        )

    @classmethod
    def from_blocks(
        cls,
        synsets: list[str],
        index: dict[str, str],
        exceptions: dict[str, str],
        extras: dict[str, object] | None = None,
    ) -> WordNetLexicon:
        """A lexicon from the builder's text blocks (one line per lemma or form)."""
        return cls(
            synsets,
            {pos: _table(index[pos]) for pos in PARTS_OF_SPEECH},
            {pos: _table(exceptions[pos]) for pos in PARTS_OF_SPEECH},
            extras,
        )

    def base_forms(self, word: str, pos: str) -> list[str]:
        """The lemmas of ``pos`` that ``word`` may be an inflection of (itself included),
        following WordNet's morphy: the exception list if it has ``word``, else one
        application of the detachment rules; only forms in the index count."""
        exception = self._exceptions[pos].get(word)
        if exception is not None:
            forms = exception.split(" ")
        else:
            forms = [word[: -len(old)] + new for old, new in DETACHMENT_RULES[pos] if word.endswith(old)]
        index = self._index[pos]
        found: list[str] = []
        for form in [word, *forms]:
            if form in index and form not in found:
                found.append(form)
        return found

    def lemma_names(self, word: str) -> tuple[str, ...]:
        """Lemma names (WordNet spelling, ``_`` for spaces) of every synset of ``word`` in any
        part of speech, in WordNet order, without repeats.

        >>> "car" in default_lexicon().lemma_names("automobiles")
        True
        """
        key = word.lower()
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        names: dict[str, None] = {}
        for pos in PARTS_OF_SPEECH:
            for form in self.base_forms(key, pos):
                for synset_id in self._index[pos][form].split(" "):
                    names.update(dict.fromkeys(self._synsets[int(synset_id)].split(" ")))
        result = tuple(names)
        self._cache[key] = result
        return result


    def synset_ids(self, lemma: str, pos: str) -> list[int]:
        """The synsets of ``lemma`` (a base form, lower case) in ``pos``, in WordNet's sense
        order (most frequent first); empty if it has none."""
        line = self._index[pos].get(lemma)
        return [int(synset_id) for synset_id in line.split(" ")] if line else []

    def synset_lemmas(self, synset_id: int) -> list[str]:
        """The lemma names of a synset as WordNet spells them ("Word_of_God", "bank_account")."""
        return self._synsets[synset_id].split(" ")

    def inflected_forms(self, pos: str) -> dict[str, str]:
        """WordNet's exception list of ``pos``: irregular form -> its base forms (space-separated)."""
        return self._exceptions[pos]

    def sense_counts(self, lemma: str, pos: str) -> list[int]:
        """How often each synset of :meth:`synset_ids` was tagged for ``lemma`` in WordNet's
        semantic concordance (SemCor), in the same order; zeros where it never was."""
        if self._sense_counts is None:
            blocks = self._extras["sense_counts"]
            self._sense_counts = {pos_: _table(blocks[pos_]) for pos_ in PARTS_OF_SPEECH}
        line = self._sense_counts[pos].get(lemma)
        counts = [int(count) for count in line.split(" ")] if line else []
        return counts + [0] * (len(self.synset_ids(lemma, pos)) - len(counts))

    def gloss_words(self, synset_id: int) -> frozenset[str]:
        """The synset's gloss words: content words of its definition, examples and lemma
        names, as :meth:`gloss_key` forms (for gloss overlap with a sentence)."""
        found = self._gloss_word_sets.get(synset_id)
        if found is None:
            if self._glosses is None:
                self._glosses = self._extras["glosses"].split("\n")
            found = self._gloss_word_sets[synset_id] = frozenset(self._glosses[synset_id].split())
        return found

    def zipf(self, lemma_name: str) -> float:
        """How common a lemma name is in English: its Zipf frequency (log10 of occurrences
        per billion words; 3 is once per million words) from ``wordfreq``, 0 if rarer than
        the lexicon stores (zipf 1). ``lemma_name`` as WordNet spells it, any case."""
        if self._zipf is None:
            self._zipf = _table(self._extras["zipf"])
        value = self._zipf.get(lemma_name.lower())
        return float(value) if value is not None else 0.0

    def gloss_key(self, word: str) -> str:
        """The form under which ``word`` is compared with gloss words: its first WordNet base
        form in the order noun, verb, adjective, adverb ("withdrawals" -> "withdrawal",
        "charged" -> "charge"), else the lower-cased word itself."""
        key = word.lower()
        found = self._gloss_keys.get(key)
        if found is None:
            found = key
            for pos in PARTS_OF_SPEECH:
                forms = self.base_forms(key, pos)
                if forms:
                    found = forms[0]
                    break
            self._gloss_keys[key] = found
        return found


@functools.lru_cache(maxsize=1)
def default_lexicon() -> WordNetLexicon:
    """The shipped WordNet 3.0 lexicon, loaded once per process."""
    payload = resources.files("augkit_eda").joinpath(LEXICON_RESOURCE).read_bytes()
    return WordNetLexicon.from_bytes(payload)
