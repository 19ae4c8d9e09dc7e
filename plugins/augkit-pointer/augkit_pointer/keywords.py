"""A sentence's keywords, the words the insertion model must keep (Chevasson et al. 2023,
section 3.2).

The paper follows POINTER's extraction (Zhang et al. 2020) and the authors' code
(``code/POINTER/keyword_extraction.py`` and ``code/paraphrase/augmentation_pipeline.py`` in
RaphaelChevasson/DPIM):

1. **Words** from segtok's regex tokenizer, exactly as YAKE itself splits a text
   (``split_multi``, then ``web_tokenizer`` and ``split_contractions``), so that YAKE's
   candidates map back to character spans. A token keeps no punctuation at its ends
   ("week." -> "week"), except the final dot of an abbreviation ("U.S.").
2. **YAKE** (``yake``, offline, statistical) scores them. The authors' settings:
   ``n=1`` (single words; :data:`MAX_NGRAM_SIZE`), ``dedup_lim=0.9`` with ``seqm``,
   ``window_size=1`` and ``top=k + 2`` (:data:`CANDIDATE_SURPLUS`): the k keywords are drawn
   from YAKE's k + 2 best. The input is not lower-cased (the authors lower-cased it for
   their uncased BERT; YAKE's casing feature is what lifts "ATM" or "PIN").
3. **Stop words and duplicates removed**: YAKE never proposes one of its own 574 English
   stop words (its default list, as the authors ran it); they then drop NLTK's English stop
   words, here EDA's :data:`~augkit_eda.stopwords.EDA_STOP_WORDS` (NLTK's classic 127;
   YAKE's list holds all but "don", so this rarely removes anything), and a keyword whose
   text (ignoring case) came earlier is dropped. The authors also dropped numbers (YAKE
   never proposes them either) and words outside bert-base-uncased's vocabulary (whole
   words only, for their POINTER); the insertion model's tokenizer splits such words
   instead, so they stay.
4. **k chosen at random** among those candidates, by the row's ``random.Random`` (the
   authors' ``random.sample``), then put back in sentence order.
5. **Too few** (a short sentence, fewer than k candidates): the longest remaining words fill
   up to k ("we retain the k longest words"), ties going to the earlier word. Stop words
   count here, as in the authors' code (in "is it free?" the words are all there is), but
   after the other words, and negations ("not", "no", "nor") before the other stop words:
   the authors' longest-first takes "about" over "need" in "i need to know about exchange
   rates" and "why" over "not" in "why has my withdrawal not posted?". Clitics ("'s") and
   punctuation never count.
6. **Final punctuation**: a text ending in ``?``, ``!`` or ``.`` gets that mark as its last
   keyword (the paper's footnote 7: keeping "?[end]" "preserves the source sentence
   semantic" and stops generation to its right). It is extra: k words plus the mark.

With ``max_ngram_size > 1`` YAKE may propose phrases ("credit card"): a phrase is one
:class:`Keyword` (one span), and a candidate overlapping one already drawn is skipped.

>>> import random
>>> [k.text for k in extract_keywords("Why was my card declined at the ATM?", random.Random(0))]
['card', 'declined', 'ATM', '?']
"""

from __future__ import annotations

import functools
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from augkit_eda.stopwords import EDA_STOP_WORDS

__all__ = [
    "CANDIDATE_SURPLUS", "DEFAULT_KEYWORDS", "FINAL_PUNCTUATION", "MAX_NGRAM_SIZE", "NEGATIONS", "Keyword", "extract_keywords",
    "word_spans",
]

#: Keywords per sentence: the paper's k ("we chose to extract k=3 keywords per sentence ...
#: the minimal number which still kept reasonable information", section 4).
DEFAULT_KEYWORDS = 3
#: YAKE is asked for k + 2 candidates, the k keywords are drawn among them: the authors'
#: ``numOfKeywords = args.n_keys + 2`` (keyword_extraction.py).
CANDIDATE_SURPLUS = 2
#: Longest YAKE candidate, in words: the authors' ``max_ngram_size = 1``.
MAX_NGRAM_SIZE = 1
#: YAKE's deduplication of near-identical candidates, the authors' settings (also YAKE's defaults).
YAKE_DEDUP_LIMIT = 0.9
YAKE_DEDUP_FUNCTION = "seqm"
#: YAKE's co-occurrence window: the authors' ``windowSize = 1`` (also YAKE's default).
YAKE_WINDOW_SIZE = 1
#: Marks kept as the last keyword when they end the text (the paper's footnote 7).
FINAL_PUNCTUATION = frozenset("?!.")
#: Stop words that the short-sentence fill takes before the other stop words: a lost
#: negation reverses the sentence.
NEGATIONS = frozenset({"not", "no", "nor", "n't", "never"})
#: Apostrophes that start a clitic token of segtok's ``split_contractions`` ("'s", "’ve").
_APOSTROPHES = ("'", "’")


