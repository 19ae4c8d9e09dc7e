"""The EDA augmenter (Wei and Zou, EMNLP 2019): synonym replacement, random insertion,
random swap and random deletion, with the paper's defaults and counting rule."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from itertools import chain

import augkit
from augkit.plugin import (
    FREE_WORD,
    GeneratedRow,
    ProtectedSpan,
    RowProtection,
    WordSequence,
    first_distinct,
    join_words,
    relocated,
)
from augkit_eda.operations import (
    PreparedText,
    pick_distinct,
    prepare_text,
    random_deletion,
    random_insertion,
    random_swap,
    synonym_replacement,
)
from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_eda.synonyms import (
    DEFAULT_MIN_ZIPF,
    SYNONYM_MODES,
    NoSynonyms,
    SafeSynonyms,
    WordNetAllSynonyms,
)
from augkit_eda.tagging import tagger_available

#: After the reference's planned candidates, extra random operations tried per missing
#: output before returning fewer than ``n`` (short texts have few distinct edits).
TOP_UP_ATTEMPTS_PER_OUTPUT = 3
#: Operation plans are cached per word count up to this length (a plan depends only on it).
MAX_CACHED_PLAN_WORDS = 256
#: An operation: (prepared text, generator, strength) -> edited words.
Operation = Callable[[PreparedText, random.Random, float], WordSequence]
_NOT_LOWER_LETTER = re.compile(r"[^a-z ]")
_SPACES = re.compile(r" +")
#: Why a row got no augmentation, in the words of the run's summary.
NO_WORDS = "eda: the text has no words to edit"
ALL_PROTECTED = "eda: every word is protected (protect=, protect_column= or a default code), so none may change"
NO_SYNONYM_NOR_ORDER = ("eda: no word has a synonym EDA may use and too few free words to swap or delete "
                        "(synonyms='wordnet-all' or a lower min_zipf finds more synonyms)")
NO_DISTINCT_EDIT = ("eda: no operation changed the text in its attempts (raise alpha_sr, alpha_ri, alpha_rs or p_rd "
                    "for short texts)")
#: Parameters of the safe synonyms only, with their defaults.
_SAFE_ONLY = {"min_zipf": DEFAULT_MIN_ZIPF, "multiword": False, "proper_nouns": False}


class EDA(augkit.Augmenter):
    """Easy Data Augmentation (Wei and Zou 2019): WordNet synonym replacement, random insertion, random swap and random deletion.

    Each augmentation applies one operation. Per the reference implementation, a sentence of
    ``l`` words gets ``n_sr = max(1, int(alpha_sr * l))`` replacements (likewise insertions
    and swaps), deletion removes each word with probability ``p_rd``, and ``n // 4 + 1``
    candidates per operation are shuffled and cut to ``n``. Stop words are never replaced or
    used for insertion, nor are words containing digits. Casing, punctuation and spacing are
    kept unless ``normalize`` is set. Protected spans (``protect=``, ``protect_column=``, and
    the codes protected by default) are never replaced, swapped or deleted, nothing is
    inserted inside one, and they lend no synonyms to insertion.

    By default (``synonyms="safe"``) a word is replaced, and insertions are drawn, only with
    synonyms of the sense its sentence means, in its part of speech and grammatical form,
    common English single words: "I was charged twice" may become "I was billed twice", never
    "I was bill twice"; "add" never becomes "attention deficit disorder". Words with no such
    synonym are left alone. ``synonyms="wordnet-all"`` is the paper's behaviour: every lemma of
    every WordNet synset of the word.

    Parameters
    ----------
    alpha_sr : float
        Share of words replaced by a WordNet synonym (0 disables synonym replacement).
    alpha_ri : float
        Share of words inserted as synonyms of other words (0 disables random insertion).
    alpha_rs : float
        Share of words swapped pairwise (0 disables random swap).
    p_rd : float
        Probability that each word is deleted (0 disables random deletion).
    normalize : bool
        Apply the reference implementation's normalisation first: lower-case, letters a-z and
        single spaces only (as the paper's experiments did); outputs are normalised too.
    stop_words : list of str, optional
        Words never replaced nor used for insertion; default: the EDA paper's list. A
        string is read as a comma-separated list.
    synonyms : str
        Where synonyms come from. "safe" (default): the sense the sentence means (gloss overlap,
        WordNet sense frequencies), same part of speech (TextBlob's tagger, a dependency)
        and form, common single words, no proper nouns. "wordnet-all":
        every lemma of every WordNet synset, any part of speech, as in the EDA paper.
    min_zipf : float
        synonyms="safe" only: a synonym must be at least this common in English (Zipf
        frequency from wordfreq; 3.5 is about once in 300,000 words, 3 once in a million).
    multiword : bool
        synonyms="safe" only: also use multiword lemmas ("credit card", "get hold of").
    proper_nouns : bool
        synonyms="safe" only: also use capitalised lemmas and proper-noun senses ("Word" for
        "book"), and replace words that WordNet also knows as acronyms ("PIN").
    """

    name = "eda"
    protects = True

    def __init__(
        self,
        alpha_sr: float = 0.1,
        alpha_ri: float = 0.1,
        alpha_rs: float = 0.1,
        p_rd: float = 0.1,
        normalize: bool = False,
        stop_words: Iterable[str] | str | None = None,
        synonyms: str = "safe",
        min_zipf: float = DEFAULT_MIN_ZIPF,
        multiword: bool = False,
        proper_nouns: bool = False,
    ):
        for name, value in (("alpha_sr", alpha_sr), ("alpha_ri", alpha_ri), ("alpha_rs", alpha_rs), ("p_rd", p_rd)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
        if not any((alpha_sr, alpha_ri, alpha_rs, p_rd)):
            raise ValueError("at least one of alpha_sr, alpha_ri, alpha_rs, p_rd must be above 0")
        _check_synonym_options(synonyms, min_zipf, multiword, proper_nouns)
        self.alpha_sr = alpha_sr
        self.alpha_ri = alpha_ri
        self.alpha_rs = alpha_rs
        self.p_rd = p_rd
        self.normalize = normalize
        self.stop_words = stop_words
        self.synonyms = synonyms
        self.min_zipf = min_zipf
        self.multiword = multiword
        self.proper_nouns = proper_nouns
        self._stop_words = _stop_word_set(stop_words)
        self._synonym_source: WordNetAllSynonyms | SafeSynonyms | NoSynonyms | None = None
        self._plans: dict[int, list[tuple[Operation, float]]] = {}

    def __getstate__(self) -> dict:
        # The synonym source holds the WordNet lexicon and the tagger: rebuilt where unpickled.
        return {**self.__dict__, "_synonym_source": None}

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        return self._augment(text, n, rng, ())

    def augment_batch(self, texts: list[str], n: int, rngs: list[random.Random],
                      context: augkit.BatchContext | None = None) -> list[list[str]]:
        """:meth:`augment` per text, keeping each row's protected spans (``context.protected``)
        as they are: never replaced, swapped, deleted or split by an insertion."""
        protected = context.protected if context is not None else None
        if protected is None:
            return [self._augment(text, n, rng, ()) for text, rng in zip(texts, rngs, strict=True)]
        return [self._augment(text, n, rng, spans) for text, rng, spans in zip(texts, rngs, protected, strict=True)]

    def _augment(self, text: str, n: int, rng: random.Random, protected: RowProtection) -> list[str]:
        source = normalize_like_reference(text) if self.normalize else text
        if protected and self.normalize:
            protected = _normalized_spans(protected, source)
        prepared = prepare_text(source, self._source(), protected)
        if n <= 0:
            return []
        if not prepared.lowered:
            return GeneratedRow([], reason=NO_WORDS)
        word_count = len(prepared.lowered)
        operations = self._plans.get(word_count) or self._operations(word_count)
        if word_count <= MAX_CACHED_PLAN_WORDS:
            self._plans[word_count] = operations
        # The reference: n // 4 + 1 candidates per operation, shuffled, the first n kept.
        planned = [operation for operation in operations for _ in range(n // 4 + 1)]
        planned = pick_distinct(planned, rng, len(planned))
        # Then, if some were copies (nothing deleted, ...), random operations top them up.
        top_up = (operations[int(rng.random() * len(operations))] for _ in range(TOP_UP_ATTEMPTS_PER_OUTPUT * n))
        finish = normalize_like_reference if self.normalize else _unchanged
        outputs = (
            finish(join_words(operation(prepared, rng, strength))) for operation, strength in chain(planned, top_up)
        )
        found = first_distinct(source, outputs, n)
        return found if found else GeneratedRow([], reason=self._why_nothing(prepared))

    def _why_nothing(self, prepared: PreparedText) -> str:
        """Why no operation changed a text, in the words of the run's summary."""
        free = len(prepared.lowered) if prepared.owners is None else sum(owner == FREE_WORD for owner in prepared.owners)
        if free == 0:
            return ALL_PROTECTED
        if not any(prepared.synonyms) and (free < 2 or not (self.alpha_rs or self.p_rd)):
            return NO_SYNONYM_NOR_ORDER
        return NO_DISTINCT_EDIT

    def synonyms_of(self, word: str, sentence: str | None = None) -> tuple[str, ...]:
        """The synonyms EDA may use for ``word`` (its first occurrence in ``sentence``; by
        default the word alone). In the safe mode they depend on the sentence, which decides
        the word's part of speech and sense; none for stop words and words with digits.

        >>> EDA().synonyms_of("charged", "Why was I charged for a payment to this service?")
        ('billed',)
        """
        source = self._source()
        if isinstance(source, WordNetAllSynonyms):
            return source.of_word(word.lower())
        if isinstance(source, NoSynonyms):
            return ()
        prepared = prepare_text(sentence if sentence is not None else word, source)
        key = word.lower()
        for low, found in zip(prepared.lowered, prepared.synonyms):
            if low == key:
                return found
        raise ValueError(f"{word!r} is not a word of {sentence!r}")

    def _source(self) -> WordNetAllSynonyms | SafeSynonyms | NoSynonyms:
        if self._synonym_source is None:
            if not (self.alpha_sr or self.alpha_ri):
                self._synonym_source = NoSynonyms()
            elif self.synonyms == "wordnet-all":
                self._synonym_source = WordNetAllSynonyms(self._stop_words, self.normalize)
            else:
                self._synonym_source = SafeSynonyms(
                    self._stop_words, self.normalize, self.min_zipf, self.multiword, self.proper_nouns
                )
        return self._synonym_source

    def _operations(self, word_count: int) -> list[tuple[Operation, float]]:
        """The enabled operations with their strength for a text of ``word_count`` words:
        ``max(1, int(alpha * word_count))`` edits, or the deletion probability ``p_rd``."""
        operations: list[tuple[Operation, float]] = []
        for operation, alpha in (
            (synonym_replacement, self.alpha_sr),
            (random_insertion, self.alpha_ri),
            (random_swap, self.alpha_rs),
        ):
            if alpha > 0:
                operations.append((operation, max(1, int(alpha * word_count))))
        if self.p_rd > 0:
            operations.append((random_deletion, self.p_rd))
        return operations


def normalize_like_reference(text: str) -> str:
    """The EDA reference's cleaning: drop apostrophes, hyphens and other non-letters become
    spaces, lower-case, single spaces.

    >>> normalize_like_reference("I can't log-in to my Account #2!")
    'i cant log in to my account'
    """
    text = text.replace("’", "").replace("'", "").lower()
    return _SPACES.sub(" ", _NOT_LOWER_LETTER.sub(" ", text)).strip()


def _unchanged(text: str) -> str:
    return text


def _normalized_spans(protected: RowProtection, normalized: str) -> RowProtection:
    """The protected spans of a text as they stand in its normalised form (``normalize=True``):
    each span's normalised words found again there."""
    spans = []
    for span in protected:
        words = normalize_like_reference(span.text)
        if words:
            spans.append(ProtectedSpan(span.start, span.start + len(words), words, span.kind, span.label))
    return relocated(tuple(spans), normalized)


def _check_synonym_options(synonyms: str, min_zipf: float, multiword: bool, proper_nouns: bool) -> None:
    if synonyms not in SYNONYM_MODES:
        valid = ", ".join(repr(mode) for mode in SYNONYM_MODES)
        raise ValueError(f"unknown synonyms {synonyms!r}; valid: {valid}")
    if isinstance(min_zipf, bool) or not isinstance(min_zipf, (int, float)) or not 0 <= min_zipf <= 8:
        raise ValueError(f"min_zipf must be a Zipf frequency in [0, 8], got {min_zipf!r}")
    given = {"min_zipf": min_zipf, "multiword": multiword, "proper_nouns": proper_nouns}
    changed = [name for name, default in _SAFE_ONLY.items() if given[name] != default]
    if synonyms != "safe" and changed:
        raise ValueError(f"{', '.join(changed)} only apply to synonyms='safe', not {synonyms!r}")
    if synonyms == "safe" and not tagger_available():
        raise ValueError(
            "synonyms='safe' tags parts of speech with TextBlob's English tagger, which is not "
            "installed: pip install textblob (or pass synonyms='wordnet-all', the "
            "EDA paper's synonyms)"
        )


def _stop_word_set(stop_words: Iterable[str] | str | None) -> frozenset[str]:
    if stop_words is None:
        return EDA_STOP_WORDS
    if isinstance(stop_words, str):
        stop_words = [word.strip() for word in stop_words.split(",")]
    words = list(stop_words)
    if not all(isinstance(word, str) for word in words):
        raise ValueError("stop_words must be strings")
    return frozenset(word.lower() for word in words if word)
