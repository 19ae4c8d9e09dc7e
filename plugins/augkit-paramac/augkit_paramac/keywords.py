"""The keywords of a sentence, ParaMac's anchors (Liu et al. 2022, section 3.1 and appendix B).

ParaMac keeps a sentence's keywords in its paraphrase and lets T5 write the words between
them, so a keyword must be a piece of the sentence that can move as a whole. The rules
follow the authors' ``kw_extraction`` (ParaMac/utils.py in Matthewlliu/UnsupervisedParaphrase):

- **RAKE phrases** (:mod:`augkit_paramac.rake`), all of them: the authors keep every phrase
  of ``Rake().get_ranked_phrases()``, whose length limit defaults to 100,000 words. The stop
  words are theirs, NLTK's English list (:data:`STOP_WORDS`).
- **Negation** (appendix B: the model "often ignores the negative suffix in
  aren't/isn't/haven't"): the "n't" of a contraction is a keyword of its own, as in the
  authors' code, and so is a negative stop word ("not", "no", "nor"; see
  :data:`NEGATIONS`), which would otherwise vanish the same way.
- **Nouns and verbs** that no RAKE phrase holds (the paper: "we also add the rest of the
  nouns and verbs"), tagged by augkit-eda's offline tagger. Never be/have/do forms, not
  even as main verbs: the authors drop stop words from these, and their list holds every
  such form. Since all RAKE phrases are kept, the words outside them are stop words, so
  with the authors' list this step adds nothing on real sentences; with a larger list
  (``stop_words=``, such as scikit-learn's) it brings back "get", "find", "amount".
- **Punctuation and hyphens** (appendix B): punctuation ends a RAKE phrase, so no keyword
  contains any. Words are split by :func:`augkit.plugin.split_words`, so a hyphenated word
  stays whole ("semi-fluidic nature", which RAKE on NLTK's tokens cuts into "semi" and
  "fluidic nature", "which greatly harms the semantics after reordering"), as does a word
  with an inner apostrophe ("friend's account"); so does a number with a decimal point or
  thousands separator ("10,000", "3.50"), for the same reason.

Keywords keep the sentence's case and come in order of appearance, each with its span. A
keyword whose text (ignoring case) came earlier is dropped, as the authors keep a set of
keyword strings.

>>> [k.text for k in extract_keywords("A large sofa was shoved against the wall, covered in a thin blanket.")]
['large sofa', 'shoved', 'wall', 'covered', 'thin blanket']
>>> extract_keywords("Such a possibility hadn't even been discussed.")[1]
Keyword(text="n't", start=22, end=25, source='negation')
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_eda.tagging import PatternTagger

from augkit.plugin import RowProtection, WordSequence, split_words
from augkit_paramac.rake import candidate_runs

__all__ = [
    "BE_HAVE_DO", "CONTRACTION_PIECES", "NEGATIONS", "PROTECTED", "STOP_WORDS", "Keyword", "KeywordSource",
    "extract_keywords", "with_protected_spans",
]

KeywordSource = Literal["rake", "noun", "verb", "negation", "protected"]
#: The source of a keyword that is a protected span of its row (``protect=``, ``protect_column=``,
#: a default code): never dropped, substituted or moved past another protected span.
PROTECTED: KeywordSource = "protected"

#: Pieces of contractions, as tokenisers leave them: NLTK's list holds those of
#: ``wordpunct_tokenize`` ("hadn't" -> "hadn", "'", "t"; rake-nltk's tokeniser), Penn
#: Treebank text has "ca", "wo", "sha" ("ca n't") and "'m", "'re" ("I 'm": "m", "re"). Here a
#: contraction written whole is judged by its first part instead (see ``_classify``), but
#: pre-tokenised text (the Quora questions: "do n't", "What 's") brings the pieces. Not "won":
#: a whole "won't" never leaves it, so "won" is the verb.
CONTRACTION_PIECES = frozenset(
    "ain aren couldn d didn doesn don hadn hasn haven isn ll m ma mightn mustn needn o re s "
    "shan shouldn t ve wasn weren wouldn y ca wo sha".split()
)
#: The authors' stop words: NLTK's English list, rake-nltk's default and the list their
#: noun and verb filter reads. augkit-eda ships its 127 words (EDA's code uses the same
#: list); NLTK's newer releases add the pieces of contractions above and whole forms
#: ("you're", "hadn't"), which ``_classify`` covers.
STOP_WORDS: frozenset[str] = EDA_STOP_WORDS | CONTRACTION_PIECES
#: Negative words that become keywords of their own when the stop list holds them, rather
#: than RAKE boundaries that vanish: "not", "no" and "nor" with the authors' list ("never"
#: and "cannot" are not in it, so RAKE keeps them inside their phrase).
NEGATIONS = frozenset({"not", "no", "nor", "never", "cannot"})
#: Forms of the auxiliaries be, have and do: never keywords, even where they are main verbs
#: ("I have a card"), as in the authors' code, whose stop list holds all of them.
BE_HAVE_DO = frozenset(
    "be am is are was were been being have has had having do does did doing".split()
)
#: A contraction: its first part and its clitic ("hadn't" -> "had" + "n't", "can't" ->
#: "ca" + "n't", as Penn Treebank tokenisers split them; a lone "n't" has no first part).
_CLITIC = re.compile(r"^(.*?)(n['’]t|['’](?:s|m|d|re|ve|ll))$", re.IGNORECASE)
_NEGATIVE_CLITIC = re.compile(r"n['’]t", re.IGNORECASE)
#: Separators inside a number ("10,000", "3.50", "10:30"): kept, so a number stays whole.
_NUMBER_SEPARATORS = frozenset({".", ",", ":"})
_NOUN_TAGS = ("NN",)  # NN, NNS, NNP, NNPS
_VERB_TAGS = ("VB",)  # VB, VBD, VBG, VBN, VBP, VBZ

_CONTENT, _STOP, _NEGATION, _NEGATED = range(4)  # word classes, see _classify


@dataclass(frozen=True, slots=True)
class Keyword:
    """A keyword of a sentence: ``text == sentence[start:end]``, as written there.

    ``source`` says which rule found it: ``"rake"`` (a RAKE phrase), ``"noun"`` or
    ``"verb"`` (a word outside every RAKE phrase), ``"negation"`` (the "n't" of a
    contraction, or a negative stop word: "not", "no", "nor"), ``"protected"`` (a protected
    span of the row: :func:`with_protected_spans`).
    """

    text: str
    start: int
    end: int
    source: KeywordSource


def extract_keywords(text: str, *, stop_words: Collection[str] = STOP_WORDS) -> list[Keyword]:
    """ParaMac's keywords of ``text`` (see the module docstring), in order of appearance.

    ``stop_words`` (lower case) cut RAKE phrases; the default is the authors' list. Whatever
    the list, be/have/do forms are stop words and the negations in it are keywords.

    >>> [(k.text, k.source) for k in extract_keywords("Does the semi-fluidic nature present a weakness?")]
    [('semi-fluidic nature present', 'rake'), ('weakness', 'rake')]
    """
    sequence = _split(text)
    words, glue = sequence.words, sequence.glue
    if not words:
        return []
    starts: list[int] = []
    position = 0
    for before, word in zip(glue, words):
        position += len(before)
        starts.append(position)
        position += len(word)
    classes = [_classify(word, stop_words) for word in words]
    joined = [not between.strip() for between in glue[1:-1]]

    found: list[Keyword] = []
    for run in candidate_runs([kind == _CONTENT for kind in classes], joined):
        start, end = starts[run.start], starts[run.stop - 1] + len(words[run.stop - 1])
        found.append(Keyword(text[start:end], start, end, "rake"))
    for index, kind in enumerate(classes):
        start, end = starts[index], starts[index] + len(words[index])
        if kind == _NEGATION:
            found.append(Keyword(text[start:end], start, end, "negation"))
        elif kind == _NEGATED:
            start = end - 3  # the clitic "n't" (or "n’t") ends the word
            found.append(Keyword(text[start:end], start, end, "negation"))
    found += _nouns_and_verbs(sequence, starts, classes)

    found.sort(key=lambda keyword: keyword.start)
    seen: set[str] = set()
    unique: list[Keyword] = []
    for keyword in found:
        key = keyword.text.lower().replace("’", "'")
        if key not in seen:
            seen.add(key)
            unique.append(keyword)
    return unique


def with_protected_spans(text: str, keywords: Sequence[Keyword], spans: RowProtection) -> list[Keyword]:
    """``keywords`` of ``text`` with each protected span of the row as a keyword of its own
    (source ``"protected"``), in order of appearance. A keyword overlapping a span keeps its
    pieces outside it ("fare code h" with "h" protected: "fare code" and "h"); pieces without
    a letter or digit are left out, as is a piece whose text (ignoring case) is already a
    keyword. Protected keywords are never left out: a span protected twice is two keywords.

    >>> from augkit.plugin import ProtectedSpan
    >>> text = "what is fare code h"
    >>> [(k.text, k.source) for k in with_protected_spans(text, extract_keywords(text), (ProtectedSpan(18, 19, "h", "code"),))]
    [('fare code', 'rake'), ('h', 'protected')]
    """
    if not spans:
        return list(keywords)
    protected = [Keyword(text[span.start:span.end], span.start, span.end, PROTECTED) for span in spans]
    found = list(protected)
    seen = {keyword.text.lower() for keyword in protected}
    for keyword in keywords:
        for start, end in _outside(keyword.start, keyword.end, protected):
            piece_start = start + len(text[start:end]) - len(text[start:end].lstrip())
            piece_end = end - (len(text[start:end]) - len(text[start:end].rstrip()))
            piece = text[piece_start:piece_end]
            if any(char.isalnum() for char in piece) and piece.lower() not in seen:
                seen.add(piece.lower())
                found.append(Keyword(piece, piece_start, piece_end, keyword.source))
    return sorted(found, key=lambda keyword: keyword.start)


def _outside(start: int, end: int, spans: Sequence[Keyword]) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` that no span covers."""
    parts = [(start, end)]
    for span in sorted(spans, key=lambda s: s.start):
        cut = []
        for part_start, part_end in parts:
            if span.end <= part_start or part_end <= span.start:
                cut.append((part_start, part_end))
                continue
            if part_start < span.start:
                cut.append((part_start, span.start))
            if span.end < part_end:
                cut.append((span.end, part_end))
        parts = cut
    return parts