@dataclass(frozen=True, slots=True)
class Keyword:
    """A keyword of a text: ``text == source[start:end]``, as written there. A phrase
    ("credit card") is one keyword; so is a final ``?``, ``!`` or ``.``. ``protected``: the
    keyword is a protected span of its row (never replaced, nor moved past another one)."""

    text: str
    start: int
    end: int
    protected: bool = False

    @property
    def is_punctuation(self) -> bool:
        """True for the final-punctuation keyword (it stays last and is never replaced)."""
        return self.text in FINAL_PUNCTUATION


def extract_keywords(
    text: str,
    rng: random.Random,
    *,
    k: int = DEFAULT_KEYWORDS,
    max_ngram_size: int = MAX_NGRAM_SIZE,
    stop_words: Collection[str] = EDA_STOP_WORDS,
    protected: Sequence[tuple[int, int]] = (),
) -> list[Keyword]:
    """The keywords of ``text`` in sentence order (see the module docstring): at most ``k``
    words or phrases, then the final punctuation mark if the text ends with one.

    ``rng`` is the row's generator, the only source of randomness (which k of YAKE's k + 2
    best). ``stop_words`` are lower case; YAKE also applies its own English list.
    ``protected``: the character spans of the row's protected spans, each a keyword (marked
    ``protected``) whatever ``k``; YAKE's candidates and the longest words fill the rest of
    the ``k``, none overlapping them. Without any, the draws are as before.

    >>> [k.text for k in extract_keywords("is it free?", random.Random(1))]
    ['is', 'it', 'free', '?']
    >>> [(k.text, k.protected) for k in extract_keywords("what is fare code h", random.Random(1), protected=[(18, 19)])]
    [('fare', False), ('code', False), ('h', True)]
    """
    _check_arguments(text, rng, k, max_ngram_size)
    spans = word_spans(text)
    pool = _candidates(text, spans, k, max_ngram_size, stop_words)
    kept = sorted(set(protected))
    chosen: list[tuple[int, int]] = list(kept)
    for span in rng.sample(pool, len(pool)):  # a random order; its first k are a random k-subset
        if len(chosen) >= k:
            break
        if not any(_overlap(span, other) for other in chosen):
            chosen.append(span)
    if len(chosen) < k:
        chosen += _longest_words(text, spans, chosen, k - len(chosen), stop_words)
    marked = set(kept)
    keywords = [Keyword(text[start:end], start, end, (start, end) in marked) for start, end in sorted(chosen)]
    final = _final_punctuation(text)
    if final is not None and not any(keyword.end > final for keyword in keywords):
        keywords.append(Keyword(text[final : final + 1], final, final + 1))
    return keywords


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of segtok's words in ``text``, as YAKE tokenizes it (sentences by
    ``split_multi``, words by ``web_tokenizer`` then ``split_contractions``), each trimmed
    of the punctuation at its ends ("week." -> "week"; "U.S." keeps its dot). Tokens of
    punctuation alone keep their span (the final "?" is one).

    >>> text = "i can't wait a week."
    >>> [text[s:e] for s, e in word_spans(text)]
    ['i', 'ca', "n't", 'wait', 'a', 'week', '.']
    """
    from segtok.segmenter import split_multi
    from segtok.tokenizer import split_contractions, web_tokenizer

    spans: list[tuple[int, int]] = []
    position = 0
    for sentence in split_multi(text.replace("\n", " ")):
        for token in split_contractions(web_tokenizer(sentence)):
            start = text.find(token, position)
            if start < 0:  # segtok rewrote the token: no span to give it
                continue
            position = start + len(token)
            spans.append(_trimmed(text, start, position))
    return spans


def _check_arguments(text: object, rng: object, k: object, max_ngram_size: object) -> None:
    from augkit.plugin import InvalidParameterError

    if not isinstance(text, str):
        raise InvalidParameterError(f"keywords are extracted from a str, got {type(text).__name__}")
    if not isinstance(rng, random.Random):
        raise InvalidParameterError(f"rng must be the row's random.Random, got {type(rng).__name__}")
    for name, value in (("k", k), ("max_ngram_size", max_ngram_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}")


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without the punctuation at its ends; unchanged if nothing alphanumeric is
    left. An inner dot marks an abbreviation, whose final dot stays ("U.S.")."""
    token = text[start:end]
    if not any(char.isalnum() for char in token):
        return start, end
    left = next(i for i, char in enumerate(token) if char.isalnum())
    right = max(i for i, char in enumerate(token) if char.isalnum()) + 1
    if token[right:].startswith(".") and "." in token[left:right]:
        right += 1
    if token.startswith(_APOSTROPHES) and left == 1:
        left = 0  # a clitic keeps its apostrophe: "'s", "'ve"
    return start + left, start + right


