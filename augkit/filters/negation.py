"""Drop candidates that add or lose a negation: "films are at the theatre" -> "films are not"."""

from __future__ import annotations

from collections.abc import Collection

from augkit.errors import InvalidParameterError
from augkit.filters.label_safety import (
    LabelSafetyFilter,
    Mismatch,
    describe_difference,
    multiset_difference,
    word_set,
)
from augkit.text import split_words

#: Words that negate, in lower case. The forms users type without an apostrophe are listed
#: because user texts are full of them (BANKING77's training texts: "dont" 14 times, "didnt"
#: 19, "cant" 8, "wont" 7, "isnt" 5). "non" is a word of its own in back-translations
#: ("non- Gmail") and EDA's WordNet synonym of "not". "unable" and "unaware" are how
#: rewrites say "not able" and "not aware" ("I am unable to" <-> "I can't"; BANKING77's
#: training texts: "unable" 47 times); other un- and in- words are left out because their
#: rewrites rarely use "not" ("incorrect" -> "wrong", "unlock", "undo").
NEGATION_WORDS = frozenset({
    "not", "no", "never", "nobody", "nothing", "none", "neither", "nor", "nowhere", "noone",
    "no-one", "without", "cannot", "non", "unable", "unaware",
    "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "wont", "wouldnt", "cant",
    "couldnt", "shouldnt", "havent", "hasnt", "hadnt", "aint", "mustnt", "neednt", "mightnt",
})
#: Prefixes that negate the word they are hyphenated to ("non-Google", "non-refundable").
NEGATION_PREFIXES = ("non-",)
#: Every "n't" contraction ("don't", "can't", "won't", "shan't") ends with it.
_CONTRACTION = "n't"
#: Typographic apostrophes, read as "'".
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})


class NegationFilter(LabelSafetyFilter):
    """Drops a candidate whose number of negations differs from its source's.

    A negation is, case-insensitively: a word of ``words`` (by default not, no, never,
    nobody, nothing, none, neither, nor, nowhere, no one, without, cannot, non, unable,
    unaware, and the apostrophe-less contractions dont, cant, wont, didnt, ...); any word
    ending in "n't" (don't, can't, won't: typographic apostrophes too); or a word starting
    with one of ``prefixes`` ("non-Google"). "No." before a number ("No. 5") is not one.

    Negations are counted, not matched word for word or by position, so rewrites that keep
    the meaning are kept: "don't" -> "do not", "cannot" -> "can not", "no fees" -> "not any
    fees", "nobody" -> "no one", "unable to" -> "can't", a swap that moves "not"
    elsewhere. What is caught: a negation added ("are at" -> "are not"; Bergamot's round
    trip through Portuguese often reads "no"/"na", "in the", as "not" or "non-"), lost
    (EDA deleting "not"), or one of two lost.
    What is not: a negation moved to another verb ("I didn't say he paid" -> "I said he
    didn't pay"), and negation by other words (fail, lack, hardly, un-, in-, dis-).
    Known false alarms: a question tag ("... or no?") or an interjection ("No, ...") that
    the rewrite leaves out counts as a lost negation; so does "non-stop" -> "direct".

    Adds the score ``negation_changes``: the difference in the number of negations (0 for
    every kept candidate). ``explain(source, text)`` says which negations differ.

    Parameters
    ----------
    words : list of str or str, optional
        Words that count as negations (a list, or comma-separated); None: the list above
        (``augkit.filters.negation.NEGATION_WORDS``). "n't" endings always count.
    prefixes : list of str or str, optional
        Hyphenated prefixes that negate their word; None: ``non-``. An empty list: none.
    """

    name = "negation"
    scores = ("negation_changes",)

    def __init__(self, words: Collection[str] | str | None = None, prefixes: Collection[str] | str | None = None):
        self._words = word_set(self.name, "words", words, NEGATION_WORDS)
        self._prefixes = tuple(sorted(word_set(self.name, "prefixes", prefixes, NEGATION_PREFIXES)))
        for prefix in self._prefixes:
            if not prefix.endswith("-"):
                raise InvalidParameterError(f"negation: a prefix ends with '-' (like 'non-'), got {prefix!r}")
        self.words = words
        self.prefixes = prefixes

    def clues(self, text: str) -> list[str]:
        """The negations of ``text`` as written, in order.

        >>> NegationFilter().clues("I can't pay, no card and non-UK")
        ["can't", 'no', 'non-UK']
        """
        sequence = split_words(text.translate(_APOSTROPHES))
        words, glue = sequence.words, sequence.glue
        found = []
        for index, word in enumerate(words):
            lowered = word.lower()
            if lowered == "no" and _is_number_sign(glue[index + 1], words[index + 1 : index + 2]):
                continue
            if lowered in self._words or lowered.endswith(_CONTRACTION) or lowered.startswith(self._prefixes):
                found.append(word)
        return found

    def compare(self, source_clues: list[str], candidate_clues: list[str]) -> Mismatch:
        changes = abs(len(source_clues) - len(candidate_clues))
        if not changes:
            return Mismatch()
        lost, added = multiset_difference([(w.lower(), w) for w in source_clues], [(w.lower(), w) for w in candidate_clues])
        if not lost or not added:  # one side only: say which
            return Mismatch(changes, describe_difference("negation", [w for _, w in lost], [w for _, w in added]))
        return Mismatch(
            changes,
            f"negations: {len(source_clues)} in the source ({', '.join(map(repr, source_clues))}), "
            f"{len(candidate_clues)} in the candidate ({', '.join(map(repr, candidate_clues))})",
        )


def _is_number_sign(glue_after: str, next_word: list[str]) -> bool:
    """"No. 5", "no.5": "no" abbreviating "number"."""
    return glue_after.strip().startswith(".") and bool(next_word) and next_word[0][:1].isdigit()
