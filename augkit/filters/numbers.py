"""Drop candidates that lose, add or change a number, a date or a time: "this week" -> "this month"."""

from __future__ import annotations

import re
from collections.abc import Collection

from augkit.filters.label_safety import LabelSafetyFilter, Mismatch, describe_difference, multiset_difference, word_set

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
_NUMBER_WORDS = {**_UNITS, **_TENS, **_SCALES, **_ORDINALS}
#: Which number word may follow which in one number ("twenty five", "two hundred and five",
#: "twenty-first"); any other pair starts a new number ("two three" is 2 and 3).
_FOLLOWS = {None: "UTSO", "U": "S", "T": "USO", "S": "UTSOA", "A": "UTO"}
#: "one" after these words is a pronoun ("the one I ordered", "which one"), not a number;
#: so is "one" two words after a determiner of :data:`_ONE_DETERMINERS` ("the stolen one",
#: "a new one").
_ONE_AS_PRONOUN_AFTER = frozenset({
    "the", "this", "that", "which", "no", "any", "every", "each", "another", "some", "last",
    "next", "new", "old", "other", "only", "same", "right", "wrong", "good", "bad", "little",
})
_ONE_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "which", "another", "every", "each"})
#: "one" next to a modal is the generic pronoun ("where can one receive", "one should").
_MODALS = frozenset({"can", "could", "should", "must", "may", "might", "would", "will", "shall", "does"})
#: "a" and "an" say "one" ("one pound" -> "a pound"): a lost "one" is forgiven when the
#: candidate has an extra article, and an added "one" when it has one article fewer.
_ARTICLES = frozenset({"a", "an"})
_ARTICLE = "(article)"
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
#: "good evening" -> "good night" turns CLINC150's greeting into its goodbye.
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
    "minute": "minute", "minutes": "minute", "mins": "minute",
    "morning": "morning", "mornings": "morning", "afternoon": "afternoon", "afternoons": "afternoon",
    "evening": "evening", "evenings": "evening", "night": "night", "nights": "night", "nightly": "night",
    "goodnight": "night",
}
#: Words that make a unit point at a particular one ("this week", "next month", "last year");
#: synonyms share a form ("past year" is "last year", "coming week" is "next week").
_TIME_MODIFIERS = {
    "this": "this", "current": "this", "next": "next", "coming": "next", "following": "next",
    "last": "last", "past": "last", "previous": "last", "preceding": "last",
}
#: Hours that make a day ("within 24 hours" = "within a day").
_HOURS_IN_A_DAY = "24"
#: The time units (a unit named again adds no new time).
_UNIT_NAMES = frozenset(TIME_WORDS.values())
#: Deictic words: they name a day themselves and take no modifier.
_DEICTIC = frozenset({"today", "tonight", "tomorrow", "yesterday"})
#: Times said two ways, by canonical form.
_SAME_TIMES = {"this night": "this evening"}

_TOKEN = re.compile(
    r"(?P<ampm>(?<![\d.:])\d{1,2}(?::\d{2})?\s*[ap]\.?m\b\.?)"
    r"|(?P<clock>(?<![\d.:])\d{1,2}:\d{2}(?![\d:]))"
    r"|(?P<number>\d+(?:[.,]\d+)*(?:(?:st|nd|rd|th)(?![a-z]))?)"
    r"|(?P<word>[a-z]+(?:['-][a-z]+)*)"
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})


