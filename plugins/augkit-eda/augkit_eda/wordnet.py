"""WordNet 3.0 synonyms from the lexicon shipped with this package.

The lexicon (``data/wordnet-3.0-lexicon.json.gz``, built by ``tools/build_wordnet_lexicon.py``
from Princeton's database files, WordNet licence in ``data/WORDNET-LICENSE``) holds every
synset's lemma names, each part of speech's lemma index and its exception lists. With
WordNet's morphology rules this answers "all lemma names of all synsets of this word" exactly
as NLTK's ``wordnet.synsets(word)`` does, without NLTK data, a download, or NLTK's
multi-second index load: the first lookup in a fresh process reads ~2 MB.
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


class WordNetLexicon:
    """Synset membership and lemma names of WordNet, with morphological base forms."""

    def __init__(self, synsets: list[str], index: dict[str, dict[str, str]], exceptions: dict[str, dict[str, str]]):
        self._synsets = synsets
        self._index = index
        self._exceptions = exceptions
        self._cache: dict[str, tuple[str, ...]] = {}

    @classmethod
    def from_bytes(cls, payload: bytes) -> WordNetLexicon:
        """Read a lexicon written by ``tools/build_wordnet_lexicon.py``."""
        raw = json.loads(gzip.decompress(payload))
        if raw.get("format") != 2:
            raise ValueError(f"unsupported WordNet lexicon format {raw.get('format')!r}")

        def table(block: str) -> dict[str, str]:
            return dict(line.split(" ", 1) for line in block.split("\n") if line)

        return cls(
            raw["synsets"].split("\n"),
            {pos: table(raw["index"][pos]) for pos in PARTS_OF_SPEECH},
            {pos: table(raw["exceptions"][pos]) for pos in PARTS_OF_SPEECH},
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


@functools.lru_cache(maxsize=1)
def default_lexicon() -> WordNetLexicon:
    """The shipped WordNet 3.0 lexicon, loaded once per process."""
    payload = resources.files("augkit_eda").joinpath(LEXICON_RESOURCE).read_bytes()
    return WordNetLexicon.from_bytes(payload)