def _split(text: str) -> WordSequence:
    """augkit's word split, with numbers kept whole across "." "," ":" ("10,000")."""
    sequence = split_words(text)
    words, glue = sequence.words, sequence.glue
    merged_words: list[str] = []
    merged_glue: list[str] = [glue[0]]
    for index, word in enumerate(words):
        if (
            merged_words
            and glue[index] in _NUMBER_SEPARATORS
            and merged_words[-1][-1:].isdigit()
            and word[:1].isdigit()
        ):
            merged_words[-1] += glue[index] + word
        else:
            if merged_words:
                merged_glue.append(glue[index])
            merged_words.append(word)
    merged_glue.append(glue[-1])
    return WordSequence(merged_words, merged_glue)


def _classify(word: str, stop_words: Collection[str]) -> int:
    """Whether a word is content (RAKE may use it), a stop word, a negative stop word, or a
    contraction with "n't". A contraction with another clitic is a stop word when its first
    part is one ("it's", "I'm", "you've"), content otherwise ("driver's")."""
    lower = word.lower().replace("’", "'")
    if lower in BE_HAVE_DO:
        return _STOP
    if lower in stop_words:
        return _NEGATION if lower in NEGATIONS else _STOP
    clitic = _CLITIC.match(lower)
    if clitic is None:
        return _CONTENT
    if _NEGATIVE_CLITIC.fullmatch(clitic.group(2)):
        return _NEGATED
    return _STOP if clitic.group(1) in stop_words else _CONTENT