class NumbersFilter(LabelSafetyFilter):
    """Drops a candidate that loses, adds or changes a number, a date or a time.

    What counts, case-insensitively: numbers in digits ("3", "1,000", "20.00" = "20",
    "05" = "5"; digits inside words too: "COVID-19" holds 19); ordinals, by their value
    ("3rd" = "third" = "3", so "March 13th" -> "March 13" is kept); number words ("two",
    "twenty-five", "two hundred and five", "a dozen"; "one" is also "a"/"an", and a
    pronoun in "the one", "which one", "a new one", "can one"); clock times ("10:30",
    "3pm" = "3 p.m." = "15:00", noon, midnight); months ("June"; "May", "March", "August"
    and abbreviations only next to a number) and weekdays; relative time words (today,
    tonight, tomorrow, yesterday) and time units (day, week, weekend, fortnight, month,
    year, decade, hour, minute, morning, afternoon, evening, night), plural or "-ly"
    ("days" = "day", "monthly" = "month", "24 hours" = "day") and joined with
    this/next/last ("this week", "next month"; "past year" = "last year", "coming week" =
    "next week"); a possessive "'s" is ignored ("today's date" -> "the date today");
    "tonight" = "this evening".

    Source and candidate must hold the same expressions, as many times each, in any order
    (except that naming again a unit the source names is not a change: "what day it is"
    -> "what solar day it is"):
    "two cards" -> "2 cards" (with ``words_as_numbers``), "3 days" -> "three days",
    "monthly fee" -> "fee every month" are kept; "this week" -> "this month", "3 days" ->
    "3 weeks", "at 3pm" -> "at 3", "2 cards" -> "cards" ... are dropped. Known false
    alarms: equal amounts said differently ("a week" -> "7 days", "24 hours" -> "a day"), a
    unit left implicit ("how many days" -> "how long"). Not caught: a date's parts reordered
    ("05/12" -> "12/05"), a currency changed ("$20" -> "20 euros").

    Adds the score ``number_changes``: expressions lost plus expressions added (0 for every
    kept candidate). ``explain(source, text)`` lists them.

    Parameters
    ----------
    words_as_numbers : bool
        Number words equal their digits ("two" = "2", "second" = "2nd" = "2", "one" =
        "a"); False: a number written differently counts as changed.
    time_words : list of str or str, optional
        Relative time words that count (a list, or comma-separated); None: the words above
        (``augkit.filters.numbers.TIME_WORDS``). An empty list: no time words.
    """

    name = "numbers"
    scores = ("number_changes",)

    def __init__(self, words_as_numbers: bool = True, time_words: Collection[str] | str | None = None):
        self._time_words = word_set(self.name, "time_words", time_words, TIME_WORDS)
        self.words_as_numbers = bool(words_as_numbers)
        self.time_words = time_words

    def clues(self, text: str) -> list[tuple[str, str]]:
        """The number, date and time expressions of ``text``: (canonical form, as written).

        >>> NumbersFilter().clues("Two cards, 3pm this week")
        [('2', 'two'), ('15:00', '3pm'), ('this week', 'this week')]
        """
        tokens = _tokens(text.lower().translate(_APOSTROPHES))
        found: list[tuple[str, str]] = []
        index = 0
        while index < len(tokens):
            kind, written = tokens[index]
            step = 1
            if kind == "ampm":
                found.append((_ampm_time(written), written))
            elif kind == "clock":
                hours, minutes = written.split(":")
                found.append((f"{int(hours)}:{minutes}", written))
            elif kind == "number":
                found.append((_canonical_digits(written), written))
            else:
                step = self._word_expression(tokens, index, found)
            index += step
        return found

    def _word_expression(self, tokens: list[tuple[str, str]], index: int, found: list[tuple[str, str]]) -> int:
        """Read the expression (if any) that starts with the word at ``index`` into ``found``;
        return how many tokens it used."""
        word = tokens[index][1]
        previous = tokens[index - 1][1] if index else ""
        if word in _NUMBER_WORDS:
            run = _number_word_run(tokens, index)
            if run and not (run == ["one"] and _one_is_pronoun(tokens, index)):
                written = " ".join(run)
                found.append((str(_number_value(run)) if self.words_as_numbers else written, written))
                return len(run)
        if word in _ARTICLES:
            found.append((_ARTICLE, word))
        elif word in _MONTHS:
            found.append((_MONTHS[word], word))
        elif word in _AMBIGUOUS_MONTHS and _next_to_number(tokens, index):
            found.append((_AMBIGUOUS_MONTHS[word], word))
        elif word in _WEEKDAYS:
            found.append((word, word))
        elif word in _CLOCK_WORDS:
            found.append((_CLOCK_WORDS[word], word))
        elif word in self._time_words:
            unit = TIME_WORDS.get(word, word)
            if unit == "hour" and found and found[-1][0] == _HOURS_IN_A_DAY and _next_to_number(tokens, index):
                found[-1] = ("day", f"{found[-1][1]} {word}")
            elif word not in _DEICTIC and previous in _TIME_MODIFIERS and tokens[index - 1][0] == "word":
                modified = f"{_TIME_MODIFIERS[previous]} {unit}"
                found.append((_SAME_TIMES.get(modified, modified), f"{previous} {word}"))
            else:
                found.append((unit, word))
        return 1

    def compare(self, source_clues: list[tuple[str, str]], candidate_clues: list[tuple[str, str]]) -> Mismatch:
        lost, added = multiset_difference(source_clues, candidate_clues)
        spare_articles = sum(key == _ARTICLE for key, _ in added) - sum(key == _ARTICLE for key, _ in lost)
        lost = _forgive_ones([e for e in lost if e[0] != _ARTICLE], spare_articles)
        added = _forgive_ones([e for e in added if e[0] != _ARTICLE], -spare_articles)
        # A unit the source already names adds no new time ("what day it is" -> "what solar
        # day ... day it is", "this month" -> "calendar month ... this month").
        units_named = {key.split()[-1] for key, _ in source_clues if key.split()[-1] in _UNIT_NAMES}
        added = [(key, written) for key, written in added if key not in units_named]
        return Mismatch(
            len(lost) + len(added),
            describe_difference("number or time", [w for _, w in lost], [w for _, w in added]),
        )


