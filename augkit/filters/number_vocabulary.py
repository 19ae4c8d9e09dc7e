"""The words and patterns the ``numbers`` filter reads numbers, fractions, times and directions by
(:mod:`augkit.filters.number_expressions`): each list with the reason for what it holds."""

from __future__ import annotations

import re

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}


TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}


SCALES = {"dozen": 12, "hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}


ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100,
    "thousandth": 1_000, "millionth": 1_000_000,
}


NUMBER_WORDS = {**UNITS, **TENS, **SCALES, **ORDINALS}


#: Which number word may follow which in one number ("twenty five", "two hundred and five",
#: "twenty-first"); any other pair starts a new number ("two three" is 2 and 3).
FOLLOWS = {None: "UTSO", "U": "S", "T": "USO", "S": "UTSOA", "A": "UTO"}


#: After a number of hours said in words: "ten pm" = "22:00".
HALVES_OF_THE_DAY = frozenset({"am", "pm"})


#: The words that name a fraction by its denominator. "half" and "quarter" are fractions
#: alone ("half of my funds"); the ordinals only after a numerator ("one third", "two
#: fifths") or as "a third of" ("a third card" is an ordinal); plurals only after a numerator
#: ("three quarters"; "living quarters" holds no number).
DENOMINATORS = {
    "half": 2, "halves": 2, "quarter": 4, "quarters": 4, "third": 3, "thirds": 3, "fourth": 4, "fourths": 4,
    "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8,
    "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10,
}


FRACTIONS_ALONE = frozenset({"half", "quarter"})


#: Largest numerator said in words before a denominator ("ten thirds" is rare already).
LARGEST_NUMERATOR = 10


#: "1/2", "2/3", "3/4": a fraction when the numerator is smaller and the denominator one of
#: these; otherwise two numbers ("2/20", "4/5": dates in CLINC150).
DIGIT_DENOMINATORS = frozenset({2, 3, 4})


#: "quarter past six", "half past six", "quarter to six": clock times in words.
CLOCK_AFTER = frozenset({"past", "after"})


CLOCK_BEFORE = frozenset({"to", "before", "till", "til"})


CLOCK_MINUTES = {("quarter", "after"): 15, ("half", "after"): 30, ("quarter", "before"): -15}


#: Multiplicative words: "twice" = "two times" (the "times" is not read).
CLOCK_TIMES = {"twice": 2, "thrice": 3}


#: "one" after these words is a pronoun ("the one I ordered", "which one"), not a number;
#: so is "one" two words after a determiner of :data:`ONE_DETERMINERS` ("the stolen one",
#: "a new one").
ONE_AS_PRONOUN_AFTER = frozenset({
    "the", "this", "that", "which", "no", "any", "every", "each", "another", "some", "last",
    "next", "new", "old", "other", "only", "same", "right", "wrong", "good", "bad", "little",
})


ONE_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "which", "another", "every", "each"})


#: "one" next to a modal is the generic pronoun ("where can one receive", "one should").
MODALS = frozenset({"can", "could", "should", "must", "may", "might", "would", "will", "shall", "do", "does", "did"})


#: "a" and "an": read with the word they count ("a pound"), because they may say "one" (see
#: :class:`augkit.filters.NumbersFilter`). Their key starts with :data:`ARTICLE`.
ARTICLES = frozenset({"a", "an"})


ARTICLE = "(article)"


#: Names of months. The ambiguous ones ("may", "march", "august", and the abbreviations)
#: count only next to a number ("May 5", "5th of may", "May the 5th", "aug 2020").
MONTHS = {
    "january": "january", "february": "february", "april": "april", "june": "june",
    "july": "july", "september": "september", "october": "october", "november": "november",
    "december": "december",
}


AMBIGUOUS_MONTHS = {
    "may": "may", "march": "march", "august": "august", "jan": "january", "feb": "february",
    "apr": "april", "jun": "june", "jul": "july", "aug": "august", "sep": "september",
    "sept": "september", "oct": "october", "nov": "november", "dec": "december",
}


WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})


