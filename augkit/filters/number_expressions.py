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

from augkit.filters.amount_binding import (
    AMOUNT,
    COUNTED,
    FRACTION,
    MONTH,
    ORDINAL,
    OTHER,
    SINGLE,
    SYMBOL,
    UNIT,
    VAGUE,
    Piece,
    bind,
)
from augkit.filters.counted_units import (
    SYMBOLS,
    TIME_GAP_WORDS,
    TIMES,
    counted_unit,
    format_amount,
    is_amount,
)
from augkit.filters.number_times import TimeReading
from augkit.filters.number_vocabulary import (
    AMBIGUOUS_MONTHS,
    APOSTROPHES,
    ARTICLE,
    ARTICLES,
    CLOCK_TIMES,
    CLOCK_WORDS,
    DEICTIC,
    DENOMINATORS,
    DIGIT_DENOMINATORS,
    FRACTIONS_ALONE,
    HALVES_OF_THE_DAY,
    LARGEST_NUMERATOR,
    MONTHS,
    NUMBER_WORDS,
    ORDINALS,
    TIME_MODIFIERS,
    TIME_WORDS,
    UNITS,
    VAGUE_AMOUNTS,
    WEEKDAYS,
)
from augkit.filters.number_words import (
    Expression,
    amount_role,
    ampm_time,
    canonical_digits,
    next_to_number,
    number_tokens,
    number_value,
    number_word_run,
    one_is_pronoun,
)


def read_expressions(text: str, *, words_as_numbers: bool = True, time_words: Collection[str] = frozenset(TIME_WORDS)) -> list[Expression]:
    """The number, date and time expressions of ``text``, in order (articles included: see
    :data:`ARTICLE`). An amount and the unit it counts are one expression, with the way a
    duration points (see :mod:`augkit.filters.amount_binding`).

    >>> [(e.key, e.written) for e in read_expressions("€1 fee 2 days ago, due the 8th of june")]
    [('1 euro', '€1'), ('2 day ago', '2 days ago'), ('june 8', '8th of june')]
    """
    return _Reader(number_tokens(text.lower().translate(APOSTROPHES)), words_as_numbers, frozenset(time_words)).read()


