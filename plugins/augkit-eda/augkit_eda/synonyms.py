"""Where EDA's synonyms come from: every WordNet lemma (the paper), or only the safe ones.

EDA's synonym replacement and random insertion ask, once per text, for each word's
synonyms. Two sources answer:

- :class:`WordNetAllSynonyms` (``synonyms="wordnet-all"``): every lemma name of every synset
  of the word, in any part of speech, as the EDA paper's code does. "add" may become
  "attention deficit disorder", "know" "have sex", "book" "Word". Kept so that the paper's
  baseline stays reproducible (its outputs are frozen in the tests).
- :class:`SafeSynonyms` (``synonyms="safe"``, the default): the synonyms of the sense the
  sentence means, in the word's part of speech and grammatical form, common enough, without
  proper nouns or multiword lemmas unless asked. A word with no safe synonym is left alone.

How the safe source decides, for a word in its sentence (the constants below say why):

1. **Part of speech** from TextBlob's tagger (:mod:`augkit_eda.tagging`), tagged once per
   text: nouns, verbs, adjectives and adverbs only. Left alone: proper nouns, comparatives,
   indefinite pronouns ("someone"), light verbs ("get", "make", "go"), words WordNet also
   knows as an acronym ("PIN", "ATM", "ADD"), and words in a phrase a synonym would break:
   after a proper noun ("Google play"), a noun modifying the next ("exchange rate"), a
   possible verb before a particle ("find out", "close down"), any word before "up" ("a top
   up"), a verb before an infinitive ("I need to pay": "require" shares the sense, not the
   construction), an adverb after "as" or a light verb ("as well", "go forth").
2. **Form**: the word must really be the inflection its tag says of a WordNet lemma ("charged"
   is the past of "charge"); otherwise the tag is wrong and the word is left alone.
3. **Sense**: among the lemma's senses seen often enough in WordNet's sense-tagged corpus,
   the one whose gloss shares most words with the sentence (simplified Lesk; a less frequent
   sense needs two shared words); else the most frequent sense, only when it dominates.
   Senses where WordNet writes the word capitalised ("Book", the Bible) are proper nouns and
   never chosen.
4. **Candidates**: that sense's other lemma names, lower-case single words of three letters
   or more, at least as common as ``min_zipf``, for which this sense is the main one ("bill"
   mostly means "demand payment" when it replaces "charge"), inflected like the word; after
   "a" or "an", only those that start like it (a vowel letter or not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from augkit.plugin import WordSequence
from augkit_eda.inflection import Inflector
from augkit_eda.tagging import PatternTagger
from augkit_eda.wordnet import WordNetLexicon, default_lexicon

#: The names ``EDA(synonyms=...)`` accepts, the default first.
SYNONYM_MODES = ("safe", "wordnet-all")

#: Penn Treebank tags whose words the safe source replaces, with their WordNet part of
#: speech and grammatical form. Proper nouns (NNP, NNPS), comparatives and superlatives
#: (JJR, JJS, RBR, RBS) and closed classes are left alone.
REPLACEABLE_TAGS = {
    "NN": ("n", None),  # singular or plural: decided by the word (mass nouns are tagged NN)
    "NNS": ("n", None),
    "VB": ("v", "base"),
    "VBP": ("v", "base"),
    "VBZ": ("v", "third person"),
    "VBD": ("v", "past"),
    "VBN": ("v", "participle"),
    "VBG": ("v", "gerund"),
    "JJ": ("a", "base"),
    "RB": ("r", "base"),
}
#: Tags that say the word is inflected, so its base form differs ("saw" as a past is "see",
#: not the verb "saw").
INFLECTED_TAGS = frozenset({"NNS", "VBZ", "VBD", "VBN", "VBG"})
#: Words after which a verb is a phrasal verb whose meaning is not the verb's ("top up",
#: "find out", "go through", "carry on"). "in" and "into" are not here: far more often
#: plain prepositions in requests ("transfer money into my account").
PARTICLES = frozenset({"up", "out", "off", "down", "back", "away", "over", "around", "about", "through", "on"})
#: Particles after which any word is left alone: "a top up", "the sign up" are phrasal verbs
#: the tagger reads as nouns (BANKING77 has "top up" 1,000 times).
NOUN_PARTICLES = frozenset({"up"})
#: Tags of proper nouns: the word after one is taken as part of the name ("Google play",
#: "American express"), and left alone.
PROPER_NOUN_TAGS = frozenset({"NNP", "NNPS"})
#: Indefinite pronouns, which the Penn Treebank (and so the tagger) calls nouns: closed-class
#: words like EDA's stop words ("If someone sends me money" must not become "If individual").
INDEFINITE_PRONOUNS = frozenset(
    {"someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody", "something",
     "anything", "everything", "nothing"}
)
#: Words before which an adverb is part of a fixed phrase ("as well", "as soon as").
FIXED_BEFORE_ADVERB = frozenset({"as"})
#: A candidate needs this many letters and a vowel: WordNet lists abbreviations ("hr" for
#: "hour", "yr") as lemmas, and wordfreq finds them common.
MIN_CANDIDATE_LETTERS = 3
_VOWEL = re.compile(r"[aeiouy]", re.IGNORECASE)
#: Tags of nouns; a noun followed by one modifies it ("exchange rate", "fiat currencies",
#: "bank transfer"): such compounds are names of things, and their first noun is left alone.
NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
#: Articles whose form depends on the next word's first sound: after one, a synonym must
#: start like the word it replaces (vowel letter or not), or "an extra fee" would become
#: "an surplus fee".
ARTICLES = frozenset({"a", "an"})
#: Verbs whose meaning comes from what follows them ("get a refund", "get charged", "go
#: through", "make a transfer"): WordNet's synonyms of their senses ("become", "travel")
#: read as other meanings, so they are left alone, as the stop words are.
LIGHT_VERBS = frozenset({"get", "go", "make", "take", "give", "put", "set", "keep", "let", "come", "have", "do"})
#: Their inflected forms, for "go forth", "came back" (the adverb after one belongs to it).
LIGHT_VERB_FORMS = LIGHT_VERBS | frozenset(
    """gets got gotten getting goes went gone going makes made making takes took taken taking
    gives gave given giving puts putting sets setting keeps kept keeping lets letting comes came
    coming has had having does did done doing""".split()
)
#: A sense must have at least this share of its lemma's tagged occurrences to be chosen at
#: all: rarer senses ("buy" as "bribe", 2 of 104) are where wrong-sense synonyms come from.
ELIGIBLE_SENSE_SHARE = 0.1
#: Without gloss overlap, the most frequent sense is used only if at least this share of the
#: lemma's tagged occurrences have it ("buy": 98% "purchase"); "account" (41% "narrative")
#: is then left alone rather than guessed. The share counts one more occurrence per sense
#: (Laplace smoothing), so that 3 tagged uses of 5 ("activate" as "trigger") do not dominate.
DOMINANT_SENSE_SHARE = 0.5
#: Shared words a less frequent sense's gloss needs with the sentence to be chosen over the
#: most frequent sense. One shared word chooses only the most frequent sense (when it is not
#: dominant): on BANKING77 rows, single shared words ("keep", "within", "yet") picked wrong
#: rare senses ("check" -> "curb", "still" -> "nevertheless") about half the time.
OVERRIDING_OVERLAP = 2
#: The chosen sense must be the candidate's main one, at least this share of its own tagged
#: occurrences (and tagged at least once): "need" -> "ask" shares a synset, but "ask" was
#: never tagged in it (0 of 428); "transfer" -> "transportation" shares its most frequent
#: sense, but "transportation" is mostly the transport system (5 of 12 in the shared sense),
#: and "use" -> "apply" (45 of 107). A reader takes a word in its main meaning.
CANDIDATE_SENSE_SHARE = 0.5
#: Default Zipf frequency floor for candidates (wordfreq: 3.5 is about once in 300,000
#: words): keeps "purchase", "require" and "assist", drops "hitherto" (3.1), "ascertain"
#: (3.2), "necessitate" (2.8). Chosen on BANKING77 training rows; the result is measured on
#: other rows in docs/benchmarks/eda-synonyms.md.
DEFAULT_MIN_ZIPF = 3.5
#: Lemma names that can replace a word: letters, with inner hyphens or underscores (spaces);
#: not "ne'er" or "o'er", poetic contractions.
_LEMMA_NAME = re.compile(r"[A-Za-z]+(?:[-_][A-Za-z]+)*")
_NOT_LOWER_LETTER = re.compile(r"[^a-z ]")
_SPACES = re.compile(r" +")


def _starts_with_vowel(word: str) -> bool:
    return word[:1].lower() in "aeiou"


def normalized_synonym(name: str) -> str:
    """A WordNet lemma name as the EDA reference writes it: lower-case letters and single
    spaces ("Word_of_God" -> "word of god", "e-mail" -> "e mail")."""
    synonym = _NOT_LOWER_LETTER.sub("", name.replace("_", " ").replace("-", " ").lower())
    return _SPACES.sub(" ", synonym).strip()


def _excluded(word: str, stop_words: frozenset[str]) -> bool:
    return word in stop_words or any(ch.isdigit() for ch in word)


class NoSynonyms:
    """For EDA without synonym replacement and insertion: swaps and deletions need no
    synonyms, so none are looked up (and no text is tagged)."""

    def for_words(self, sequence: WordSequence, lowered: list[str]) -> tuple[list[str], list[tuple[str, ...]]]:
        return lowered, [()] * len(lowered)


class WordNetAllSynonyms:
    """Every lemma name of every WordNet synset of a word, in any part of speech: the EDA
    paper's synonyms (``synonyms="wordnet-all"``). A word's synonyms do not depend on its
    sentence, so they are looked up once per distinct lower-case word."""

    def __init__(self, stop_words: frozenset[str], normalize: bool = False):
        self._stop_words = stop_words
        self._normalize = normalize
        self._cache: dict[str, tuple[str, ...]] = {}

    def for_words(self, sequence: WordSequence, lowered: list[str]) -> tuple[list[str], list[tuple[str, ...]]]:
        """Each word's synonyms, keyed by its lower-case form (every occurrence of a word
        gets the same replacement)."""
        cache = self._cache
        return lowered, [cache[low] if low in cache else self.of_word(low) for low in lowered]

    def of_word(self, word: str) -> tuple[str, ...]:
        """The synonyms of ``word`` (lower case): none for stop words and words with digits."""
        try:
            return self._cache[word]
        except KeyError:
            found = self._cache[word] = self._find(word)
            return found

    def _find(self, key: str) -> tuple[str, ...]:
        if _excluded(key, self._stop_words):
            return ()
        found: dict[str, None] = {}
        for name in default_lexicon().lemma_names(key):
            synonym = normalized_synonym(name) if self._normalize else name.replace("_", " ")
            if synonym and synonym.lower() != key:
                found[synonym] = None
        return tuple(found)


@dataclass(frozen=True, slots=True)
class _Sense:
    """An eligible sense of a word: its synset, tagged count, gloss words and the word's
    safe synonyms in it (already inflected)."""

    synset_id: int
    count: int
    gloss_words: frozenset[str]
    synonyms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _WordSenses:
    """What a (word, tag) may become, before its sentence is known."""

    own_key: str  # the word's gloss key, never counted as overlap with its own gloss
    senses: tuple[_Sense, ...]
    most_frequent: _Sense
    dominant: bool  # whether the most frequent sense may be used without gloss overlap


class SafeSynonyms:
    """Synonyms that keep the sentence's meaning (``synonyms="safe"``): same part of speech
    and form, the sense the sentence means, common single words (see the module docstring).

    >>> safe = SafeSynonyms(frozenset({"why", "was", "i", "for", "a", "to", "this"}))
    >>> from augkit.plugin import split_words
    >>> sequence = split_words("Why was I charged for a payment to this service?")
    >>> dict(zip(sequence.words, safe.for_words(sequence, [w.lower() for w in sequence.words])[1]))["charged"]
    ('billed',)
    """

    def __init__(
        self,
        stop_words: frozenset[str],
        normalize: bool = False,
        min_zipf: float = DEFAULT_MIN_ZIPF,
        multiword: bool = False,
        proper_nouns: bool = False,
        lexicon: WordNetLexicon | None = None,
    ):
        self._stop_words = stop_words
        self._normalize = normalize
        self._min_zipf = min_zipf
        self._multiword = multiword
        self._proper_nouns = proper_nouns
        self._lexicon = lexicon or default_lexicon()
        self._tagger = PatternTagger.load()
        self._inflector = Inflector(self._lexicon)
        self._words: dict[tuple[str, str, bool], _WordSenses | None] = {}
        self._possible: dict[str, bool] = {}
        self._candidates: dict[tuple[int, str, str, str], tuple[str, ...]] = {}

    def for_words(self, sequence: WordSequence, lowered: list[str]) -> tuple[list[str], list[tuple[str, ...]]]:
        """Each word's safe synonyms in this text, keyed by lower-case form and tag (a word
        used as a noun and as a verb in one text gets a synonym for each use)."""
        words = sequence.words
        possible = [self._may_have_synonyms(low) for low in lowered]
        if not any(possible):  # no need to tag: no word could be replaced, whatever its tag
            return lowered, [()] * len(lowered)
        tags = self._tagger.tag_words(words, sequence.glue, needed=possible)
        context: set[str] | None = None
        synonyms: list[tuple[str, ...]] = []
        for position, (low, tag) in enumerate(zip(lowered, tags)):
            if self._in_fixed_phrase(position, lowered, tags):
                synonyms.append(())
                continue
            following = lowered[position + 1] if position + 1 < len(lowered) else ""
            senses = self._word_senses(low, tag, following in PARTICLES)
            if senses is None:
                synonyms.append(())
                continue
            if context is None:
                context = {self._lexicon.gloss_key(w) for w in lowered if w not in self._stop_words}
            chosen = self._choose(senses, context)
            if position and lowered[position - 1] in ARTICLES:
                chosen = tuple(c for c in chosen if _starts_with_vowel(c) == _starts_with_vowel(low))
            synonyms.append(chosen)
        keys = [f"{low} {tag}" for low, tag in zip(lowered, tags)]
        return keys, synonyms

    @staticmethod
    def _in_fixed_phrase(position: int, lowered: list[str], tags: list[str]) -> bool:
        """Whether the word at ``position`` is part of a phrase that a synonym would break:
        before "up" ("a top up"), after a proper noun ("Google play"), a noun modifying the
        next noun ("exchange rate"), a verb before an infinitive ("need to pay"), an adverb
        after "as" or a light verb ("as well", "go forth")."""
        tag = tags[position]
        following = lowered[position + 1] if position + 1 < len(lowered) else ""
        following_tag = tags[position + 1] if position + 1 < len(tags) else ""
        previous = lowered[position - 1] if position else ""
        return (
            following in NOUN_PARTICLES
            or position > 0 and tags[position - 1] in PROPER_NOUN_TAGS
            or tag in NOUN_TAGS and following_tag in NOUN_TAGS
            or tag.startswith("VB") and following == "to" and tags[position + 2 : position + 3] == ["VB"]
            or tag == "RB" and (previous in FIXED_BEFORE_ADVERB or previous in LIGHT_VERB_FORMS)
        )

    def _choose(self, word: _WordSenses, context: set[str]) -> tuple[str, ...]:
        """The synonyms of the sense the sentence means (gloss overlap, see
        ``OVERRIDING_OVERLAP``), else of the dominant sense, else none."""
        best: _Sense | None = None
        best_overlap = 0
        tied = False
        for sense in word.senses:
            overlap = len(sense.gloss_words & context) - (word.own_key in sense.gloss_words)
            if overlap > best_overlap:
                best, best_overlap, tied = sense, overlap, False
            elif overlap == best_overlap and overlap > 0:
                tied = True
        if best is not None and not tied and (best is word.most_frequent or best_overlap >= OVERRIDING_OVERLAP):
            return best.synonyms
        return word.most_frequent.synonyms if word.dominant else ()

    def _may_have_synonyms(self, low: str) -> bool:
        """Whether the word has safe synonyms under some tag (the sentence can only take
        them away): texts and sentences without such a word need no tagging."""
        found = self._possible.get(low)
        if found is None:
            found = self._possible[low] = any(
                self._word_senses(low, tag, False) is not None for tag in REPLACEABLE_TAGS
            )
        return found

    def _word_senses(self, low: str, tag: str, before_particle: bool) -> _WordSenses | None:
        key = (low, tag, before_particle)
        try:
            return self._words[key]
        except KeyError:
            found = self._words[key] = self._find_senses(low, tag, before_particle)
            return found

    def _find_senses(self, low: str, tag: str, before_particle: bool) -> _WordSenses | None:
        """The eligible senses of a word with this tag and their synonyms, or None when the
        word is left alone (the numbered rules of the module docstring)."""
        if tag not in REPLACEABLE_TAGS or _excluded(low, self._stop_words) or low in INDEFINITE_PRONOUNS:
            return None
        pos, form = REPLACEABLE_TAGS[tag]
        lexicon = self._lexicon
        if before_particle and lexicon.base_forms(low, "v"):
            return None  # a phrasal verb, even where tagged otherwise ("Close down my account")
        base = self._base_form(low, tag, pos)
        if base is None or pos == "v" and base in LIGHT_VERBS:
            return None
        if form is None:  # a noun: plural if it is not its own base form
            form = "base" if low == base else "plural"
        if self._inflector.inflect(base, form, pos) != low:
            return None  # the tag does not fit the word ("money" tagged as a gerund)
        synset_ids = lexicon.synset_ids(base, pos)
        names = [lexicon.synset_lemmas(synset_id) for synset_id in synset_ids]
        if not self._proper_nouns and any(
            name.isupper() and name.lower() == base for lemmas in names for name in lemmas
        ):
            return None  # also an acronym: "PIN", "ATM", "ADD"
        counts = lexicon.sense_counts(base, pos)
        senses = [
            (synset_id, count)
            for synset_id, lemmas, count in zip(synset_ids, names, counts)
            if self._proper_nouns or base in lemmas  # else only capitalised here: a proper noun
        ]
        total = sum(count for _, count in senses)
        if total == 0:  # never tagged: usable only if it has a single sense
            eligible = senses if len(senses) == 1 else []
        else:
            eligible = [(i, c) for i, c in senses if c >= ELIGIBLE_SENSE_SHARE * total]
        found = tuple(
            _Sense(synset_id, count, lexicon.gloss_words(synset_id), self._synonyms_in(synset_id, base, pos, form))
            for synset_id, count in eligible
        )
        if not any(sense.synonyms for sense in found):
            return None
        top = max(found, key=lambda sense: sense.count)  # the first of equal counts: WordNet's order
        dominant = total == 0 or top.count >= DOMINANT_SENSE_SHARE * (total + len(senses))
        return _WordSenses(lexicon.gloss_key(low), found, top, dominant)

    def _base_form(self, low: str, tag: str, pos: str) -> str | None:
        """The lemma the word is a form of: for an inflected tag, a base other than the word
        itself if WordNet has one ("saw" as a past is "see")."""
        bases = self._lexicon.base_forms(low, pos)
        if not bases:
            return None
        if tag in INFLECTED_TAGS:
            others = [base for base in bases if base != low]
            return others[0] if others else bases[0]
        return low if low in bases else bases[0]

    def _synonyms_in(self, synset_id: int, base: str, pos: str, form: str) -> tuple[str, ...]:
        """The synset's lemma names that may replace ``base`` in ``form``."""
        key = (synset_id, base, pos, form)
        cached = self._candidates.get(key)
        if cached is not None:
            return cached
        lexicon = self._lexicon
        found: dict[str, None] = {}
        for name in lexicon.synset_lemmas(synset_id):
            lower = name.lower()
            if lower == base or not _LEMMA_NAME.fullmatch(name):
                continue
            if len(name) < MIN_CANDIDATE_LETTERS or not _VOWEL.search(name):
                continue
            if not self._proper_nouns and name != lower:
                continue
            if not self._multiword and "_" in name:
                continue
            if lexicon.zipf(name) < self._min_zipf or not self._usual_sense_of(lower, synset_id, pos):
                continue
            inflected = self._inflector.inflect(name, form, pos)
            if inflected is None:
                continue
            synonym = normalized_synonym(inflected) if self._normalize else inflected.replace("_", " ")
            if synonym and synonym.lower() != base:
                found[synonym] = None
        result = self._candidates[key] = tuple(found)
        return result

    def _usual_sense_of(self, lemma: str, synset_id: int, pos: str) -> bool:
        """Whether ``synset_id`` is a sense in which ``lemma`` is commonly used."""
        synset_ids = self._lexicon.synset_ids(lemma, pos)
        if synset_id not in synset_ids:
            return False
        counts = self._lexicon.sense_counts(lemma, pos)
        count = counts[synset_ids.index(synset_id)]
        return count > 0 and count >= CANDIDATE_SENSE_SHARE * sum(counts)
