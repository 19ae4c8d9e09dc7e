"""Drop candidates that lose, add or change a number, a date or a time: "this week" -> "this month"."""

from __future__ import annotations

from collections.abc import Collection

from augkit.filters.amount_binding import CURRENCY
from augkit.filters.counted_units import CURRENCY_NAMES
from augkit.filters.label_safety import (
    LabelSafetyFilter,
    Mismatch,
    describe_difference,
    multiset_difference,
    word_set,
)
from augkit.filters.number_expressions import read_expressions
from augkit.filters.number_vocabulary import ARTICLE, TIME_WORDS
from augkit.filters.number_words import Expression, names_a_number, same_direction

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
    "15:00", "235pm" = "14:35", "ten pm", "two in the morning" = "2am", "quarter after six"
    = "6:15", "half past six", "quarter to six", noon, midnight); dates ("12/03/2019" whole,
    "june 8" = "the 8th of june" = "June the 8th", "march 12, 2019"; "May", "March",
    "August" and abbreviations only next to a number) and weekdays ("last saturday" is not
    "saturday"); relative time words (today, tonight, tomorrow, yesterday, "tomorrow
    morning", "the day before yesterday" = "2 days ago") and time units (seconds, minute,
    hour, day, week, weekend, fortnight, month, year, decade, morning, afternoon, evening,
    night), plural or "-ly" ("days" = "day", "monthly" = "month") and joined with
    this/next/last ("this week", "next month"; "past year" = "last year", "coming week" =
    "next week"); which way a duration points: "ago" (or "back"), "from now" after a
    duration ("20 days from now"; "from now on" is not one), "in" or "within" before an
    amount and a unit ("in 3 days" = "3 days from now" = "within 3 days"), "last"/"next"
    and "every" before one ("the last 4 weeks", "every few days"), "later"/"afterwards" and
    "earlier" after a unit or beside a time ("an hour later", "earlier today"; "see you
    later" names no time); a possessive "'s" is ignored ("today's date" -> "the date
    today"); "tonight" = "this evening".

    An amount and the unit it counts are one expression, with the way it points: "2 days
    ago", "in 3 days", "the last 4 weeks", "every other day" (= every 2 days). Amounts are
    digits, number words, fractions, "a"/"an" (one: "an hour", "a pound"), and the vague
    "a few" = "several" = "a couple (of)"; units are the time units above (nouns: "2
    daily" counts nothing), "times" ("3 times", not the product "5 times 3"), currencies
    by word, code or symbol before or after the amount ("€1" = "1 euro", "1£" = "one
    pound", "$20" = "20 dollars" = "USD 20"; "Rs 2000" = "2000 rupees") and units of measure
    ("12 oz" = "12 ounces", "two quarts", "half of a cup", "5%"; not with an article: "a
    degree in business" names no amount). A few words may stand between an amount and its
    time unit ("2 more days", "3 business days") or its currency ("20 canadian dollars").
    Counted nouns are not units ("3 people" -> "3 persons" is kept). Equal amounts of time
    are equal in any unit ("a week" = "7 days", "half an hour" = "30 minutes", "24 hours"
    = "a day", "18 months" = "a year and a half"). So a rewrite that carries the number
    away from its unit or the duration away from its direction changes the expression:
    "2 days ago" -> "she days ago and 2" loses '2 days ago', "€1 fee" -> "€my fee on 1"
    loses '€1', "an hour" -> "an been hour" loses 'an hour'.

    "one" and "a"/"an": "one" is a pronoun in "the one", "which one", "a new one", "can
    one" (not before a unit: "another one hour later"); elsewhere a number, which an
    article says only before the same word: "one pound" -> "a pound" and "a week" -> "1
    week" are kept, "give one out of 6" -> "give a 6" loses the "one" (the "a" counts "6").
    An article or a currency said on one side only, beside the same amount, is no change
    ("1000 rupee notes" -> "1000 notes", "your weekend" -> "a weekend", "a week ago" ->
    "week ago"), unless the other text holds it elsewhere: then it was carried away ("€1
    fee" -> "€my fee on 1", "a week" -> "a assist week").

    Source and candidate must hold the same expressions, as many times each, in any order
    (except that naming again a unit the source names is not a change: "what day it is"
    -> "what solar day it is"):
    "two cards" -> "2 cards" (with ``words_as_numbers``), "3 days" -> "three days",
    "monthly fee" -> "fee every month" are kept; "this week" -> "this month", "3 days" ->
    "3 weeks", "at 3pm" -> "at 3", "2 cards" -> "cards", "half of my funds" -> "my funds",
    "20 days from now" -> "20 days from", "20 days" -> "20 days ago", "$20" -> "20 euros"
    ... are dropped. Known false alarms: a unit left implicit ("how many days" -> "how
    long"), a phrase EDA's swap breaks up ("this morning" -> "morning this", "tomorrow
    morning" -> "morning tomorrow"), a word EDA inserts between an amount and its unit
    ("several times" -> "several assist times"), "one" used as a determiner ("what one
    thing" -> "the one thing"). Not caught: a day and month reordered ("05/12" -> "12/05";
    a full date "12/03/2019" is one expression), a currency named without an amount and
    moved ("exchange to eur?" -> "eur ... exchange to"), the words around an ordinal ("the
    10th" -> "the opportunity 10th": the ordinal is read alone), an expression moved whole
    ("quarter after six tomorrow" -> "tomorrow ... quarter after six", "yesterday"
    elsewhere), numbers that count no unit reordered ("the sum of 3, 7, 9" -> "9 ... the
    sum of 3, 7"), a vague amount said another way ("a few days" -> "few days"), "time"
    itself ("the current time" -> "the current"). False alarms and what passes, measured
    on real data: ``docs/benchmarks/label-safety.md``.

    Adds the score ``number_changes``: expressions lost plus expressions added (0 for every
    kept candidate). ``explain(source, text)`` names them as written ("number or time lost:
    '20 days from now'; added: '20 days'").

    Parameters
    ----------
    words_as_numbers : bool
        Number words equal their digits ("two" = "2", "second" = "2nd" = "2", "one pound" =
        "a pound", "half" = "1/2", "a week" = "7 days"); False: a number written differently
        counts as changed.
    time_words : list of str or str, optional
        Relative time words and units that count (a list, or comma-separated); None: the
        words above (``augkit.filters.numbers.TIME_WORDS``). An empty list: no time words,
        and so no directions ("ago", "from now", ...) either; currencies and units of
        measure still bind to their amounts.
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
        lost, added = _left_implicit(lost, added)
        lost = [e for e in lost if names_a_number(e)]
        # A unit the source already names adds no new time ("what day it is" -> "what solar
        # day ... day it is", "this month" -> "calendar month ... this month").
        units_named = {e.unit for e in source_clues if e.unit}
        added = [e for e in added if names_a_number(e) and not (e.key == e.unit and e.unit in units_named)]
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
    """``lost`` and ``added`` without the pairs that say the same amount of time pointing the
    same way in other words ("in 6 months" -> "within 6 months", "in 5 days" -> "5 days from
    now")."""
    added = list(added)
    kept_lost = []
    for expression in lost:
        match = next((other for other in added if _same_time_said_otherwise(expression, other)), None)
        if match is None:
            kept_lost.append(expression)
        else:
            added.remove(match)
    return kept_lost, added


def _same_time_said_otherwise(first: Expression, second: Expression) -> bool:
    return same_direction(first.direction, second.direction) and _without_direction(first) == _without_direction(second)


def _without_direction(expression: Expression) -> str:
    """The key of an amount of time without the way it points ("3 day" for "in 3 day")."""
    key, direction = expression.key, expression.direction
    if key == direction:
        return ""
    return key.removeprefix(f"{direction} ") if key.startswith(f"{direction} ") else key.removesuffix(f" {direction}")


def _left_implicit(lost: list[Expression], added: list[Expression]) -> tuple[list[Expression], list[Expression]]:
    """``lost`` and ``added`` without the amounts whose article or currency one text leaves
    out ("a week ago" -> "week ago", "1000 rupee notes" -> "1000 notes", "your weekend" -> "a
    weekend"), unless that text holds the article or currency elsewhere: then it was carried
    away from its amount ("€1 fee" -> "€my fee on 1", "an hour" -> "an been hour")."""
    added = list(added)
    lost = _pair_implicit(lost, added)
    added = _pair_implicit(added, lost)
    return lost, added


def _pair_implicit(said: list[Expression], other: list[Expression]) -> list[Expression]:
    """``said`` without the amounts ``other`` says without their article or currency (the
    matches are taken from ``other``)."""
    remaining = []
    for expression in said:
        elsewhere = _carried_elsewhere(expression, other)
        match = None if elsewhere or not expression.implicit else next((e for e in other if e.key == expression.implicit), None)
        if match is None:
            remaining.append(expression)
        else:
            other.remove(match)
    return remaining


def _carried_elsewhere(expression: Expression, other: list[Expression]) -> bool:
    """Whether ``other`` holds the currency of ``expression`` elsewhere (alone: "€my fee on 1",
    or with another amount: "twenty dollars" -> "an dollars ... twenty"), or for an amount
    said by its article, an article that now counts another word ("an hour" -> "an been hour")."""
    if expression.unit in CURRENCY_NAMES:
        return any(e.key == f"{CURRENCY} {expression.unit}" or e.unit == expression.unit for e in other)
    return any(e.key.startswith(ARTICLE) for e in other)


def _said_by(expression: Expression, articles: list[str]) -> bool:
    """Whether ``expression`` is a one counting a word one of ``articles`` counts (that
    article is then used up): "one", or one of a unit of measure ("1 foot" = "a foot")."""
    if expression.key.split()[0] != "1" or not expression.counts or expression.counts not in articles:
        return False
    articles.remove(expression.counts)
    return True