class _Reader(TimeReading):
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
                index = self.add(ampm_time(written), index, index + 1)
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
        return self.is_word(index) and word in self.time_words and word not in DEICTIC

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
        if not self.is_word(index) or word not in DENOMINATORS:
            return None
        if after == "nothing":
            return DENOMINATORS[word] if word in FRACTIONS_ALONE else None
        if after == "article" and word not in FRACTIONS_ALONE:
            return DENOMINATORS[word] if self.text(index + 1) == "of" and not word.endswith("s") else None
        return DENOMINATORS[word]


    # digits ---------------------------------------------------------------------------------

    def digits(self, index: int) -> int:
        written = self.tokens[index][1]
        key = canonical_digits(written)
        denominator = self.denominator(index + 1, "number")
        if denominator and key.isdigit() and 1 <= int(key) <= LARGEST_NUMERATOR:  # "3 quarters"
            value = Fraction(int(key), denominator)
            return self.add(self.number_key(value, None), index, index + 2, role=amount_role(value))
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
            value = Fraction(unicodedata.numeric(written)).limit_denominator(LARGEST_NUMERATOR)
        else:
            numerator, denominator = (int(part) for part in written.split("/"))
            if not (denominator in DIGIT_DENOMINATORS and 0 < numerator < denominator):  # "2/20": a date, two numbers
                for part in (numerator, denominator):
                    self.found.append(Piece(str(part), str(part), index, index + 1))
                return index + 1
            value = Fraction(numerator, denominator)
        if self.found and self.found[-1].end == index and self.tokens[index - 1][0] == "number":  # "2 1/2", "2½"
            return self.merge_fraction(len(self.found) - 1, value, index + 1)
        return self.add(format_amount(value), index, index + 1, role=amount_role(value))

    def merge_fraction(self, position: int, fraction: Fraction, end: int) -> int:
        """Add ``fraction`` to the amount at ``found[position]`` (a number, or an article: "an
        hour and a half" is 1.5 hours), which then spans up to ``end``."""
        piece = self.found[position]
        whole = Fraction(1) if piece.key.startswith(ARTICLE) else Fraction(piece.key)
        written = " ".join(text for _, text in self.tokens[piece.start:end])
        in_words = written if any(kind == "word" for kind, _ in self.tokens[piece.start:end]) else None
        value = whole + fraction
        self.found[position] = Piece(self.number_key(value, in_words), written, piece.start, end, amount_role(value))
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

    def fraction(self, index: int) -> int:
        """"a half", "a third of", "one third", "two thirds", "three quarters", "half", "quarter"."""
        word = self.text(index)
        if word in ARTICLES:
            denominator = self.denominator(index + 1, "article")
            if not denominator:
                return 0
            value = Fraction(1, denominator)
            return self.add(self.number_key(value, f"{word} {self.text(index + 1)}"), index, index + 2, role=FRACTION)
        if word in UNITS and 1 <= UNITS[word] <= LARGEST_NUMERATOR:
            denominator = self.denominator(index + 1, "number")
            if not denominator:
                return 0
            value = Fraction(UNITS[word], denominator)
            return self.add(self.number_key(value, f"{word} {self.text(index + 1)}"), index, index + 2, role=amount_role(value))
        denominator = self.denominator(index, "nothing")
        return self.add(self.number_key(Fraction(1, denominator), word), index, index + 1, role=FRACTION) if denominator else 0

    def and_fraction(self, index: int) -> int:
        """"two and a half", "21 weeks and a half", "an hour and a half": the fraction joins the
        amount said just before (at most one word between)."""
        if self.text(index) != "and" or not self.found:
            return 0
        fraction_at = index + 2 if self.text(index + 1) in ARTICLES else index + 1
        word = self.text(fraction_at)
        if not self.is_word(fraction_at) or word not in DENOMINATORS or word.endswith("s"):
            return 0
        # "2 and half cups", "21 weeks and a half"; but "2 cards and half of them" is two amounts
        gap = 1 if fraction_at == index + 2 else 0
        for position in range(len(self.found) - 1, max(len(self.found) - 3, -1), -1):
            key = self.found[position].key
            amount = key.startswith(ARTICLE) or is_amount(key)
            if amount and index - self.found[position].end <= gap:
                return self.merge_fraction(position, Fraction(1, DENOMINATORS[word]), fraction_at + 1)
        return 0

    def vague_amount(self, index: int) -> int:
        """"a few", "several", "a couple (of)" before the unit they count ("a few days ago",
        "several times"); alone they are no amount ("a few of them")."""
        start = index
        if self.text(index) in ARTICLES and self.text(index + 1) in VAGUE_AMOUNTS:
            index += 1
        word = self.text(index)
        if word not in VAGUE_AMOUNTS:
            return 0
        end = index + (2 if self.text(index + 1) == "of" else 1)
        if not self.counts_a_unit(end):
            return 0
        return self.add(VAGUE_AMOUNTS[word], start, end, role=VAGUE)

    def number_words(self, index: int) -> int:
        if self.text(index) in CLOCK_TIMES:  # "twice" = "two times"
            value = CLOCK_TIMES[self.text(index)]
            return self.add(f"{value} {TIMES['times']}" if self.words_as_numbers else self.text(index), index, index + 1)
        run = number_word_run(self.tokens, index)
        if not run or (run == ["one"] and one_is_pronoun(self.tokens, index) and not self.counts_a_unit(index + 1)):
            return 0
        if run == ["second"] and index and self.tokens[index - 1][0] == "number" and "seconds" in self.time_words:
            return self.add("second", index, index + 1, role=UNIT, unit="second")  # "a 30 second timer": the unit
        written = " ".join(run)
        value = number_value(run)
        end = index + len(run)
        if self.text(end) in HALVES_OF_THE_DAY and 1 <= value <= 12:  # "ten pm"
            return self.add(ampm_time(f"{value}{self.text(end)}"), index, end + 1)
        clock = self.hour_of_the_day(value, index, end) if run[-1] not in ORDINALS else 0
        if clock:
            return clock
        counts = self.text(end) if value == 1 and self.is_word(end) else ""
        role = ORDINAL if run[-1] in ORDINALS else AMOUNT
        return self.add(str(value) if self.words_as_numbers else written, index, end, counts, role)

    def other_word(self, index: int) -> int:
        """Articles, months, weekdays (with this/next/last), clock
        words, currencies and units of measure, and time words (with this/next/last)."""
        word = self.text(index)
        previous = self.text(index - 1)
        modified = previous in TIME_MODIFIERS and self.is_word(index - 1)
        if word in ARTICLES:
            counted = self.text(index + 1)
            self.add(f"{ARTICLE} {counted}", index, index + 1, counted, role=SINGLE)
        elif word in MONTHS:
            self.add(MONTHS[word], index, index + 1, role=MONTH)
        elif word in AMBIGUOUS_MONTHS and next_to_number(self.tokens, index):
            self.add(AMBIGUOUS_MONTHS[word], index, index + 1, role=MONTH)
        elif word in WEEKDAYS:
            if modified:  # "last saturday", "next friday"
                self.add(f"{TIME_MODIFIERS[previous]} {word}", index - 1, index + 1)
            else:
                self.add(word, index, index + 1)
        elif word in CLOCK_WORDS:
            self.add(CLOCK_WORDS[word], index, index + 1)
        elif word in self.time_words:
            return self.time_word(index)
        elif self.counted_unit(index):
            self.add(self.counted_unit(index), index, index + 1, role=COUNTED)
        return index + 1



