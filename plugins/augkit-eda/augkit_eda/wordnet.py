"""WordNet 3.0 synonyms from the lexicon shipped with this package.

The lexicon (``data/wordnet-3.0-lexicon.json.gz``, built by ``tools/build_wordnet_lexicon.py``
from Princeton's database files, WordNet licence in ``data/WORDNET-LICENSE``) holds every
synset's lemma names, each part of speech's lemma index and its exception lists. With
WordNet's morphology rules this answers "all lemma names of all synsets of this word" exactly
as NLTK's ``wordnet.synsets(word)`` does, without NLTK data, a download, or NLTK's
multi-second index load. For EDA's safe synonyms it also holds each sense's count in
WordNet's sense-tagged corpus, each synset's gloss words and each lemma name's Zipf
frequency; for ParaMac's antonym check, WordNet's antonym pointers and its adjective
clusters ("similar to"). These are parsed on first use only.
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
LEXICON_FORMAT = 4
#: The blocks parsed on first use only (the original EDA never needs them).
EXTRA_BLOCKS = ("sense_counts", "glosses", "zipf", "antonyms", "similar")


def _table(block: str) -> dict[str, str]:
    """``key rest-of-line`` lines as a dict."""
    return dict(line.split(" ", 1) for line in block.split("\n") if line)


class WordNetLexicon:
    """Synset membership and lemma names of WordNet, with morphological base forms, the
    sense counts, gloss words and lemma frequencies that EDA's safe synonyms rank with, and
    the antonyms that ParaMac refuses as substitutes."""

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
        # Antonym pointers (synset -> (lemma, antonym synset, antonym lemma), lemmas as
        # positions in the synset's line) and adjective clusters, parsed on first use.
        self._antonym_pointers: dict[int, list[tuple[int, int, int]]] | None = None
        self._cluster_heads: dict[int, list[int]] = {}
        self._cluster_satellites: dict[int, list[int]] = {}
        self._antonym_cache: dict[str, frozenset[str]] = {}
        # A word's spellings for the antonym test, by word: a masked LM's proposals are
        # compared with the same few thousand words over and over (issue 38's profile).
        self._spellings_cache: dict[str, frozenset[str]] = {}

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
            {name: raw[name] for name in EXTRA_BLOCKS},
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

    def direct_antonyms(self, word: str) -> frozenset[str]:
        """The lemmas that WordNet's antonym pointers lead to from a base form of ``word``,
        in any synset of any part of speech: what NLTK's ``Lemma.antonyms()`` gives, over
        the lemmas of ``wordnet.synsets(word)`` named like the base form they were found
        under. Lower case, spaces for WordNet's ``_``.

        >>> sorted(default_lexicon().direct_antonyms("increased"))
        ['decrease', 'decreased']
        """
        pointers = self._antonym_links()
        found: set[str] = set()
        for pos in PARTS_OF_SPEECH:
            for form in self.base_forms(_wordnet_key(word), pos):
                for synset_id in self.synset_ids(form, pos):
                    lemmas = self.synset_lemmas(synset_id)
                    for lemma, target, target_lemma in pointers.get(synset_id, ()):
                        if lemmas[lemma].lower() == form:
                            found.add(_text_spelling(self.synset_lemmas(target)[target_lemma]))
        return frozenset(found)

    def antonyms(self, word: str) -> frozenset[str]:
        """Words WordNet gives as opposite to ``word`` (any inflection, any case): its
        :meth:`direct_antonyms` and, for adjectives, indirect ones through WordNet's
        adjective clusters (a head synset, with antonyms, and satellites "similar to" it):

        - a head synset of ``word`` gives the lemmas of every head that one of its lemmas
          is an antonym of, and of that head's satellites: "big" (head "large, big") ->
          "small", "little", "tiny", "wee", "minuscule", ...;
        - a satellite synset gives the lemmas of the heads that its own head is an antonym
          of: "tiny" (similar to "small, little") -> "large", "big", but not "huge" (another
          satellite of "large"). WordNet stops there too, and a polysemous satellite would
          otherwise take in whole clusters ("big" is also similar to "important": every
          satellite of "unimportant" would become its antonym);
        - an indirect antonym is never a word that WordNet also gives as a synonym of
          ``word`` (a lemma of one of its synsets): "blessed" is opposite to "cursed", but
          "damned", a satellite of "cursed", is also its synonym ("every blessed minute"),
          so it is not its antonym. Direct antonyms are kept as WordNet states them.

        This is what WordNet's own browser lists (``wn WORD -antsa``), except that it
        follows a head synset's antonyms from the searched lemma only: "cognisant" (head
        "aware, cognizant, cognisant", with "aware" vs "unaware") gets none there.

        Lower-case lemma names, spaces for WordNet's ``_`` ("fall asleep"), as a sentence
        spells them.

        >>> {"small", "little", "tiny"} <= default_lexicon().antonyms("bigger")
        True
        """
        key = _wordnet_key(word)
        found = self._antonym_cache.get(key)
        if found is None:
            synonyms = {_text_spelling(name) for name in self.lemma_names(key)}
            found = self.direct_antonyms(key) | (self._indirect_antonyms(key) - synonyms)
            self._antonym_cache[key] = found
        return found

    def is_antonym(self, word: str, other: str) -> bool:
        """Whether WordNet gives ``other`` as an antonym of ``word`` (:meth:`antonyms`),
        comparing the base forms of both ("smaller" vs "large": True), either way round (so
        the answer does not depend on which word came first).

        >>> default_lexicon().is_antonym("large", "smaller")
        True
        """
        return bool(self._spellings(other) & self.antonyms(word)) or bool(
            self._spellings(word) & self.antonyms(other)
        )

    def _spellings(self, word: str) -> frozenset[str]:
        """``word`` and its base forms in every part of speech, as :meth:`antonyms` spells them."""
        found = self._spellings_cache.get(word)
        if found is None:
            key = _wordnet_key(word)
            forms = {key, *(form for pos in PARTS_OF_SPEECH for form in self.base_forms(key, pos))}
            found = self._spellings_cache[word] = frozenset(_text_spelling(form) for form in forms)
        return found

    def _indirect_antonyms(self, key: str) -> set[str]:
        """The adjective part of :meth:`antonyms`, before synonyms are left out."""
        pointers = self._antonym_links()
        synset_ids = {synset for form in self.base_forms(key, "a") for synset in self.synset_ids(form, "a")}
        found: set[str] = set()
        for synset_id in synset_ids:
            satellite = synset_id in self._cluster_heads
            for head in self._cluster_heads.get(synset_id, [synset_id]):
                for _, opposite, _ in pointers.get(head, ()):
                    members = [opposite]
                    if not satellite:
                        members += self._cluster_satellites.get(opposite, [])
                    for member in members:
                        found.update(_text_spelling(name) for name in self.synset_lemmas(member))
        return found

    def _antonym_links(self) -> dict[int, list[tuple[int, int, int]]]:
        """The antonym pointers by source synset, parsing them and the adjective clusters
        on first use."""
        if self._antonym_pointers is None:
            pointers: dict[int, list[tuple[int, int, int]]] = {}
            for synset, links in _table(self._extras["antonyms"]).items():
                pointers[int(synset)] = [
                    (int(lemma), int(target), int(target_lemma))
                    for lemma, target, target_lemma in (link.split(":") for link in links.split(" "))
                ]
            satellites: dict[int, list[int]] = {}
            heads: dict[int, list[int]] = {}
            for head, runs in _table(self._extras["similar"]).items():
                satellites[int(head)] = [member for run in runs.split(" ") for member in _id_run(run)]
                for satellite in satellites[int(head)]:
                    heads.setdefault(satellite, []).append(int(head))
            # Pointers last: once they are set, the clusters are complete.
            self._cluster_satellites, self._cluster_heads = satellites, heads
            self._antonym_pointers = pointers
        return self._antonym_pointers


def _wordnet_key(word: str) -> str:
    """How the lexicon's index spells ``word``: lower case, ``_`` for spaces."""
    return word.lower().replace(" ", "_")


def _text_spelling(name: str) -> str:
    """A lemma name as a sentence spells it: lower case, spaces for ``_``."""
    return name.lower().replace("_", " ")


def _id_run(run: str) -> range:
    """The ids of a ``first-last`` run or a lone ``id`` (the builder's ``similar`` block)."""
    first, _, last = run.partition("-")
    return range(int(first), int(last or first) + 1)


@functools.lru_cache(maxsize=1)
def default_lexicon() -> WordNetLexicon:
    """The shipped WordNet 3.0 lexicon, loaded once per process."""
    shipped = resources.files("augkit_eda").joinpath(LEXICON_RESOURCE)
    try:
        payload = shipped.read_bytes()
    except FileNotFoundError as error:  # a wheel built without its package data
        from augkit.plugin import MissingDependencyError

        raise MissingDependencyError(f"EDA's WordNet lexicon is missing from this install ({shipped}): "
                                     "pip install --force-reinstall augkit") from error
    return WordNetLexicon.from_bytes(payload)