def _forgive_ones(expressions: list[tuple[str, str]], articles: int) -> list[tuple[str, str]]:
    """``expressions`` without up to ``articles`` of its ones (an article said them)."""
    kept = []
    for key, written in expressions:
        if key == "1" and articles > 0:
            articles -= 1
        else:
            kept.append((key, written))
    return kept


def _one_is_pronoun(tokens: list[tuple[str, str]], index: int) -> bool:
    """"the one", "which one", "the stolen one", "a new one": "one" standing for a noun."""
    before = [word for _, word in tokens[max(index - 2, 0) : index]]
    after = tokens[index + 1][1] if index + 1 < len(tokens) else ""
    if (before and before[-1] in _ONE_AS_PRONOUN_AFTER) or (before and before[-1] in _MODALS) or after in _MODALS:
        return True
    return len(before) == 2 and before[0] in _ONE_DETERMINERS and before[1] not in _NUMBER_WORDS


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) of each number, time and word; hyphenated number words are split
    ("twenty-five" -> "twenty", "five"), a possessive "'s" is dropped ("today's")."""
    tokens = []
    for match in _TOKEN.finditer(text):
        kind, written = match.lastgroup, match.group()
        if written.removesuffix("'s") not in _NUMBER_WORDS:  # "one's palms" holds no number
            written = written.removesuffix("'s")
        parts = written.split("-")
        if kind == "word" and len(parts) > 1 and all(part in _NUMBER_WORDS for part in parts):
            tokens += [("word", part) for part in parts]
        else:
            tokens.append((kind, written))
    return tokens


def _number_word_run(tokens: list[tuple[str, str]], start: int) -> list[str]:
    """The number words from ``start`` that make one number; [] if none does."""
    run: list[str] = []
    previous_class = None
    for kind, word in tokens[start:]:
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


def _canonical_digits(written: str) -> str:
    """"1,000" -> "1000", "20.00" -> "20", "05" -> "5", "3rd" -> "3"."""
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
    """"3pm", "3 p.m.", "3:30 PM" as a 24-hour "15:00"."""
    match = re.match(r"(\d{1,2})(?::(\d{2}))?\s*([ap])", written)
    hours, minutes, half = int(match.group(1)), match.group(2) or "00", match.group(3)
    hours = hours % 12 + (12 if half == "p" else 0)
    return f"{hours}:{minutes}"


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
            if kind == "number" or word in _NUMBER_WORDS:
                return True
    return False
