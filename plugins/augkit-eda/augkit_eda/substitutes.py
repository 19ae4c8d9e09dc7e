"""Whether a word proposed by a model may replace a word of a sentence, or be inserted into it.

A masked language model proposes what fits the context, not what keeps the meaning: for
"I lost my card" it offers "found" as readily as "misplaced". ParaMac's keyword substitution
and the ``contextual`` method (augkit-contextual) pass every proposal through these rules,
the ones EDA's safe synonyms follow, so that a rule is written once:

- **not a word**: word pieces ("##ly"), punctuation, digits and single letters are refused;
- **stop word**: a function word is never replaced and never proposed ("the" -> "a" changes
  nothing useful; "for" -> "from" changes the meaning), nor an auxiliary or modal ("can" ->
  "must"), nor an indefinite pronoun ("my card" -> "my everybody");
- **negation**: a negation is never replaced and never proposed ("I can pay" -> "I never
  pay"), with the core's list of negations (:data:`augkit.plugin.NEGATION_WORDS`);
- **number**: a word naming a number, a date, a time or a unit of time is never replaced and
  never proposed ("two cards" -> "three cards", "tomorrow" -> "today", "a week ago" -> "a
  month ago"), with the core's lists (:data:`augkit.plugin.NUMBER_WORDS`,
  :data:`augkit.plugin.DATE_AND_TIME_WORDS`);
- **unknown word**: only a word WordNet knows in some part of speech may be replaced: a
  lower-case name ("redmond", "spotify" in a lower-cased dataset) is not, as it has no
  substitute;
- **antonym**: WordNet's antonyms of the word, direct and, for adjectives, through its
  clusters ("large" -> "small", :meth:`augkit_eda.wordnet.WordNetLexicon.is_antonym`);
- **same word**: a form of the word itself ("card" -> "cards", "pay" -> "paid"): no new wording.
"""

from __future__ import annotations

from augkit.plugin import DATE_AND_TIME_WORDS, NEGATION_WORDS, NUMBER_WORDS
from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_eda.synonyms import INDEFINITE_PRONOUNS
from augkit_eda.wordnet import PARTS_OF_SPEECH, WordNetLexicon, default_lexicon

#: Shortest word proposed: single letters ("x", "s") are word pieces or symbols, not words.
MIN_LETTERS = 2
#: Forms of be/have/do and the modals: replacing one changes tense, mood or modality ("can"
#: -> "must", "did" -> "will"), never only the wording. EDA's stop words hold some of them.
AUXILIARIES = frozenset(
    "be is am are was were been being have has had having do does did doing will would shall should can could may "
    "might must".split()
)
#: The reasons a proposal is refused, in the words of a trace or a test.
NOT_A_WORD = "not a word"
STOP_WORD = "stop word"
NEGATION = "negation"
NUMBER = "number"
ANTONYM = "antonym"
SAME_WORD = "same word"
#: The words no rule lets change or appear, whatever they replace.
_CLOSED = AUXILIARIES | INDEFINITE_PRONOUNS


class SubstituteRules:
    """The rules of the module docstring, over EDA's WordNet lexicon and a stop-word
    list (EDA's by default).

    >>> rules = SubstituteRules()
    >>> rules.refusal("large", "small"), rules.refusal("card", "cards"), rules.refusal("card", "wallet")
    ('antonym', 'same word', None)
    """

    def __init__(self, stop_words: frozenset[str] = EDA_STOP_WORDS, lexicon: WordNetLexicon | None = None):
        self.stop_words = stop_words
        self.lexicon = lexicon or default_lexicon()
        # Each word's base forms per part of speech, computed once: a masked LM's fills repeat
        # the same words across slots and rows.
        self._forms: dict[str, tuple[frozenset[str], ...]] = {}

    def replaceable(self, word: str) -> bool:
        """Whether ``word`` may be replaced at all: a word of letters that WordNet knows, not
        a stop word, auxiliary, negation, number, date or time word."""
        low = word.lower()
        return self._word_refusal(low) is None and any(self._base_forms(low))

    def refusal(self, word: str | None, proposal: str) -> str | None:
        """Why ``proposal`` may not take the place of ``word`` (or, with ``word=None``, be
        inserted), or None when it may. Case is ignored."""
        proposed = proposal.lower()
        reason = self._word_refusal(proposed)
        if reason is not None or word is None:
            return reason
        low = word.lower()
        if proposed == low or self.same_word(low, proposed):
            return SAME_WORD
        if self.lexicon.is_antonym(low, proposed):
            return ANTONYM
        return None

    def same_word(self, word: str, other: str) -> bool:
        """Whether two lower-case words are forms of one lemma ("large"/"larger", "run"/"ran")."""
        return any(mine & theirs for mine, theirs in zip(self._base_forms(word), self._base_forms(other), strict=True))

    def _base_forms(self, word: str) -> tuple[frozenset[str], ...]:
        found = self._forms.get(word)
        if found is None:
            found = self._forms[word] = tuple(frozenset(self.lexicon.base_forms(word, pos)) for pos in PARTS_OF_SPEECH)
        return found

    def _word_refusal(self, low: str) -> str | None:
        if not low.isalpha() or len(low) < MIN_LETTERS:
            return NOT_A_WORD
        if low in NEGATION_WORDS:
            return NEGATION
        if low in NUMBER_WORDS or low in DATE_AND_TIME_WORDS:
            return NUMBER
        if low in self.stop_words or low in _CLOSED:
            return STOP_WORD
        return None
