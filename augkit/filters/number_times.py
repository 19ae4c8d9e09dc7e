"""Reading times, dates and directions for the ``numbers`` filter: "from now", "in 3 days", "every
week", "half past nine", "tonight". :class:`TimeReading` holds the reading steps of
:mod:`augkit.filters.number_expressions`'s reader that concern time; the reader is one of them."""

from __future__ import annotations

from fractions import Fraction

from augkit.filters.amount_binding import (
    AMOUNT,
    LEAD,
    OTHER,
    TRAIL,
    UNIT,
)
from augkit.filters.counted_units import (
    TIME_GAP_WORDS,
    TIME_WORDS_NOT_COUNTED,
)
from augkit.filters.number_vocabulary import (
    AGO,
    ARTICLES,
    CLOCK_AFTER,
    CLOCK_BEFORE,
    CLOCK_MINUTES,
    DAY_BEFORE,
    DEICTIC,
    DENOMINATORS,
    DIRECTION_WORDS,
    DURATION_REACH,
    FRACTIONS_ALONE,
    FROM_NOW,
    IN,
    NUMBER_WORDS,
    ORDINALS,
    PARTS_OF_DAY,
    PARTS_OF_THE_DAY,
    SAME_TIMES,
    TIME_MODIFIERS,
    TIME_WORDS,
    VAGUE_AMOUNTS,
    WITHIN,
)
from augkit.filters.number_words import (
    ampm_time,
    hour_value,
)


class TimeReading:
    """The time-reading steps of a left-to-right pass over a text's tokens (``tokens``), each
    adding what it recognises to ``found`` and returning the index after it."""

    tokens: list[tuple[str, str]]
    found: list
    time_words: frozenset[str]
    future_until: int | None

    def duration_ends_at(self, index: int) -> bool:
        """Whether a time unit ends just before ``index`` ("2 days|", "an hour and a half|")."""
        if self.is_unit(index - 1):
            return True
        last = self.found[-1] if self.found else None
        return bool(last and last.end == index and any(self.is_unit(i) for i in range(last.start, index)))

    def is_counted_time(self, index: int) -> bool:
        """A time unit that takes an amount ("days"; not "daily")."""
        return self.is_unit(index) and self.text(index) not in TIME_WORDS_NOT_COUNTED

    def hour_of_the_day(self, hour: int, start: int, end: int) -> int:
        """"two in the morning" = "2am", "6 in the evening" = "6pm": the clock time read from
        ``start`` (the hour ends at ``end``), or 0 when no part of the day follows."""
        part = self.text(end + 2) if (self.text(end), self.text(end + 1)) == ("in", "the") else ""
        if not 1 <= hour <= 12 or part not in PARTS_OF_THE_DAY:
            return 0
        return self.add(ampm_time(f"{hour}{PARTS_OF_THE_DAY[part]}m"), start, end + 3)

    def clock_phrase(self, index: int) -> int:
        """"(a) quarter past six" = "6:15", "half past six" = "6:30", "quarter to six" = "5:45"."""
        start = index
        if self.text(index) in ARTICLES:
            index += 1
        part, relation = self.text(index), self.text(index + 1)
        direction = "after" if relation in CLOCK_AFTER else "before" if relation in CLOCK_BEFORE else ""
        minutes = CLOCK_MINUTES.get((part, direction))
        hour = hour_value(self.tokens[index + 2]) if minutes is not None and index + 2 < len(self.tokens) else None
        if hour is None:
            return 0
        if minutes < 0:
            hour, minutes = (hour - 2) % 12 + 1, 60 + minutes
        return self.add(f"{hour}:{minutes:02d}", start, index + 3)

    def direction(self, index: int) -> int:
        """"ago" (or "back" after a unit), "from now" after a duration, "in"/"within" before
        one, "later"/"earlier" next to a time."""
        word = self.text(index)
        if not self.time_words:
            return 0  # no time words, no durations to point
        if word == "ago" or (word == "back" and self.duration_ends_at(index)):
            return self.add(AGO, index, index + 1, role=TRAIL, direction=AGO)
        if word == "from" and self.text(index + 1) in ("now", "today"):
            if any(self.is_unit(i) for i in range(index - DURATION_REACH, index)):
                if self.future_until is not None and self.future_until >= index - DURATION_REACH:
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
        if word in DIRECTION_WORDS:
            neighbour = self.text(index + 1)
            key = DIRECTION_WORDS[word]
            if self.duration_ends_at(index):
                return self.add(key, index, index + 1, role=TRAIL, direction=key)
            if neighbour in DEICTIC or neighbour in TIME_MODIFIERS:
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
        cardinal = (kind == "number" and not word[-1:].isalpha()) or kind == "fraction" or (word in NUMBER_WORDS and word not in ORDINALS)
        vague = word in VAGUE_AMOUNTS or (word in ARTICLES and self.text(index + 1) in VAGUE_AMOUNTS)
        if not (cardinal or vague or word in FRACTIONS_ALONE or (allow_article and word in ARTICLES)):
            return None  # "in first year" names no duration
        for ahead in range(index, min(index + 5, len(self.tokens))):
            if self.is_unit(ahead):
                return ahead
            kind, word = self.tokens[ahead]
            if not (kind in ("number", "fraction") or word in NUMBER_WORDS or word in DENOMINATORS
                    or word in ARTICLES or word in VAGUE_AMOUNTS or word in ("and", "of") or word in TIME_GAP_WORDS):
                return None
        return None

    def modifier_over_amount(self, index: int) -> None:
        """"the last 4 weeks", "the next two hours", "the past few days": the modifier points
        the amount of time after it (read on its own, then bound to it)."""
        word = self.text(index)
        if word not in TIME_MODIFIERS or not self.is_word(index):
            return
        amount = self.tokens[index + 1] if index + 1 < len(self.tokens) else ("", "")
        if not (amount[0] == "number" or amount[1] in NUMBER_WORDS or amount[1] in VAGUE_AMOUNTS):
            return
        unit = index + 3 if self.text(index + 2) == "of" else index + 2
        if self.is_unit(unit):
            self.add(TIME_MODIFIERS[word], index, index + 1, role=LEAD, direction=TIME_MODIFIERS[word])

    def time_word(self, index: int) -> int:
        """A time word: "the day before yesterday" (2 days ago), "tomorrow morning", "this
        week", or a unit ("days") an amount before it may count."""
        word, following = self.text(index), self.text(index + 1)
        previous = self.text(index - 1)
        unit = TIME_WORDS.get(word, word)
        if word == "day" and following in DAY_BEFORE and self.text(index + 2) == DAY_BEFORE[following][0]:
            direction = DAY_BEFORE[following][1]
            key = f"{self.number_key(Fraction(2), 'two')} day {direction}"
            return self.add(key, index, index + 3, unit="day", direction=direction)
        if word in DEICTIC and following in PARTS_OF_DAY and following in self.time_words:  # "tomorrow morning"
            part = TIME_WORDS.get(following, following)
            return self.add(f"{TIME_WORDS[word]} {part}", index, index + 2, unit=part)
        if word not in DEICTIC and previous in TIME_MODIFIERS and self.is_word(index - 1):
            modified = f"{TIME_MODIFIERS[previous]} {unit}"
            self.add(SAME_TIMES.get(modified, modified), index - 1, index + 1, unit=unit.split()[-1])
        else:
            role = UNIT if word not in TIME_WORDS_NOT_COUNTED and word not in DEICTIC else OTHER
            self.add(unit, index, index + 1, role=role, unit=unit.split()[-1])
        return index + 1
