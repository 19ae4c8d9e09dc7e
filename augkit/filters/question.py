"""Drop candidates that turn a question into a statement: "can you dim my screen" -> "you can
darken my screen", "what oil is best for chicken" -> "that oil is better for chicken".

The Bergamot round trip through Portuguese does it to about half of English requests (a
Portuguese question keeps the statement's word order), and EDA's swaps do it when they move
the question word; embeddings barely notice (the words are the same), so ``semantic`` keeps
them. No model: a question opens a clause with a question word or an auxiliary verb before its
subject, or ends with a question mark.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import ClassVar

from augkit.filters.label_safety import LabelSafetyFilter, Mismatch

#: Words that open a question.
QUESTION_WORDS = frozenset({
    "what", "which", "who", "whom", "whose", "where", "when", "why", "how",
    "what's", "whats", "where's", "wheres", "who's", "whos", "how's", "hows", "when's", "why's",
})
#: Auxiliary verbs that open a yes/no question when a subject follows ("can you", "is the").
AUXILIARIES = frozenset({
    "am", "is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "shall",
    "should", "may", "might", "must", "has", "have", "had",
    "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't", "can't", "couldn't", "won't",
    "wouldn't", "shouldn't", "haven't", "hasn't", "hadn't", "isnt", "arent", "dont", "doesnt", "didnt",
    "cant", "wont", "wouldnt", "shouldnt", "couldnt",
})
#: Words that may come before a clause's first word without changing what it is ("please can
#: you", "hey what is", "so how do i").
LEAD_WORDS = frozenset({"please", "pls", "plz", "kindly", "hey", "hi", "hello", "ok", "okay", "so", "and", "but", "also",
                        "now", "then", "well", "um", "oh", "yes", "no", "sorry", "excuse", "me", "thanks"})
#: Prepositions that may stand before a question word ("at what age", "in which city", "for how long").
_PREPOSITIONS = frozenset({"at", "in", "on", "for", "to", "from", "with", "by", "of", "about", "since", "until", "during"})
#: Verbs that open a request in the imperative: "can you tell me the time" -> "tell me the time"
#: asks for the same thing, so a candidate opening with one of them is not a statement.
REQUEST_VERBS = frozenset({
    "tell", "show", "give", "find", "let", "help", "list", "play", "set", "add", "remind", "book", "check", "get",
    "make", "turn", "send", "call", "open", "start", "stop", "cancel", "change", "put", "take", "look", "search",
    "explain", "describe", "read", "say", "pay", "transfer", "order", "reserve", "schedule", "update", "delete",
    "remove", "use", "share", "text", "email", "buy", "rate", "compute", "calculate", "convert", "translate",
    "define", "spell", "roll", "flip", "pick", "repeat", "increase", "decrease", "lower", "raise", "dim", "mute",
})
#: Auxiliaries that open a statement more often than a question when no subject word follows
#: ("have a nice day", "do not"): the next word says.
_NOT_SUBJECTS = frozenset({"not", "no", "to", "be", "been", "you're", "nice", "fun", "good"})
_CLAUSES = re.compile(r"[.!?;,:\n]+")
#: A question word right before an auxiliary, anywhere: "if humans evolved from apes then why are
#: there still apes", "according to them what would be the solution".
_ASKED_INSIDE = re.compile(r"\b(?:what|which|who|where|when|why|how)\s+(?:" + "|".join(
    sorted({"am", "is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "has",
            "have", "had"})) + r")\b")
_WORD = re.compile(r"[a-z]+(?:['’][a-z]+)?")


@dataclass(frozen=True)
class Mood:
    """Whether a text asks, and how its first clause opens (for the reason)."""

    asks: bool
    request: bool
    opening: str


def mood(text: str) -> Mood:
    """What a text is: a question (``asks``), a request in the imperative (``request``), or
    neither, with the first two words of its first clause (``opening``).

    >>> mood("can you dim the brightness of my screen").asks
    True
    >>> mood("you can darken the brightness of my screen").asks
    False
    >>> mood("tell me the time in tokyo").request
    True
    """
    lowered = _plain_letters(text).lower().replace("’", "'")
    asks = "?" in lowered or _ASKED_INSIDE.search(lowered) is not None
    request = False
    opening = ""
    for clause in _CLAUSES.split(lowered):
        words = _WORD.findall(clause)
        while words and words[0] in LEAD_WORDS:
            words = words[1:]
        if not words:
            continue
        if not opening:
            opening = " ".join(words[:2])
        first = words[0]
        if first in _PREPOSITIONS and len(words) > 1 and words[1] in QUESTION_WORDS:
            first = words[1]
        if first in QUESTION_WORDS or (first in AUXILIARIES and len(words) > 1 and words[1] not in _NOT_SUBJECTS):
            asks = True
        elif first in REQUEST_VERBS:
            request = True
    return Mood(asks, request, opening)


def _plain_letters(text: str) -> str:
    """``text`` without combining marks ("İs" lower-cases to "i" and a dot above)."""
    return "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char))


class QuestionFilter(LabelSafetyFilter):
    """Drops a candidate that turns a question into a statement.

    A text asks when one of its clauses opens with a question word (what, which, who, where,
    when, why, how, ...; "at what age" too) or with an auxiliary verb before a subject ("can
    you", "is the", "did i", "has there"), when a question word stands right before an
    auxiliary anywhere ("... then why are there still apes"), or when it holds a question mark;
    words such as "please", "hey" or "so" before a clause's first word do not count. A candidate of a source that asks must ask too, or open a clause
    with a request verb in the imperative ("can you tell me the time" -> "tell me the time" is
    kept). So "can you dim my screen" -> "you can darken my screen", "what oil is best" ->
    "that oil is better", "has there been anything breaking" -> "there's been anything" are
    dropped. Known false alarms: a question said as "i want to know ..." or "i wonder ...", a
    request verb missing from :data:`REQUEST_VERBS`. Not caught: a statement turned into a
    question, a question whose words EDA reorders behind the question word.

    Adds the score ``question_lost`` (1 for a dropped candidate, 0 otherwise);
    ``explain(source, text)`` says how each opens.
    """

    name = "question"
    scores: ClassVar[tuple[str, ...]] = ("question_lost",)

    def clues(self, text: str) -> Mood:
        return mood(text)

    def compare(self, source_clues: Mood, candidate_clues: Mood) -> Mismatch:
        if source_clues.asks and not candidate_clues.asks and not candidate_clues.request:
            return Mismatch(1, f"question turned into a statement: {source_clues.opening!r} -> {candidate_clues.opening!r}")
        return Mismatch()
