"""Binding an amount to the unit it counts, and a duration to the way it points in time, for
the ``numbers`` filter.

The reader (:mod:`augkit.filters.number_expressions`) finds the pieces of a text: amounts
("2", "two", "half", "a", "a few"), units ("days", "$", "oz"), directions ("ago", "in",
"last"), months and days of the month. :func:`bind` joins the pieces that make one
expression: "2 days ago" is one amount of time pointing back, "€1" one amount of money,
"the 8th of june" one date. A rewrite that keeps every piece but carries the number away
from its unit ("she days ago and 2") or the duration away from its direction ("2 days my,
transaction ago") changes the expression, and the filter names it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from augkit.filters.counted_units import (
    CURRENCY_ADJECTIVES,
    CURRENCY_BEFORE_AMOUNT,
    CURRENCY_NAMES,
    TIME_GAP_WORDS,
    amount_of_time,
    format_amount,
    is_amount,
)

# What a piece is to the binder.
AMOUNT = "amount"  #: a cardinal number ("2", "two", "2.5", "21 weeks and a half"): may count a unit
FRACTION = "fraction"  #: an amount said as a fraction ("half", "3/4"): counts through "of a" ("half of a cup")
ORDINAL = "ordinal"  #: "8th", "eighth": a day of a month, never an amount of time ("first year")
SINGLE = "single"  #: "a", "an": one, when a unit of time or a currency follows ("a week", "a pound")
VAGUE = "vague"  #: "a few", "several", "a couple of": an amount without a number
UNIT = "unit"  #: a time unit that takes an amount ("days", "hour")
COUNTED = "counted"  #: a currency or a unit of measure: an expression only with its amount
SYMBOL = "symbol"  #: "$", "€", "£", "%": before or after its amount
LEAD = "lead"  #: "in", "within", "every", "last", "next", "this" before an amount of time
TRAIL = "trail"  #: "ago", "from now", "later", "earlier" after a duration
MONTH = "month"  #: a month's name
OTHER = "other"  #: an expression on its own (a clock time, a weekday, "this week", ...)

_AMOUNTS = (AMOUNT, FRACTION, SINGLE, VAGUE)
#: The key of a currency named without an amount starts with this ("(currency) euro"): it is
#: no expression itself, but says that a currency left its amount rather than being left out.
CURRENCY = "(currency)"
#: Highest day of a month.
_LAST_DAY = 31
#: Words between two amounts that count one unit ("500 and 1000 rupees", "2 or 3 days",
#: "2 to 3 weeks"); "&", "-" and "," are no tokens, so two amounts in digits side by side
#: count one unit too ("500 & 1000 rupees", "2-3 days").
_CONNECTORS = frozenset({"and", "or", "to"})
#: A year said with a date ("march 12, 2019"): four digits.
_YEAR_DIGITS = 4


@dataclass
class Piece:
    """A piece of a text for the ``numbers`` filter: its canonical ``key``, the text as
    ``written``, the tokens ``start:end`` it spans, its ``role`` (above), the unit it names
    (``unit``: "day", "euro", "cup"), the way it points in time (``direction``), for an article or a "one"
    the word it counts (``counts``), and the key it has when its article or currency is
    left out (``implicit``: "week ago" for "a week ago", "1000" for "1000 rupees")."""

    key: str
    written: str
    start: int
    end: int
    role: str = OTHER
    unit: str = ""
    direction: str = ""
    counts: str = ""
    implicit: str = ""


def bind(pieces: list[Piece], tokens: list[tuple[str, str]], words_as_numbers: bool) -> list[Piece]:
    """``pieces`` (in reading order, over ``tokens``) with each amount joined to the unit it
    counts and the direction it points, and each day to its month. Units of measure without
    an amount are left out (they name no amount); a currency without one stays, under a key
    starting with :data:`CURRENCY`.

    ``words_as_numbers=False`` keeps amounts as written ("a week" is then not "1 week", and
    no amount of time is converted).
    """
    return _Binder(pieces, tokens, words_as_numbers).bind()


class _Binder:
    def __init__(self, pieces: list[Piece], tokens: list[tuple[str, str]], words_as_numbers: bool):
        self.pieces = pieces
        self.tokens = tokens
        self.words_as_numbers = words_as_numbers
        self.used = [False] * len(pieces)
        #: The pieces starting and ending at each token, so that looking around costs no scan.
        self.by_start: dict[int, list[int]] = {}
        self.by_end: dict[int, list[int]] = {}
        for index, piece in enumerate(pieces):
            self.by_start.setdefault(piece.start, []).append(index)
            self.by_end.setdefault(piece.end, []).append(index)

    def bind(self) -> list[Piece]:
        groups = []
        # dates first ("the 8th of june"), then amounts with their unit, then a unit with its direction
        for roles, join in (((MONTH, ORDINAL, AMOUNT), self.date), (_AMOUNTS, self.amount_with_unit),
                            ((UNIT,), self.unit_with_direction)):
            for index, piece in enumerate(self.pieces):
                group = join(index) if not self.used[index] and piece.role in roles else None
                if group:
                    groups.append(group)
        rest = []
        for index, piece in enumerate(self.pieces):
            if self.used[index]:
                continue
            if piece.role in (COUNTED, SYMBOL):
                if piece.key in CURRENCY_NAMES:  # a currency carried away from its amount ("€my fee on 1")
                    rest.append(Piece(f"{CURRENCY} {piece.key}", piece.written, piece.start, piece.end))
            else:
                rest.append(piece)
        return sorted(groups + rest, key=lambda piece: piece.start)

    # looking around ---------------------------------------------------------------------------

    def word(self, index: int) -> str:
        return self.tokens[index][1] if 0 <= index < len(self.tokens) else ""

    def starting_at(self, start: int, roles: tuple[str, ...]) -> int | None:
        """The unused piece of one of ``roles`` that starts at token ``start``."""
        return next((i for i in self.by_start.get(start, ()) if not self.used[i] and self.pieces[i].role in roles), None)

    def ending_at(self, end: int, roles: tuple[str, ...]) -> int | None:
        """The unused piece of one of ``roles`` that ends at token ``end``."""
        return next((i for i in self.by_end.get(end, ()) if not self.used[i] and self.pieces[i].role in roles), None)

    def group(self, members: list[int], key: str, unit: str = "", direction: str = "", counts: str = "", implicit: str = "",
              shared_unit: str = "") -> Piece:
        """One piece for ``members`` (now used), spanning all their tokens (then the
        ``shared_unit`` it counts with the next amount, as written: "500 (rupee)")."""
        for member in members:
            self.used[member] = True
        start = min(self.pieces[m].start for m in members)
        end = max(self.pieces[m].end for m in members)
        written = _written(self.tokens[start:end]) + (f" ({shared_unit})" if shared_unit else "")
        return Piece(key, written, start, end, OTHER, unit, direction, counts, implicit)

    # dates ------------------------------------------------------------------------------------

    def date(self, index: int) -> Piece | None:
        """"june 8", "the 8th of june", "may the 5th", "march 12, 2019", "june 2019": one date."""
        piece = self.pieces[index]
        if piece.role == MONTH:
            month, at = index, piece.end + (1 if self.word(piece.end) == "the" else 0)
            day = self.starting_at(at, (ORDINAL, AMOUNT))
            if day is not None and not self.is_day(day):
                day = None
        else:
            if not self.is_day(index):
                return None
            day, at = index, piece.end + (1 if self.word(piece.end) == "of" else 0)
            month = self.starting_at(at, (MONTH,))
            if month is None:
                return None
        members = [month] + ([day] if day is not None else [])
        end = max(self.pieces[m].end for m in members)
        year = self.starting_at(end, (AMOUNT,))
        if year is not None and not self.is_year(year):
            year = None
        if day is None and year is None:
            return None
        parts = [self.pieces[month].key] + [self.pieces[m].key for m in (day, year) if m is not None]
        return self.group(members + ([year] if year is not None else []), " ".join(parts))

    def is_day(self, index: int) -> bool:
        piece = self.pieces[index]
        if piece.role == ORDINAL:
            return True
        return piece.role == AMOUNT and piece.key.isdigit() and 1 <= int(piece.key) <= _LAST_DAY and piece.end - piece.start == 1

    def is_year(self, index: int) -> bool:
        kind, written = self.tokens[self.pieces[index].start]
        return kind == "number" and written.isdigit() and len(written) == _YEAR_DIGITS

    # amounts ----------------------------------------------------------------------------------

    def amount_with_unit(self, index: int) -> Piece | None:
        """The amount at ``index`` with the unit it counts (and the currency symbol or code
        beside it, the direction before or after it), or None when it counts no unit."""
        amount = self.pieces[index]
        members = [index]
        unit, gap = self.unit_counted(index, members)
        shared = unit is None and amount.role == AMOUNT and self.currency_beside(index) is None
        if shared:  # "500 and 1000 rupees", "2 or 3 days": the unit of the amount after
            unit, gap = self.unit_of_the_next_amount(index)
        money = unit is None or self.pieces[unit].key in CURRENCY_NAMES
        symbol = self.currency_beside(index) if money and amount.role in (AMOUNT, FRACTION) else None
        if unit is not None and symbol is not None and self.names_the_next_amount(unit):
            unit = None  # "Rs 500 Rs 1000": the second "Rs" is the next amount's
        if unit is None and symbol is None:
            return None
        value = self.amount_key(amount)
        if unit is None:
            members.append(symbol)
            name = self.pieces[symbol].key  # a currency, or "percent"; "₹15000" may be "15000", "5%" not "5"
            return self.group(members, f"{value} {name}", name, implicit=value if name in CURRENCY_NAMES else "")
        if symbol is not None:
            members.append(symbol)
        if not shared:
            members.append(unit)
        unit_key = self.pieces[unit].key
        if unit_key == "dollar" and CURRENCY_ADJECTIVES.get(gap):
            unit_key = f"{CURRENCY_ADJECTIVES[gap]} {unit_key}"
        shared_unit = self.pieces[unit].written if shared else ""
        if self.pieces[unit].role == COUNTED:
            if unit_key in CURRENCY_NAMES:  # "1000 rupees" may be "1000" (but "a pound" is not "a")
                implicit = value if amount.role != SINGLE else ""
                return self.group(members, f"{value} {unit_key}", unit_key, implicit=implicit, shared_unit=shared_unit)
            counts = self.pieces[unit].written if value == "1" else ""  # "1 foot" is "a foot"
            return self.group(members, f"{value} {unit_key}", unit_key, counts=counts, shared_unit=shared_unit)
        return self.amount_of_time(members, amount, value, self.pieces[unit], shared_unit)

    def amount_of_time(self, members: list[int], amount: Piece, value: str, unit: Piece, shared_unit: str = "") -> Piece:
        """An amount of time with the way it points ("in 3 days", "the last 4 weeks", "2 days
        ago"), in the largest unit that keeps it whole ("a week" is "7 days")."""
        unit_key = unit.key
        if self.words_as_numbers and is_amount(value):
            converted, unit_key = amount_of_time(Fraction(value), unit_key)
            value = format_amount(converted)
        start = min(self.pieces[m].start for m in members)
        end = max(self.pieces[m].end for m in members)
        lead = self.ending_at(start, (LEAD,))
        trail = self.starting_at(end, (TRAIL,))
        parts, direction = [value, unit_key], ""
        if lead is not None:
            members.append(lead)
            parts.insert(0, self.pieces[lead].key)
            direction = self.pieces[lead].key
        if trail is not None:
            members.append(trail)
            parts.append(self.pieces[trail].key)
            direction = self.pieces[trail].key if lead is None else ""
        # "a week ago" may be "week ago": the unit without its article (see numbers.py)
        implicit = ""
        if amount.role == SINGLE and lead is None:
            implicit = " ".join([unit.key] + ([self.pieces[trail].key] if trail is not None else []))
        return self.group(members, " ".join(parts), unit_key, direction, implicit=implicit, shared_unit=shared_unit)

    def unit_counted(self, index: int, members: list[int]) -> tuple[int | None, str]:
        """The unit the amount at ``index`` counts and the word between them ("" if none);
        an article a fraction counts through joins ``members`` ("half an hour")."""
        amount = self.pieces[index]
        if amount.end - amount.start > 1 and amount.role == AMOUNT:  # "an hour and a half", "21 weeks and a half"
            for position in range(amount.start + 1, amount.end):
                inner = self.starting_at(position, (UNIT,))
                if inner is not None and self.pieces[inner].end <= amount.end:
                    return inner, ""
        at = amount.end
        if amount.role == FRACTION:  # "half an hour", "half of a cup", "three quarters of an hour"
            at += 1 if self.word(at) == "of" else 0
            article = self.starting_at(at, (SINGLE,))
            if article is not None:
                members.append(article)
                at = self.pieces[article].end
        unit = self.starting_at(at, (UNIT, COUNTED))
        gap = ""
        if unit is None:
            gap = self.word(at)
            unit = self.starting_at(at + 1, (UNIT, COUNTED))
        if unit is None or (amount.role == SINGLE and not self.is_time_or_money(unit)):
            return None, ""  # "a degree in business", "a foot" name no amount
        if not gap:
            return unit, ""
        if self.pieces[unit].role == UNIT and gap in TIME_GAP_WORDS:
            return unit, gap
        if self.pieces[unit].key in CURRENCY_NAMES and gap in CURRENCY_ADJECTIVES:
            return unit, gap
        return None, ""

    def unit_of_the_next_amount(self, index: int) -> tuple[int | None, str]:
        """The unit the amount after the one at ``index`` counts ("500 and 1000 rupees", "2
        or 3 days", "2-3 days", "1, 2 or 3 weeks"), and the word before it, or (None, "")."""
        amount = self.pieces[index]
        connected = self.word(amount.end) in _CONNECTORS
        following = self.starting_at(amount.end + (1 if connected else 0), (AMOUNT,))
        if following is None or not (connected or self.in_digits(index) and self.in_digits(following)):
            return None, ""  # "i made one 2 days ago": "one" counts no day
        unit, gap = self.unit_counted(following, [])
        return (unit, gap) if unit is not None else self.unit_of_the_next_amount(following)

    def in_digits(self, index: int) -> bool:
        """Whether the piece at ``index`` is written in digits ("500", not "one")."""
        return all(kind == "number" for kind, _ in self.tokens[self.pieces[index].start:self.pieces[index].end])

    def names_the_next_amount(self, index: int) -> bool:
        """Whether the currency at ``index`` is a code written before the amount after it."""
        piece = self.pieces[index]
        return self.word(piece.start) in CURRENCY_BEFORE_AMOUNT and self.starting_at(piece.end, (AMOUNT,)) is not None

    def is_time_or_money(self, index: int) -> bool:
        piece = self.pieces[index]
        return piece.role == UNIT or piece.key in CURRENCY_NAMES

    def currency_beside(self, index: int) -> int | None:
        """A currency symbol just before or after the amount at ``index`` ("€1", "1£", "5%"),
        or a currency code just before it ("USD 10")."""
        amount = self.pieces[index]
        before = self.ending_at(amount.start, (SYMBOL,))
        if before is not None:
            return before
        code = self.ending_at(amount.start, (COUNTED,))
        if code is not None and self.word(self.pieces[code].start) in CURRENCY_BEFORE_AMOUNT:
            return code
        after = self.starting_at(amount.end, (SYMBOL,))
        next_amount = self.starting_at(amount.end + 1, (AMOUNT, FRACTION))
        if after is not None and self.pieces[after].key in CURRENCY_NAMES and next_amount is not None:
            return None  # "000 $5": the "$" is the next amount's
        return after

    def amount_key(self, amount: Piece) -> str:
        if amount.role == SINGLE:
            return "1" if self.words_as_numbers else "a"
        return amount.key

    def unit_with_direction(self, index: int) -> Piece | None:
        """A time unit and the direction after it, without an amount ("how many weeks ago")."""
        unit = self.pieces[index]
        trail = self.starting_at(unit.end, (TRAIL,))
        if trail is None:
            return None
        return self.group([index, trail], f"{unit.key} {self.pieces[trail].key}", unit.key, self.pieces[trail].key)


def _written(tokens: list[tuple[str, str]]) -> str:
    """Tokens as written, a currency symbol or "%" joined to its amount ("€1", "1£", "5%")."""
    text, previous = "", ""
    for kind, word in tokens:
        attached = (previous == "symbol" and kind in _DIGITS) or (kind == "symbol" and previous in _DIGITS)
        text += word if not text or attached else f" {word}"
        previous = kind
    return text


_DIGITS = ("number", "fraction")