@functools.lru_cache(maxsize=16)
def yake_extractor(top: int, max_ngram_size: int):
    """A YAKE extractor with the authors' settings (built once per configuration)."""
    import yake

    return yake.KeywordExtractor(
        lan="en", n=max_ngram_size, dedup_lim=YAKE_DEDUP_LIMIT, dedup_func=YAKE_DEDUP_FUNCTION,
        window_size=YAKE_WINDOW_SIZE, top=top,
    )


def _candidates(
    text: str, spans: list[tuple[int, int]], k: int, max_ngram_size: int, stop_words: Collection[str]
) -> list[tuple[int, int]]:
    """Spans of YAKE's k + 2 best candidates, best first, without stop words, repeats or
    candidates that do not map to consecutive words of ``text``."""
    if not any(char.isalnum() for char in text):
        return []
    lowered = [text[start:end].lower() for start, end in spans]
    found: list[tuple[int, int]] = []
    seen: set[str] = set()
    for phrase, _score in yake_extractor(k + CANDIDATE_SURPLUS, max_ngram_size).extract_keywords(text):
        words = [_trimmed_word(word) for word in phrase.lower().split(" ")]
        place = _find_run(lowered, words)
        if place is None:
            continue
        start, end = spans[place][0], spans[place + len(words) - 1][1]
        key = text[start:end].lower()
        if key in seen or key in stop_words or not any(char.isalnum() for char in key):
            continue
        seen.add(key)
        found.append((start, end))
    return found


def _trimmed_word(word: str) -> str:
    """A YAKE token trimmed like :func:`word_spans` trims the text's tokens."""
    start, end = _trimmed(word, 0, len(word))
    return word[start:end]


def _find_run(words: Sequence[str], run: Sequence[str]) -> int | None:
    """Where ``run`` first occurs as consecutive items of ``words``, or None."""
    for index in range(len(words) - len(run) + 1):
        if list(words[index : index + len(run)]) == list(run):
            return index
    return None


def _longest_words(
    text: str, spans: list[tuple[int, int]], chosen: list[tuple[int, int]], count: int, stop_words: Collection[str]
) -> list[tuple[int, int]]:
    """Up to ``count`` more words, none a repeat or a piece of a chosen keyword, no clitic
    and no punctuation: words that are not stop words, then negations, then the other stop
    words, each group longest first (earlier first among equals)."""
    taken = {text[start:end].lower() for start, end in chosen}
    options: list[tuple[int, int]] = []
    for start, end in spans:
        word = text[start:end]
        key = word.lower()
        if key in taken or word.startswith(_APOSTROPHES) or not any(char.isalnum() for char in word):
            continue
        if any(_overlap((start, end), other) for other in chosen):
            continue
        taken.add(key)
        options.append((start, end))
    def rank(span: tuple[int, int]) -> tuple[int, int]:
        key = text[span[0] : span[1]].lower().replace("’", "'")
        group = 1 if key in NEGATIONS else 2 if key in stop_words else 0
        return group, -(span[1] - span[0])

    options.sort(key=rank)  # stable: sentence order among equals
    return options[:count]


def _final_punctuation(text: str) -> int | None:
    """Position of the ``?``, ``!`` or ``.`` that ends ``text`` (trailing spaces aside)."""
    stripped = text.rstrip()
    if stripped and stripped[-1] in FINAL_PUNCTUATION:
        return len(stripped) - 1
    return None


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]
