"""Reading number words and digits ("twenty one" is 21, "3pm" is 15:00), and the small judgements
the reader of :mod:`augkit.filters.number_expressions` makes about a token next to a number."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import NamedTuple

from augkit.filters.amount_binding import (
    AMOUNT,
    CURRENCY,
    FRACTION,
)
from augkit.filters.counted_units import (
    format_amount,
)
from augkit.filters.number_vocabulary import (
    ARTICLE,
    FOLLOWS,
    FROM_NOW,
    IN,
    MODALS,
    NUMBER_WORDS,
    ONE_AS_PRONOUN_AFTER,
    ONE_DETERMINERS,
    ORDINALS,
    SCALES,
    SPLIT_PARTS,
    TENS,
    THOUSANDS,
    TOKEN,
    UNITS,
    WITHIN,
)


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


def amount_role(value: Fraction) -> str:
    """An amount below one is a fraction ("half an hour", "three quarters of a cup")."""
    return FRACTION if value < 1 else AMOUNT


def hour_value(token: tuple[str, str]) -> int | None:
    """The hour 1-12 a token names ("six", "6"), or None."""
    kind, word = token
    value = int(word) if kind == "number" and word.isdigit() else UNITS.get(word) if kind == "word" else None
    return value if value is not None and 1 <= value <= 12 else None


def one_is_pronoun(tokens: list[tuple[str, str]], index: int) -> bool:
    """"the one", "which one", "the stolen one", "a new one": "one" standing for a noun."""
    before = [word for _, word in tokens[max(index - 2, 0) : index]]
    after = tokens[index + 1][1] if index + 1 < len(tokens) else ""
    if (before and before[-1] in ONE_AS_PRONOUN_AFTER) or (before and before[-1] in MODALS) or after in MODALS:
        return True
    return len(before) == 2 and before[0] in ONE_DETERMINERS and before[1] not in NUMBER_WORDS


def number_tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) of each number, time and word; hyphenated number and time words are split
    ("twenty-five" -> "twenty", "five"), a possessive "'s" is dropped ("today's")."""
    tokens = []
    for match in TOKEN.finditer(text):
        kind, written = match.lastgroup, match.group()
        if written.removesuffix("'s") not in NUMBER_WORDS:  # "one's palms" holds no number
            written = written.removesuffix("'s")
        parts = written.split("-")
        if kind == "word" and len(parts) > 1 and all(part in SPLIT_PARTS for part in parts):
            tokens += [("word", part) for part in parts]
        else:
            tokens.append((kind, written))
    return tokens


def number_word_run(tokens: list[tuple[str, str]], start: int) -> list[str]:
    """The number words from ``start`` that make one number; [] if none does."""
    run: list[str] = []
    previous_class = None
    for index in range(start, len(tokens)):  # not tokens[start:]: no copy of the rest for every word
        kind, word = tokens[index]
        word_class = word_class_of(word) if kind == "word" else None
        if word_class is None or word_class not in FOLLOWS[previous_class]:
            break
        run.append(word)
        previous_class = word_class
        if word_class == "O":
            break
    while run and run[-1] == "and":
        run.pop()
    return run


def word_class_of(word: str) -> str | None:
    if word in UNITS:
        return "U"
    if word in TENS:
        return "T"
    if word in SCALES:
        return "S"
    if word in ORDINALS:
        return "O"
    return "A" if word == "and" else None


def number_value(run: list[str]) -> int:
    """The value of a run of number words ("two hundred and five": 205; "twenty first": 21)."""
    total, current = 0, 0
    for word in run:
        if word == "and":
            continue
        if word in SCALES or (word in ORDINALS and ORDINALS[word] >= 100):
            scale = SCALES.get(word) or ORDINALS[word]
            current = max(current, 1) * scale
            if scale >= 1_000:
                total, current = total + current, 0
        else:
            current += UNITS.get(word) or TENS.get(word) or ORDINALS.get(word, 0)
    return total + current


def canonical_digits(written: str) -> str:
    """"1,000" -> "1000", "20.00" -> "20", "05" -> "5", "3rd" -> "3", "15k" -> "15000"."""
    if written.endswith("k"):
        return format_amount(Fraction(canonical_digits(written[:-1])) * 1000)
    digits = written.rstrip("stndrh")
    if THOUSANDS.fullmatch(digits):
        digits = digits.replace(",", "")
    if digits.count(".") == 1 and "," not in digits:
        whole, fraction = digits.split(".")
        fraction = fraction.rstrip("0")
        digits = str(int(whole)) + (f".{fraction}" if fraction else "")
    elif digits.isdigit():
        digits = str(int(digits))
    return digits


def ampm_time(written: str) -> str:
    """"3pm", "3 p.m.", "3:30 PM", "235pm" as a 24-hour "15:00" ("14:35")."""
    match = re.match(r"(\d+)(?::(\d{2}))?\s*([ap])", written)
    digits, minutes, half = match.group(1), match.group(2), match.group(3)
    if minutes is None and len(digits) >= 3:  # "235pm", "1030am"
        digits, minutes = digits[:-2], digits[-2:]
    hours = int(digits) % 12 + (12 if half == "p" else 0)
    return f"{hours}:{minutes or '00'}"


def next_to_number(tokens: list[tuple[str, str]], index: int) -> bool:
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
