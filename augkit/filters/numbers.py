"""Drop candidates that lose, add or change a number, a date or a time: "this week" -> "this month"."""

from __future__ import annotations

from collections.abc import Collection

from augkit.filters.label_safety import LabelSafetyFilter, Mismatch, describe_difference, multiset_difference, word_set
from augkit.filters.number_expressions import ARTICLE, TIME_WORDS, UNIT_NAMES, Expression, read_expressions, same_direction

__all__ = ["TIME_WORDS", "NumbersFilter"]


class NumbersFilter(LabelSafetyFilter):
    """Drops a candidate that loses, adds or changes a number, a date or a time.

    What counts, case-insensitively: numbers in digits ("3", "1,000", "20.00" = "20",
    "05" = "5", "15k" = "15000"; digits inside words too: "COVID-19" holds 19); ordinals,
    by their value ("3rd" = "third" = "3", so "March 13th" -> "March 13" is kept); number
    words ("two", "twenty-five", "two hundred and five", "a dozen", "twice" = "two times");
    fractions ("half" = "a half" = "1/2" = "½" = 0.5, "a quarter", "three quarters", "one
    third", "a third of"; "2 and a half", "21 weeks and a half", "an hour and a half" add
    the fraction to the amount: 2.5, 21.5, 1.5); clock times ("10:30", "3pm" = "3 p.m." =
    "15:00", "235pm" = "14:35", "ten pm", "quarter after six" = "6:15", "half past six",
    "quarter to six", noon, midnight); months ("June"; "May", "March", "August" and
    abbreviations only next to a number) and weekdays; relative time words (today, tonight,
    tomorrow, yesterday) and time units (seconds, minute, hour, day, week, weekend,
    fortnight, month, year, decade, morning, afternoon, evening, night), plural or "-ly"
    ("days" = "day", "monthly" = "month", "24 hours" = "day") and joined with
    this/next/last, also over an amount ("this week", "next month", "the last 4 weeks";
    "past year" = "last year", "coming week" = "next week"); which way a duration points:
    "ago", "from now" after a duration ("20 days from now"; "from now on" is not one), "in"
    or "within" before an amount and a unit ("in 3 days" = "3 days from now" = "within 3
    days"), "later"/"afterwards" and "earlier" after a unit or beside a time ("an hour
    later", "earlier today"; "see you later" names no time); a possessive "'s" is ignored
    ("today's date" -> "the date today"); "tonight" = "this evening".

    "one" and "a"/"an": "one" is a pronoun in "the one", "which one", "a new one", "can
    one"; elsewhere a number, which an article says only before the same word: "one
    pound" -> "a pound" and "a week" -> "1 week" are kept, "give one out of 6" -> "give a
    6" loses the "one" (the "a" counts "6").

    Source and candidate must hold the same expressions, as many times each, in any order
    (except that naming again a unit the source names is not a change: "what day it is"
    -> "what solar day it is"):
    "two cards" -> "2 cards" (with ``words_as_numbers``), "3 days" -> "three days",
    "monthly fee" -> "fee every month" are kept; "this week" -> "this month", "3 days" ->
    "3 weeks", "at 3pm" -> "at 3", "2 cards" -> "cards", "half of my funds" -> "my funds",
    "20 days from now" -> "20 days from", "20 days" -> "20 days ago" ... are dropped. Known
    false alarms: equal amounts said differently ("a week" -> "7 days", "half an hour" ->
    "30 minutes"), a unit left implicit ("how many days" -> "how long"), a phrase EDA's
    swap breaks up ("this morning" -> "morning this"), "one" used as a determiner ("what
    one thing" -> "the one thing"). Not caught: a date's parts reordered ("05/12" ->
    "12/05"), a currency changed ("$20" -> "20 euros"). False alarms measured on real
    pairs: ``docs/benchmarks/label-safety.md``.

    Adds the score ``number_changes``: expressions lost plus expressions added (0 for every
    kept candidate). ``explain(source, text)`` names them as written ("number or time lost:
    'from now'").

    Parameters
    ----------
    words_as_numbers : bool
        Number words equal their digits ("two" = "2", "second" = "2nd" = "2", "one pound" =
        "a pound", "half" = "1/2"); False: a number written differently counts as changed.
    time_words : list of str or str, optional
        Relative time words and units that count (a list, or comma-separated); None: the
        words above (``augkit.filters.numbers.TIME_WORDS``). An empty list: no time words,
        and so no directions ("ago", "from now", ...) either.
    """

    name = "numbers"
    scores = ("number_changes",)

    def __init__(self, words_as_numbers: bool = True, time_words: Collection[str] | str | None = None):
        self._time_words = word_set(self.name, "time_words", time_words, TIME_WORDS)
        self.words_as_numbers = bool(words_as_numbers)
        self.time_words = time_words

    def clues(self, text: str) -> list[Expression]:
        """The number, date and time expressions of ``text`` (its articles too, with the word
        each counts: see the rule for "one" above), each as (canonical key, as written, the
        word a "one" or an article counts).

        >>> [(e.key, e.written) for e in NumbersFilter().clues("Two cards, 3pm this week")]
        [('2', 'two'), ('15:00', '3pm'), ('this week', 'this week')]
        """
        return read_expressions(text, words_as_numbers=self.words_as_numbers, time_words=self._time_words)

    def compare(self, source_clues: list[Expression], candidate_clues: list[Expression]) -> Mismatch:
        lost, added = multiset_difference(source_clues, candidate_clues)
        if self.words_as_numbers:
            lost, added = _one_said_by_an_article(lost, added)
        lost, added = _same_directions(lost, added)
        lost = [e for e in lost if not e.key.startswith(ARTICLE)]
        # A unit the source already names adds no new time ("what day it is" -> "what solar
        # day ... day it is", "this month" -> "calendar month ... this month").
        units_named = {e.key.split()[-1] for e in source_clues if e.key.split()[-1] in UNIT_NAMES}
        added = [e for e in added if not e.key.startswith(ARTICLE) and e.key not in units_named]
        return Mismatch(
            len(lost) + len(added),
            describe_difference("number or time", [e.written for e in lost], [e.written for e in added]),
        )


def _one_said_by_an_article(lost: list[Expression], added: list[Expression]) -> tuple[list[Expression], list[Expression]]:
    """``lost`` and ``added`` without the ones an article says in the other text, before the
    same word: "one pound" -> "a pound" and "a week" -> "1 week" keep the number; "give one
    out of 6" -> "give a 6" does not (the "a" counts "6", the "one" counted "out")."""
    articles_added = [e.counts for e in added if e.key.startswith(ARTICLE)]
    articles_lost = [e.counts for e in lost if e.key.startswith(ARTICLE)]
    lost = [e for e in lost if not _said_by(e, articles_added)]
    added = [e for e in added if not _said_by(e, articles_lost)]
    return lost, added


def _same_directions(lost: list[Expression], added: list[Expression]) -> tuple[list[Expression], list[Expression]]:
    """``lost`` and ``added`` without the pairs of directions that may say the same ("in 6
    months" -> "within 6 months", "in 5 days" -> "5 days from now")."""
    added = list(added)
    kept_lost = []
    for expression in lost:
        match = next((other for other in added if same_direction(expression.key, other.key)), None)
        if match is None:
            kept_lost.append(expression)
        else:
            added.remove(match)
    return kept_lost, added


def _said_by(expression: Expression, articles: list[str]) -> bool:
    """Whether ``expression`` is a one counting a word one of ``articles`` counts (that
    article is then used up)."""
    if expression.key != "1" or not expression.counts or expression.counts not in articles:
        return False
    articles.remove(expression.counts)
    return True
