"""Keyword substitution with a masked language model (ParaMac's word-level diversity, d1).

Each eligible word of a keyword is masked in its sentence, one word at a time, and the
masked LM's prediction of rank ``substitute_rank`` (2: the paper's "second prediction of
beam search", the first being most often the word itself) replaces it, unless WordNet says
it must not: an antonym of the word ("large" -> "small", appendix B), a form of the word
itself, a stop word, a number or a word piece (augkit-eda's
:class:`~augkit_eda.substitutes.SubstituteRules`, shared with the ``contextual`` method). With ``check="synonym"`` the prediction must instead be
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

from augkit_eda.substitutes import AUXILIARIES

from augkit.plugin import split_words, word_offsets
from augkit_paramac.keywords import NEGATIONS

#: Penn tags of the words substituted: adjectives, adverbs and verbs.
ELIGIBLE_TAGS = frozenset({"JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
#: ... and common nouns when ``nouns=True`` (proper nouns never: names do not have synonyms).
NOUN_TAGS = frozenset({"NN", "NNS"})
#: Acceptance rules for a prediction (see the module docstring).
CHECKS = ("antonym", "synonym")


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
    for index, (word, (start, end)) in enumerate(zip(sequence.words, word_offsets(sequence), strict=True)):
        if (tags[index] not in eligible or not word.isalpha() or word.lower() in AUXILIARIES
                or word.lower() in NEGATIONS):
            continue
        for keyword, (k_start, k_end) in enumerate(keyword_spans):
            if k_start <= start and end <= k_end:
                slots.append(WordSlot(row, keyword, start, end, start - k_start))
                break
    return slots


class SubstituteCheck:
    """Whether a masked LM's prediction may replace a word (see the module docstring):
    augkit-eda's :class:`~augkit_eda.substitutes.SubstituteRules` (word pieces, stop words,
    auxiliaries, negations, numbers, forms of the word, antonyms), or with
    ``check="synonym"`` the rules without the antonym test and a WordNet lemma name of the word."""

    def __init__(self, lexicon: Any, stop_words: frozenset[str], check: str = "antonym"):
        from augkit_eda.substitutes import SubstituteRules

        self.lexicon = lexicon
        self.stop_words = stop_words
        self.check = check
        self._rules = SubstituteRules(stop_words, lexicon)

    def accepts(self, word: str, prediction: str) -> bool:
        from augkit_eda.substitutes import ANTONYM

        reason = self._rules.refusal(word, prediction)
        if self.check == "synonym":
            if reason is not None and reason != ANTONYM:
                return False
            names = {name.lower().replace("_", " ") for name in self.lexicon.lemma_names(word.lower())}
            return prediction.lower() in names
        return reason is None
