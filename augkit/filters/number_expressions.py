"""Reading the numbers, dates and times of a text: what the ``numbers`` filter compares.

:func:`read_expressions` reads the pieces of a text ("21 weeks and a half" is 21.5, "weeks"
a unit, "from now" a direction, "€" a currency) and binds those that make one expression
(:mod:`augkit.filters.amount_binding`): "cold 21 weeks and a half from now" is one amount of
time pointing ahead. Each expression has a canonical ``key`` (equal amounts said alike
compare equal: "3pm" = "15:00", "a half" = "1/2" = "0.5", "in 3 days" = "3 days from now",
"a week" = "7 days") and the text as ``written`` (what an explanation quotes).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from fractions import Fraction
from typing import NamedTuple

from augkit.filters.amount_binding import (
    AMOUNT,
    COUNTED,
    CURRENCY,
    FRACTION,
    LEAD,
    MONTH,
    ORDINAL,
    OTHER,
    SINGLE,
    SYMBOL,
    TRAIL,
    UNIT,
    VAGUE,
    Piece,
    bind,
)
from augkit.filters.counted_units import (
    SYMBOLS,
    TIME_GAP_WORDS,
    TIME_WORDS_NOT_COUNTED,
    TIMES,
    counted_unit,
    format_amount,
    is_amount,
)

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_SCALES = {"dozen": 12, "hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100,
    "thousandth": 1_000, "millionth": 1_000_000,
}
NUMBER_WORDS = {**_UNITS, **_TENS, **_SCALES, **_ORDINALS}
#: Which number word may follow which in one number ("twenty five", "two hundred and five",
#: "twenty-first"); any other pair starts a new number ("two three" is 2 and 3).
_FOLLOWS = {None: "UTSO", "U": "S", "T": "USO", "S": "UTSOA", "A": "UTO"}
#: After a number of hours said in words: "ten pm" = "22:00".
_HALVES_OF_THE_DAY = frozenset({"am", "pm"})
#: The words that name a fraction by its denominator. "half" and "quarter" are fractions
#: alone ("half of my funds"); the ordinals only after a numerator ("one third", "two
#: fifths") or as "a third of" ("a third card" is an ordinal); plurals only after a numerator
#: ("three quarters"; "living quarters" holds no number).
_DENOMINATORS = {
    "half": 2, "halves": 2, "quarter": 4, "quarters": 4, "third": 3, "thirds": 3, "fourth": 4, "fourths": 4,
    "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8,
    "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10,
}
_FRACTIONS_ALONE = frozenset({"half", "quarter"})
#: Largest numerator said in words before a denominator ("ten thirds" is rare already).
_LARGEST_NUMERATOR = 10
#: "1/2", "2/3", "3/4": a fraction when the numerator is smaller and the denominator one of
#: these; otherwise two numbers ("2/20", "4/5": dates in CLINC150).
_DIGIT_DENOMINATORS = frozenset({2, 3, 4})
#: "quarter past six", "half past six", "quarter to six": clock times in words.
_CLOCK_AFTER = frozenset({"past", "after"})
_CLOCK_BEFORE = frozenset({"to", "before", "till", "til"})
_CLOCK_MINUTES = {("quarter", "after"): 15, ("half", "after"): 30, ("quarter", "before"): -15}
#: Multiplicative words: "twice" = "two times" (the "times" is not read).
_TIMES = {"twice": 2, "thrice": 3}
#: "one" after these words is a pronoun ("the one I ordered", "which one"), not a number;
#: so is "one" two words after a determiner of :data:`_ONE_DETERMINERS` ("the stolen one",
#: "a new one").
_ONE_AS_PRONOUN_AFTER = frozenset({
    "the", "this", "that", "which", "no", "any", "every", "each", "another", "some", "last",
    "next", "new", "old", "other", "only", "same", "right", "wrong", "good", "bad", "little",
})
_ONE_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "which", "another", "every", "each"})
#: "one" next to a modal is the generic pronoun ("where can one receive", "one should").
_MODALS = frozenset({"can", "could", "should", "must", "may", "might", "would", "will", "shall", "do", "does", "did"})
#: "a" and "an": read with the word they count ("a pound"), because they may say "one" (see
#: :class:`augkit.filters.NumbersFilter`). Their key starts with :data:`ARTICLE`.
ARTICLES = frozenset({"a", "an"})
ARTICLE = "(article)"
#: Names of months. The ambiguous ones ("may", "march", "august", and the abbreviations)
#: count only next to a number ("May 5", "5th of may", "May the 5th", "aug 2020").
_MONTHS = {
    "january": "january", "february": "february", "april": "april", "june": "june",
    "july": "july", "september": "september", "october": "october", "november": "november",
    "december": "december",
}
_AMBIGUOUS_MONTHS = {
    "may": "may", "march": "march", "august": "august", "jan": "january", "feb": "february",
    "apr": "april", "jun": "june", "jul": "july", "aug": "august", "sep": "september",
    "sept": "september", "oct": "october", "nov": "november", "dec": "december",
}
_WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
#: Times of day said in words.
_CLOCK_WORDS = {"noon": "12:00", "noonday": "12:00", "midday": "12:00", "midnight": "0:00"}
#: Relative time words and the unit or day each stands for: plurals and "-ly" adverbs are the
#: same unit ("3 days", "daily", "every day"), so rewrites between them are kept while
#: "this week" -> "this month" or "3 days" -> "3 weeks" are caught. "tonight" is "this
#: evening" and "this night" (translations swap them), but night is not evening otherwise:
#: "good evening" -> "good night" turns CLINC150's greeting into its goodbye. "second" alone
#: is the ordinal; "seconds" is the unit.
TIME_WORDS = {
    "today": "today", "tonight": "this evening", "tomorrow": "tomorrow", "yesterday": "yesterday",
    "day": "day", "days": "day", "daily": "day",
    "week": "week", "weeks": "week", "weekly": "week", "hebdomad": "week",
    "weekend": "weekend", "weekends": "weekend",
    "fortnight": "fortnight", "fortnights": "fortnight", "fortnightly": "fortnight",
    "month": "month", "months": "month", "monthly": "month",
    "year": "year", "years": "year", "yearly": "year", "annual": "year", "annually": "year",
    "yr": "year", "yrs": "year", "twelvemonth": "year",
    "decade": "decade", "decades": "decade",
    "hour": "hour", "hours": "hour", "hourly": "hour", "hr": "hour", "hrs": "hour",
    "minute": "minute", "minutes": "minute", "mins": "minute", "seconds": "second", "secs": "second",
    "morning": "morning", "mornings": "morning", "afternoon": "afternoon", "afternoons": "afternoon",
    "evening": "evening", "evenings": "evening", "night": "night", "nights": "night", "nightly": "night",
    "goodnight": "night",
}
#: Words that make a unit point at a particular one ("this week", "next month", "last year",
#: "the last 4 weeks"); synonyms share a form ("past year" is "last year", "coming week" is
#: "next week").
_TIME_MODIFIERS = {
    "this": "this", "current": "this", "next": "next", "coming": "next", "following": "next",
    "last": "last", "past": "last", "previous": "last", "preceding": "last",
}
#: Vague amounts: with a unit they are an amount ("a few days ago", "the last few weeks"),
#: one amount however said ("a couple of weeks ago" -> "a few weeks ago" keeps it).
_VAGUE_AMOUNTS = {"few": "few", "several": "few", "couple": "few"}
#: "two in the morning" = "2am", "six in the evening" = "6pm".
_PARTS_OF_THE_DAY = {"morning": "a", "afternoon": "p", "evening": "p"}
#: Parts of a day a named day may take ("tomorrow morning", "yesterday evening").
_PARTS_OF_DAY = frozenset({"morning", "afternoon", "evening", "night"})
#: Deictic words: they name a day themselves and take no modifier.
_DEICTIC = frozenset({"today", "tonight", "tomorrow", "yesterday"})
#: Times said two ways, by canonical form.
_SAME_TIMES = {"this night": "this evening"}
#: Which way in time a duration points, by canonical form: "in 3 days" = "3 days from now"
#: (the future, from now); "3 days ago"; "within 3 days"; "an hour later", "later today";
#: "2 days earlier". "from now" counts only after a duration ("from now on" is "henceforth"),
#: "in" only before a number and a unit ("in a day" is often "per day"), "later" and
#: "earlier" only next to a time ("see you later" names none).
FROM_NOW, AGO, WITHIN, LATER, EARLIER = "from now", "ago", "within", "later", "earlier"
#: "in 6 months" says "6 months from now" ("the date in 5 days") or "within 6 months" ("learn
#: English in 6 months"), or "the next 6 months": it equals each (see :func:`same_direction`).
IN = "in"
_DIRECTION_WORDS = {"later": LATER, "afterward": LATER, "afterwards": LATER, "earlier": EARLIER}
#: "the day before yesterday" is 2 days ago, "the day after tomorrow" 2 days from now.
_DAY_BEFORE = {"before": ("yesterday", AGO), "after": ("tomorrow", FROM_NOW)}
#: How many words before "from now" its duration may start ("21 weeks and a half from now").
_DURATION_REACH = 4

_TOKEN = re.compile(
    r"(?P<ampm>(?<![\d.:])(?:\d{1,2}(?::\d{2})?\s*|[01]?\d[0-5]\d)[ap]\.?m\b\.?)"
    r"|(?P<clock>(?<![\d.:])\d{1,2}:\d{2}(?![\d:]))"
    r"|(?P<date>(?<![\d/])\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})(?![\d/])|(?<![\d-])\d{4}-\d{1,2}-\d{1,2}(?![\d-]))"
    r"|(?P<fraction>(?<![\d/.,])\d{1,2}/\d{1,2}(?![\d/])|[\u00bc-\u00be\u2150-\u215e])"
    r"|(?P<number>\d+(?:[.,]\d+)*(?:(?:st|nd|rd|th|k)(?![a-z]))?)"
    r"|(?P<word>[a-z]+(?:['-][a-z]+)*)"
    r"|(?P<symbol>[$\u20ac\u00a3\u00a5\u20b9\u20bd%])"
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
#: Hyphenated words split into their parts when every part is one of these ("twenty-five",
#: "two-thirds", "half-hour").
_SPLIT_PARTS = frozenset(NUMBER_WORDS) | frozenset(_DENOMINATORS) | frozenset(TIME_WORDS)


class Expression(NamedTuple):
    """A number, date or time of a text: its canonical ``key``, the text as ``written``, for
    an article or the number 1 the word it ``counts`` ("pound" in "one pound"), the ``unit``
    it names ("day" in "2 days ago", "week" in "this week", "euro" in "€1"), the ``direction`` an
    amount of time points ("ago", "in", "last", ...), and the key it has when its article or
    currency is left out (``implicit``: "week ago" for "a week ago", "1000" for "1000 rupees")."""

    key: str
    written: str
    counts: str = ""
    unit: str = ""
    direction: str = ""
    implicit: str = ""


def read_expressions(text: str, *, words_as_numbers: bool = True, time_words: Collection[str] = frozenset(TIME_WORDS)) -> list[Expression]:
    """The number, date and time expressions of ``text``, in order (articles included: see
    :data:`ARTICLE`). An amount and the unit it counts are one expression, with the way a
    duration points (see :mod:`augkit.filters.amount_binding`).

    >>> [(e.key, e.written) for e in read_expressions("€1 fee 2 days ago, due the 8th of june")]
    [('1 euro', '€1'), ('2 day ago', '2 days ago'), ('june 8', '8th of june')]
    """
    return _Reader(_tokens(text.lower().translate(_APOSTROPHES)), words_as_numbers, frozenset(time_words)).read()


class _Reader:
    """One pass over a text's tokens, left to right, each reading step consuming the tokens
    of the piece it recognises; then the pieces that make one expression are bound."""

    def __init__(self, tokens: list[tuple[str, str]], words_as_numbers: bool, time_words: frozenset[str]):
        self.tokens = tokens
        self.words_as_numbers = words_as_numbers
        self.time_words = time_words
        self.found: list[Piece] = []
        #: Where the last "in <duration>" ended: a "from now" right after it is the same direction.
        self.future_until: int | None = None

    def read(self) -> list[Expression]:
        index = 0
        while index < len(self.tokens):
            kind, written = self.tokens[index]
            if kind == "ampm":
                index = self.add(_ampm_time(written), index, index + 1)
            elif kind == "clock":
                hours, minutes = written.split(":")
                index = self.add(f"{int(hours)}:{minutes}", index, index + 1)
            elif kind == "date":
                index = self.add("/".join(str(int(part)) for part in re.split(r"[/-]", written)), index, index + 1)
            elif kind == "symbol":
                index = self.add(SYMBOLS[written], index, index + 1, role=SYMBOL)
            elif kind == "fraction":
                index = self.digit_fraction(index)
            elif kind == "number":
                index = self.digits(index)
            else:
                index = self.word(index)
        bound = bind(self.found, self.tokens, self.words_as_numbers)
        return [Expression(piece.key, piece.written, piece.counts, piece.unit, piece.direction, piece.implicit) for piece in bound]

    # helpers --------------------------------------------------------------------------------

    def add(self, key: str, start: int, end: int, counts: str = "", role: str = OTHER, unit: str = "", direction: str = "") -> int:
        """Record the piece of tokens ``start:end`` under ``key``; return ``end``."""
        self.found.append(Piece(key, " ".join(text for _, text in self.tokens[start:end]), start, end, role, unit, direction, counts))
        return end

    def text(self, index: int) -> str:
        return self.tokens[index][1] if 0 <= index < len(self.tokens) else ""

    def is_word(self, index: int) -> bool:
        return 0 <= index < len(self.tokens) and self.tokens[index][0] == "word"

    def is_unit(self, index: int) -> bool:
        """A time unit word such as "days" or "hour" (not a named day such as "today")."""
        word = self.text(index)
        return self.is_word(index) and word in self.time_words and word not in _DEICTIC

    def duration_ends_at(self, index: int) -> bool:
        """Whether a time unit ends just before ``index`` ("2 days|", "an hour and a half|")."""
        if self.is_unit(index - 1):
            return True
        last = self.found[-1] if self.found else None
        return bool(last and last.end == index and any(self.is_unit(i) for i in range(last.start, index)))

    def is_counted_time(self, index: int) -> bool:
        """A time unit that takes an amount ("days"; not "daily")."""
        return self.is_unit(index) and self.text(index) not in TIME_WORDS_NOT_COUNTED

    def counted_unit(self, index: int) -> str | None:
        """The currency or unit of measure at ``index`` that an amount before it would count:
        "dollars", "oz", "times" (but "5 times 3" is a product)."""
        name = counted_unit(self.text(index)) if self.is_word(index) else None
        if name == TIMES["times"] and (self.tokens[index + 1][0] == "number" if index + 1 < len(self.tokens) else False):
            return None
        if name == TIMES["times"] and self.text(index + 1) in NUMBER_WORDS:
            return None
        return name

    def counts_a_unit(self, index: int) -> bool:
        """Whether a unit an amount counts starts at ``index`` (or after a word such as "more")."""
        if self.is_counted_time(index) or self.counted_unit(index):
            return True
        return self.text(index) in TIME_GAP_WORDS and self.is_counted_time(index + 1)

    def number_key(self, value: Fraction, written_in_words: str | None) -> str:
        """The key of an amount: its value, or (``words_as_numbers=False``) the words as written."""
        if written_in_words is not None and not self.words_as_numbers:
            return written_in_words
        return format_amount(value)

    def denominator(self, index: int, after: str) -> int | None:
        """The denominator named at ``index`` when it follows ``after`` ("article", "number"
        or "nothing"), or None."""
        word = self.text(index)
        if not self.is_word(index) or word not in _DENOMINATORS:
            return None
        if after == "nothing":
            return _DENOMINATORS[word] if word in _FRACTIONS_ALONE else None
        if after == "article" and word not in _FRACTIONS_ALONE:
            return _DENOMINATORS[word] if self.text(index + 1) == "of" and not word.endswith("s") else None
        return _DENOMINATORS[word]

    def hour_of_the_day(self, hour: int, start: int, end: int) -> int:
        """"two in the morning" = "2am", "6 in the evening" = "6pm": the clock time read from
        ``start`` (the hour ends at ``end``), or 0 when no part of the day follows."""
        part = self.text(end + 2) if (self.text(end), self.text(end + 1)) == ("in", "the") else ""
        if not 1 <= hour <= 12 or part not in _PARTS_OF_THE_DAY:
            return 0
        return self.add(_ampm_time(f"{hour}{_PARTS_OF_THE_DAY[part]}m"), start, end + 3)

    # digits ---------------------------------------------------------------------------------

    def digits(self, index: int) -> int:
        written = self.tokens[index][1]
        key = canonical_digits(written)
        denominator = self.denominator(index + 1, "number")
        if denominator and key.isdigit() and 1 <= int(key) <= _LARGEST_NUMERATOR:  # "3 quarters"
            value = Fraction(int(key), denominator)
            return self.add(self.number_key(value, None), index, index + 2, role=_amount_role(value))
        if key.isdigit() and not written[-1].isalpha():
            clock = self.hour_of_the_day(int(key), index, index + 1)
            if clock:
                return clock
        counts = self.text(index + 1) if key == "1" and self.is_word(index + 1) else ""
        ordinal = written[-1:].isalpha() and not written.endswith("k")  # "8th", not "15k"
        return self.add(key, index, index + 1, counts, ORDINAL if ordinal else AMOUNT)

    def digit_fraction(self, index: int) -> int:
        written = self.tokens[index][1]
        if "/" not in written:
            value = Fraction(unicodedata.numeric(written)).limit_denominator(_LARGEST_NUMERATOR)
        else:
            numerator, denominator = (int(part) for part in written.split("/"))
            if not (denominator in _DIGIT_DENOMINATORS and 0 < numerator < denominator):  # "2/20": a date, two numbers
                for part in (numerator, denominator):
                    self.found.append(Piece(str(part), str(part), index, index + 1))
                return index + 1
            value = Fraction(numerator, denominator)
        if self.found and self.found[-1].end == index and self.tokens[index - 1][0] == "number":  # "2 1/2", "2½"
            return self.merge_fraction(len(self.found) - 1, value, index + 1)
        return self.add(format_amount(value), index, index + 1, role=_amount_role(value))

    def merge_fraction(self, position: int, fraction: Fraction, end: int) -> int:
        """Add ``fraction`` to the amount at ``found[position]`` (a number, or an article: "an
        hour and a half" is 1.5 hours), which then spans up to ``end``."""
        piece = self.found[position]
        whole = Fraction(1) if piece.key.startswith(ARTICLE) else Fraction(piece.key)
        written = " ".join(text for _, text in self.tokens[piece.start:end])
        in_words = written if any(kind == "word" for kind, _ in self.tokens[piece.start:end]) else None
        value = whole + fraction
        self.found[position] = Piece(self.number_key(value, in_words), written, piece.start, end, _amount_role(value))
        return end

    # words ----------------------------------------------------------------------------------

    def word(self, index: int) -> int:
        """Read the piece (if any) that starts with the word at ``index``; return the index
        after it."""
        for step in (self.clock_phrase, self.fraction, self.and_fraction, self.vague_amount, self.number_words,
                     self.direction, self.every):
            end = step(index)
            if end:
                return end
        self.modifier_over_amount(index)
        return self.other_word(index)

    def clock_phrase(self, index: int) -> int:
        """"(a) quarter past six" = "6:15", "half past six" = "6:30", "quarter to six" = "5:45"."""
        start = index
        if self.text(index) in ARTICLES:
            index += 1
        part, relation = self.text(index), self.text(index + 1)
        direction = "after" if relation in _CLOCK_AFTER else "before" if relation in _CLOCK_BEFORE else ""
        minutes = _CLOCK_MINUTES.get((part, direction))
        hour = _hour(self.tokens[index + 2]) if minutes is not None and index + 2 < len(self.tokens) else None
        if hour is None:
            return 0
        if minutes < 0:
            hour, minutes = (hour - 2) % 12 + 1, 60 + minutes
        return self.add(f"{hour}:{minutes:02d}", start, index + 3)

    def fraction(self, index: int) -> int:
        """"a half", "a third of", "one third", "two thirds", "three quarters", "half", "quarter"."""
        word = self.text(index)
        if word in ARTICLES:
            denominator = self.denominator(index + 1, "article")
            if not denominator:
                return 0
            value = Fraction(1, denominator)
            return self.add(self.number_key(value, f"{word} {self.text(index + 1)}"), index, index + 2, role=FRACTION)
        if word in _UNITS and 1 <= _UNITS[word] <= _LARGEST_NUMERATOR:
            denominator = self.denominator(index + 1, "number")
            if not denominator:
                return 0
            value = Fraction(_UNITS[word], denominator)
            return self.add(self.number_key(value, f"{word} {self.text(index + 1)}"), index, index + 2, role=_amount_role(value))
        denominator = self.denominator(index, "nothing")
        return self.add(self.number_key(Fraction(1, denominator), word), index, index + 1, role=FRACTION) if denominator else 0

    def and_fraction(self, index: int) -> int:
        """"two and a half", "21 weeks and a half", "an hour and a half": the fraction joins the
        amount said just before (at most one word between)."""
        if self.text(index) != "and" or not self.found:
            return 0
        fraction_at = index + 2 if self.text(index + 1) in ARTICLES else index + 1
        word = self.text(fraction_at)
        if not self.is_word(fraction_at) or word not in _DENOMINATORS or word.endswith("s"):
            return 0
        # "2 and half cups", "21 weeks and a half"; but "2 cards and half of them" is two amounts
        gap = 1 if fraction_at == index + 2 else 0
        for position in range(len(self.found) - 1, max(len(self.found) - 3, -1), -1):
            key = self.found[position].key
            amount = key.startswith(ARTICLE) or is_amount(key)
            if amount and index - self.found[position].end <= gap:
                return self.merge_fraction(position, Fraction(1, _DENOMINATORS[word]), fraction_at + 1)
        return 0

    def vague_amount(self, index: int) -> int:
        """"a few", "several", "a couple (of)" before the unit they count ("a few days ago",
        "several times"); alone they are no amount ("a few of them")."""
        start = index
        if self.text(index) in ARTICLES and self.text(index + 1) in _VAGUE_AMOUNTS:
            index += 1
        word = self.text(index)
        if word not in _VAGUE_AMOUNTS:
            return 0
        end = index + (2 if self.text(index + 1) == "of" else 1)
        if not self.counts_a_unit(end):
            return 0
        return self.add(_VAGUE_AMOUNTS[word], start, end, role=VAGUE)

    def number_words(self, index: int) -> int:
        if self.text(index) in _TIMES:  # "twice" = "two times"
            value = _TIMES[self.text(index)]
            return self.add(f"{value} {TIMES['times']}" if self.words_as_numbers else self.text(index), index, index + 1)
        run = _number_word_run(self.tokens, index)
        if not run or (run == ["one"] and _one_is_pronoun(self.tokens, index) and not self.counts_a_unit(index + 1)):
            return 0
        if run == ["second"] and index and self.tokens[index - 1][0] == "number" and "seconds" in self.time_words:
            return self.add("second", index, index + 1, role=UNIT, unit="second")  # "a 30 second timer": the unit
        written = " ".join(run)
        value = _number_value(run)
        end = index + len(run)
        if self.text(end) in _HALVES_OF_THE_DAY and 1 <= value <= 12:  # "ten pm"
            return self.add(_ampm_time(f"{value}{self.text(end)}"), index, end + 1)
        clock = self.hour_of_the_day(value, index, end) if run[-1] not in _ORDINALS else 0
        if clock:
            return clock
        counts = self.text(end) if value == 1 and self.is_word(end) else ""
        role = ORDINAL if run[-1] in _ORDINALS else AMOUNT
        return self.add(str(value) if self.words_as_numbers else written, index, end, counts, role)

    def direction(self, index: int) -> int:
        """"ago" (or "back" after a unit), "from now" after a duration, "in"/"within" before
        one, "later"/"earlier" next to a time."""
        word = self.text(index)
        if not self.time_words:
            return 0  # no time words, no durations to point
        if word == "ago" or (word == "back" and self.duration_ends_at(index)):
            return self.add(AGO, index, index + 1, role=TRAIL, direction=AGO)
        if word == "from" and self.text(index + 1) in ("now", "today"):
            if any(self.is_unit(i) for i in range(index - _DURATION_REACH, index)):
                if self.future_until is not None and self.future_until >= index - _DURATION_REACH:
                    return index + 2  # "in 5 days from today": one direction said twice
                return self.add(FROM_NOW, index, index + 2, role=TRAIL, direction=FROM_NOW)
            return 0
        if word in ("in", "within"):
            unit = self.duration_end(index + 1, allow_article=word == "within")
            if unit is None:
                return 0
            if word == "in":
                self.future_until = unit
            key = IN if word == "in" else WITHIN
            return self.add(key, index, index + 1, role=LEAD, direction=key)
        if word in _DIRECTION_WORDS:
            neighbour = self.text(index + 1)
            key = _DIRECTION_WORDS[word]
            if self.duration_ends_at(index):
                return self.add(key, index, index + 1, role=TRAIL, direction=key)
            if neighbour in _DEICTIC or neighbour in _TIME_MODIFIERS:
                return self.add(key, index, index + 1, direction=key)
        return 0

    def every(self, index: int) -> int:
        """"every 2 weeks", "every few days", "every other day" (every 2 days): how often, as
        one expression with its amount ("every day" is the unit alone, as "daily")."""
        if self.text(index) != "every" or not self.time_words:
            return 0
        if self.text(index + 1) == "other" and self.is_counted_time(index + 2):
            self.add("every", index, index + 1, role=LEAD, direction="every")
            return self.add("2" if self.words_as_numbers else "other", index + 1, index + 2, role=AMOUNT)
        if self.duration_end(index + 1, allow_article=True) is None:
            return 0
        return self.add("every", index, index + 1, role=LEAD, direction="every")

    def duration_end(self, index: int, allow_article: bool) -> int | None:
        """Where the time unit of a duration starting at ``index`` is ("3 days", "two and a
        half hours", "24 hours", "a few days"; with ``allow_article`` also "a day"), or None."""
        kind, word = self.tokens[index] if index < len(self.tokens) else ("", "")
        cardinal = (kind == "number" and not word[-1:].isalpha()) or kind == "fraction" or (word in NUMBER_WORDS and word not in _ORDINALS)
        vague = word in _VAGUE_AMOUNTS or (word in ARTICLES and self.text(index + 1) in _VAGUE_AMOUNTS)
        if not (cardinal or vague or word in _FRACTIONS_ALONE or (allow_article and word in ARTICLES)):
            return None  # "in first year" names no duration
        for ahead in range(index, min(index + 5, len(self.tokens))):
            if self.is_unit(ahead):
                return ahead
            kind, word = self.tokens[ahead]
            if not (kind in ("number", "fraction") or word in NUMBER_WORDS or word in _DENOMINATORS
                    or word in ARTICLES or word in _VAGUE_AMOUNTS or word in ("and", "of") or word in TIME_GAP_WORDS):
                return None
        return None

    def modifier_over_amount(self, index: int) -> None:
        """"the last 4 weeks", "the next two hours", "the past few days": the modifier points
        the amount of time after it (read on its own, then bound to it)."""
        word = self.text(index)
        if word not in _TIME_MODIFIERS or not self.is_word(index):
            return
        amount = self.tokens[index + 1] if index + 1 < len(self.tokens) else ("", "")
        if not (amount[0] == "number" or amount[1] in NUMBER_WORDS or amount[1] in _VAGUE_AMOUNTS):
            return
        unit = index + 3 if self.text(index + 2) == "of" else index + 2
        if self.is_unit(unit):
            self.add(_TIME_MODIFIERS[word], index, index + 1, role=LEAD, direction=_TIME_MODIFIERS[word])

    def other_word(self, index: int) -> int:
        """Articles, months, weekdays (with this/next/last), clock
        words, currencies and units of measure, and time words (with this/next/last)."""
        word = self.text(index)
        previous = self.text(index - 1)
        modified = previous in _TIME_MODIFIERS and self.is_word(index - 1)
        if word in ARTICLES:
            counted = self.text(index + 1)
            self.add(f"{ARTICLE} {counted}", index, index + 1, counted, role=SINGLE)
        elif word in _MONTHS:
            self.add(_MONTHS[word], index, index + 1, role=MONTH)
        elif word in _AMBIGUOUS_MONTHS and _next_to_number(self.tokens, index):
            self.add(_AMBIGUOUS_MONTHS[word], index, index + 1, role=MONTH)
        elif word in _WEEKDAYS:
            if modified:  # "last saturday", "next friday"
                self.add(f"{_TIME_MODIFIERS[previous]} {word}", index - 1, index + 1)
            else:
                self.add(word, index, index + 1)
        elif word in _CLOCK_WORDS:
            self.add(_CLOCK_WORDS[word], index, index + 1)
        elif word in self.time_words:
            return self.time_word(index)
        elif self.counted_unit(index):
            self.add(self.counted_unit(index), index, index + 1, role=COUNTED)
        return index + 1

    def time_word(self, index: int) -> int:
        """A time word: "the day before yesterday" (2 days ago), "tomorrow morning", "this
        week", or a unit ("days") an amount before it may count."""
        word, following = self.text(index), self.text(index + 1)
        previous = self.text(index - 1)
        unit = TIME_WORDS.get(word, word)
        if word == "day" and following in _DAY_BEFORE and self.text(index + 2) == _DAY_BEFORE[following][0]:
            direction = _DAY_BEFORE[following][1]
            key = f"{self.number_key(Fraction(2), 'two')} day {direction}"
            return self.add(key, index, index + 3, unit="day", direction=direction)
        if word in _DEICTIC and following in _PARTS_OF_DAY and following in self.time_words:  # "tomorrow morning"
            part = TIME_WORDS.get(following, following)
            return self.add(f"{TIME_WORDS[word]} {part}", index, index + 2, unit=part)
        if word not in _DEICTIC and previous in _TIME_MODIFIERS and self.is_word(index - 1):
            modified = f"{_TIME_MODIFIERS[previous]} {unit}"
            self.add(_SAME_TIMES.get(modified, modified), index - 1, index + 1, unit=unit.split()[-1])
        else:
            role = UNIT if word not in TIME_WORDS_NOT_COUNTED and word not in _DEICTIC else OTHER
            self.add(unit, index, index + 1, role=role, unit=unit.split()[-1])
        return index + 1


def names_a_number(expression: Expression) -> bool:
    """Whether ``expression`` says an amount, a date or a time: not an article or a currency
    alone (read only to tell what a rewrite did with them)."""
    return not expression.key.startswith((ARTICLE, CURRENCY))


def same_direction(first: str, second: str) -> bool:
    """Whether two direction keys may say the same: "in 6 months" and "within 6 months",
    "6 months from now" or "the next 6 months"."""
    pair = {first, second}
    if IN not in pair or len(pair) != 2:
        return False
    other = (pair - {IN}).pop()
    return other in (FROM_NOW, WITHIN, "next")


def _amount_role(value: Fraction) -> str:
    """An amount below one is a fraction ("half an hour", "three quarters of a cup")."""
    return FRACTION if value < 1 else AMOUNT


def _hour(token: tuple[str, str]) -> int | None:
    """The hour 1-12 a token names ("six", "6"), or None."""
    kind, word = token
    value = int(word) if kind == "number" and word.isdigit() else _UNITS.get(word) if kind == "word" else None
    return value if value is not None and 1 <= value <= 12 else None


def _one_is_pronoun(tokens: list[tuple[str, str]], index: int) -> bool:
    """"the one", "which one", "the stolen one", "a new one": "one" standing for a noun."""
    before = [word for _, word in tokens[max(index - 2, 0) : index]]
    after = tokens[index + 1][1] if index + 1 < len(tokens) else ""
    if (before and before[-1] in _ONE_AS_PRONOUN_AFTER) or (before and before[-1] in _MODALS) or after in _MODALS:
        return True
    return len(before) == 2 and before[0] in _ONE_DETERMINERS and before[1] not in NUMBER_WORDS


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) of each number, time and word; hyphenated number and time words are split
    ("twenty-five" -> "twenty", "five"), a possessive "'s" is dropped ("today's")."""
    tokens = []
    for match in _TOKEN.finditer(text):
        kind, written = match.lastgroup, match.group()
        if written.removesuffix("'s") not in NUMBER_WORDS:  # "one's palms" holds no number
            written = written.removesuffix("'s")
        parts = written.split("-")
        if kind == "word" and len(parts) > 1 and all(part in _SPLIT_PARTS for part in parts):
            tokens += [("word", part) for part in parts]
        else:
            tokens.append((kind, written))
    return tokens


def _number_word_run(tokens: list[tuple[str, str]], start: int) -> list[str]:
    """The number words from ``start`` that make one number; [] if none does."""
    run: list[str] = []
    previous_class = None
    for index in range(start, len(tokens)):  # not tokens[start:]: no copy of the rest for every word
        kind, word = tokens[index]
        word_class = _word_class(word) if kind == "word" else None
        if word_class is None or word_class not in _FOLLOWS[previous_class]:
            break
        run.append(word)
        previous_class = word_class
        if word_class == "O":
            break
    while run and run[-1] == "and":
        run.pop()
    return run


def _word_class(word: str) -> str | None:
    if word in _UNITS:
        return "U"
    if word in _TENS:
        return "T"
    if word in _SCALES:
        return "S"
    if word in _ORDINALS:
        return "O"
    return "A" if word == "and" else None


def _number_value(run: list[str]) -> int:
    """The value of a run of number words ("two hundred and five": 205; "twenty first": 21)."""
    total, current = 0, 0
    for word in run:
        if word == "and":
            continue
        if word in _SCALES or (word in _ORDINALS and _ORDINALS[word] >= 100):
            scale = _SCALES.get(word) or _ORDINALS[word]
            current = max(current, 1) * scale
            if scale >= 1_000:
                total, current = total + current, 0
        else:
            current += _UNITS.get(word) or _TENS.get(word) or _ORDINALS.get(word, 0)
    return total + current


def canonical_digits(written: str) -> str:
    """"1,000" -> "1000", "20.00" -> "20", "05" -> "5", "3rd" -> "3", "15k" -> "15000"."""
    if written.endswith("k"):
        return format_amount(Fraction(canonical_digits(written[:-1])) * 1000)
    digits = written.rstrip("stndrh")
    if _THOUSANDS.fullmatch(digits):
        digits = digits.replace(",", "")
    if digits.count(".") == 1 and "," not in digits:
        whole, fraction = digits.split(".")
        fraction = fraction.rstrip("0")
        digits = str(int(whole)) + (f".{fraction}" if fraction else "")
    elif digits.isdigit():
        digits = str(int(digits))
    return digits


def _ampm_time(written: str) -> str:
    """"3pm", "3 p.m.", "3:30 PM", "235pm" as a 24-hour "15:00" ("14:35")."""
    match = re.match(r"(\d+)(?::(\d{2}))?\s*([ap])", written)
    digits, minutes, half = match.group(1), match.group(2), match.group(3)
    if minutes is None and len(digits) >= 3:  # "235pm", "1030am"
        digits, minutes = digits[:-2], digits[-2:]
    hours = int(digits) % 12 + (12 if half == "p" else 0)
    return f"{hours}:{minutes or '00'}"


def _next_to_number(tokens: list[tuple[str, str]], index: int) -> bool:
    """A number (digits or a number word) just before or after ``index``, or with "of" or
    "the" between ("5th of May", "May the 5th")."""
    neighbours = [index - 1, index + 1]
    if index >= 2 and tokens[index - 1][1] == "of":
        neighbours.append(index - 2)
    if index + 2 < len(tokens) and tokens[index + 1][1] == "the":
        neighbours.append(index + 2)
    for neighbour in neighbours:
        if 0 <= neighbour < len(tokens):
            kind, word = tokens[neighbour]
            if kind == "number" or word in NUMBER_WORDS:
                return True
    return False
