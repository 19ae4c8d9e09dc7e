"""Keyword substitution with a masked language model (ParaMac's word-level diversity, d1).

Each eligible word of a keyword is masked in its sentence, one word at a time, and the
masked LM's prediction of rank ``substitute_rank`` (2: the paper's "second prediction of
beam search", the first being most often the word itself) replaces it, unless WordNet says
it must not: an antonym of the word ("large" -> "small", appendix B), a form of the word
itself, a stop word or a word piece. With ``check="synonym"`` the prediction must instead be
one of the word's WordNet lemma names (what the authors' released code does). A refused
prediction leaves the word as it was. Words are eligible by part of speech: adjectives,
adverbs and verbs (the released code's choice; nouns carry what a sentence is about and
are kept unless ``nouns=True``). Negations ("not", "never", "n't") are never substituted
nor substituted in: swapping one changes what the sentence says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from augkit.plugin import split_words
from augkit_paramac.keywords import NEGATIONS

#: Penn tags of the words substituted: adjectives, adverbs and verbs.
ELIGIBLE_TAGS = frozenset({"JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
#: ... and common nouns when ``nouns=True`` (proper nouns never: names do not have synonyms).
NOUN_TAGS = frozenset({"NN", "NNS"})
#: Shortest substitute: single letters ("x", "s") are word pieces or symbols, not words.
MIN_LETTERS = 2
#: Acceptance rules for a prediction (see the module docstring).
CHECKS = ("antonym", "synonym")
#: Forms of be/have/do and modals: their "substitutes" change tense or mood, never wording.
AUXILIARIES = frozenset(
    "be is am are was were been being have has had having do does did doing will would shall should can could may might must".split()
)


@dataclass(frozen=True)
class WordSlot:
    """One word of a keyword to substitute: its sentence, the keyword's index, the word's
    character span in the sentence and its offset inside the keyword's text."""

    row: int
    keyword: int
    start: int
    end: int
    offset: int


def substitution_slots(text: str, row: int, keyword_spans: Sequence[tuple[int, int]], tags: Sequence[str],
                       *, nouns: bool = False) -> list[WordSlot]:
    """The words of ``text``'s keywords that may be substituted, given one Penn tag per word
    of :func:`augkit.text.split_words` (``tags``)."""
    eligible = ELIGIBLE_TAGS | NOUN_TAGS if nouns else ELIGIBLE_TAGS
    sequence = split_words(text)
    slots: list[WordSlot] = []
    position = len(sequence.glue[0])
    for index, word in enumerate(sequence.words):
        start, end = position, position + len(word)
        position = end + len(sequence.glue[index + 1])
        if (tags[index] not in eligible or not word.isalpha() or word.lower() in AUXILIARIES
                or word.lower() in NEGATIONS):
            continue
        for keyword, (k_start, k_end) in enumerate(keyword_spans):
            if k_start <= start and end <= k_end:
                slots.append(WordSlot(row, keyword, start, end, start - k_start))
                break
    return slots


class SubstituteCheck:
    """Whether a masked LM's prediction may replace a word (see the module docstring)."""

    def __init__(self, lexicon: Any, stop_words: frozenset[str], check: str = "antonym"):
        self.lexicon = lexicon
        self.stop_words = stop_words
        self.check = check

    def accepts(self, word: str, prediction: str) -> bool:
        low, predicted = word.lower(), prediction.lower()
        if (not predicted.isalpha() or len(predicted) < MIN_LETTERS or predicted in self.stop_words
                or predicted in AUXILIARIES or predicted in NEGATIONS):
            return False  # word pieces ("##ly"), punctuation, numbers, single letters, function words, negations
        if predicted == low or self._same_word(low, predicted):
            return False
        if self.check == "synonym":
            names = {name.lower().replace("_", " ") for name in self.lexicon.lemma_names(low)}
            return predicted in names
        return not self.lexicon.is_antonym(low, predicted)

    def _same_word(self, word: str, other: str) -> bool:
        """Forms of one lemma ("large"/"larger", "run"/"ran")."""
        for pos in ("n", "v", "a", "r"):
            if set(self.lexicon.base_forms(word, pos)) & set(self.lexicon.base_forms(other, pos)):
                return True
        return False