def _nouns_and_verbs(sequence: WordSequence, starts: list[int], classes: list[int]) -> list[Keyword]:
    """Stop words (the words no RAKE phrase holds, negations aside) that the tagger calls
    nouns or verbs in the sentence and on their own, except be/have/do forms and pieces of
    contractions. "On their own" because the tagger's contextual rules also retag
    prepositions ("sent me in the mail": "in" becomes a verb; "some of my": "of" a noun)."""
    words = sequence.words
    needed = [kind == _STOP and _may_be_noun_or_verb(word.lower()) for word, kind in zip(words, classes)]
    if not any(needed):
        return []
    tags = PatternTagger.load().tag_words(words, sequence.glue, needed=needed)
    found: list[Keyword] = []
    for index, (word, tag) in enumerate(zip(words, tags)):
        if needed[index] and tag.startswith(_NOUN_TAGS + _VERB_TAGS):
            source: KeywordSource = "noun" if tag.startswith(_NOUN_TAGS) else "verb"
            found.append(Keyword(word, starts[index], starts[index] + len(word), source))
    return found


@functools.lru_cache(maxsize=4096)
def _may_be_noun_or_verb(lower: str) -> bool:
    """Whether the tagger calls the word, alone, a noun or a verb (and it is no auxiliary)."""
    base = _CLITIC.match(lower)
    word = base.group(1) if base else lower
    if not word or word in BE_HAVE_DO or word in CONTRACTION_PIECES:
        return False
    return PatternTagger.load().tag_sentence([word])[0].startswith(_NOUN_TAGS + _VERB_TAGS)