#: Times of day said in words.
CLOCK_WORDS = {"noon": "12:00", "noonday": "12:00", "midday": "12:00", "midnight": "0:00"}


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
TIME_MODIFIERS = {
    "this": "this", "current": "this", "next": "next", "coming": "next", "following": "next",
    "last": "last", "past": "last", "previous": "last", "preceding": "last",
}


#: Vague amounts: with a unit they are an amount ("a few days ago", "the last few weeks"),
#: one amount however said ("a couple of weeks ago" -> "a few weeks ago" keeps it).
VAGUE_AMOUNTS = {"few": "few", "several": "few", "couple": "few"}


#: "two in the morning" = "2am", "six in the evening" = "6pm".
PARTS_OF_THE_DAY = {"morning": "a", "afternoon": "p", "evening": "p"}


#: Parts of a day a named day may take ("tomorrow morning", "yesterday evening").
PARTS_OF_DAY = frozenset({"morning", "afternoon", "evening", "night"})


#: Deictic words: they name a day themselves and take no modifier.
DEICTIC = frozenset({"today", "tonight", "tomorrow", "yesterday"})


#: Every word that names a date, a time, a unit of time or a vague amount: what a word-level
#: method must neither replace nor propose ("tomorrow" -> "today", "a week ago" -> "a month
#: ago" change a slot value). Exported as :data:`augkit.plugin.DATE_AND_TIME_WORDS`.
DATE_AND_TIME_WORDS = (frozenset(MONTHS) | WEEKDAYS | frozenset(CLOCK_WORDS) | frozenset(TIME_WORDS) | PARTS_OF_DAY
                       | DEICTIC | frozenset(VAGUE_AMOUNTS))


#: Times said two ways, by canonical form.
SAME_TIMES = {"this night": "this evening"}


#: Which way in time a duration points, by canonical form: "in 3 days" = "3 days from now"
#: (the future, from now); "3 days ago"; "within 3 days"; "an hour later", "later today";
#: "2 days earlier". "from now" counts only after a duration ("from now on" is "henceforth"),
#: "in" only before a number and a unit ("in a day" is often "per day"), "later" and
#: "earlier" only next to a time ("see you later" names none).
FROM_NOW, AGO, WITHIN, LATER, EARLIER = "from now", "ago", "within", "later", "earlier"


#: "in 6 months" says "6 months from now" ("the date in 5 days") or "within 6 months" ("learn
#: English in 6 months"), or "the next 6 months": it equals each (see :func:`same_direction`).
IN = "in"


DIRECTION_WORDS = {"later": LATER, "afterward": LATER, "afterwards": LATER, "earlier": EARLIER}


#: "the day before yesterday" is 2 days ago, "the day after tomorrow" 2 days from now.
DAY_BEFORE = {"before": ("yesterday", AGO), "after": ("tomorrow", FROM_NOW)}


#: How many words before "from now" its duration may start ("21 weeks and a half from now").
DURATION_REACH = 4


TOKEN = re.compile(
    r"(?P<ampm>(?<![\d.:])(?:\d{1,2}(?::\d{2})?\s*|[01]?\d[0-5]\d)[ap]\.?m\b\.?)"
    r"|(?P<clock>(?<![\d.:])\d{1,2}:\d{2}(?![\d:]))"
    r"|(?P<date>(?<![\d/])\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})(?![\d/])|(?<![\d-])\d{4}-\d{1,2}-\d{1,2}(?![\d-]))"
    r"|(?P<fraction>(?<![\d/.,])\d{1,2}/\d{1,2}(?![\d/])|[\u00bc-\u00be\u2150-\u215e])"
    r"|(?P<number>\d+(?:[.,]\d+)*(?:(?:st|nd|rd|th|k)(?![a-z]))?)"
    r"|(?P<word>[a-z]+(?:['-][a-z]+)*)"
    r"|(?P<symbol>[$\u20ac\u00a3\u00a5\u20b9\u20bd%])"
)


THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")


APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})


#: Hyphenated words split into their parts when every part is one of these ("twenty-five",
#: "two-thirds", "half-hour").
SPLIT_PARTS = frozenset(NUMBER_WORDS) | frozenset(DENOMINATORS) | frozenset(TIME_WORDS)
