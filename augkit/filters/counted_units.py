"""The units an amount counts, for the ``numbers`` filter: time units, currencies and units of
measure, each by a canonical name, how amounts of the same kind of time convert, and how an
amount is written as a key.

An amount said with one of these units is one expression ("2 days", "€1", "12 oz"), so a
rewrite that carries the number away from its unit is a change. Counted nouns that are not
units ("3 people", "2 cards") are left out on purpose: a rewrite may name them with a
synonym ("3 persons") and the number stays the number.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

#: Time words that name a unit but do not take an amount: adverbs and adjectives ("2
#: daily" is no amount of days; "a monthly fee" counts a fee, not a month), the day named
#: by itself, and the greeting.
TIME_WORDS_NOT_COUNTED = frozenset({
    "today", "tonight", "tomorrow", "yesterday", "daily", "weekly", "fortnightly", "monthly", "yearly",
    "annual", "annually", "hourly", "nightly", "goodnight",
})

#: Words that may stand between an amount and its time unit and leave the amount of time
#: as it is ("2 more days", "3 business days", "a whole week"). Source: the adjectives
#: BANKING77, CLINC150 and Quora put there.
TIME_GAP_WORDS = frozenset({
    "more", "extra", "additional", "business", "working", "full", "whole", "entire", "consecutive",
    "straight", "calendar",
})

#: Exact time units in seconds: "a week" = "7 days", "half an hour" = "30 minutes",
#: "24 hours" = "a day", so equal amounts said in other units compare equal.
SECONDS_IN = {"second": 1, "minute": 60, "hour": 3_600, "day": 86_400, "week": 604_800, "fortnight": 1_209_600}
#: Calendar units in months: "a year" = "12 months", "18 months" = "a year and a half".
MONTHS_IN = {"month": 1, "year": 12, "decade": 120}
#: The units an amount of time is said in, largest first: the largest that gives a whole
#: number ("14 days" is "2 week", "90 minutes" is "90 minute", "1.5 hours" too). The
#: fortnight and the decade are left out: "2 week" reads better than "1 fortnight".
_CANONICAL_ORDER = (("week", "day", "hour", "minute", "second"), ("year", "month"))

#: "times" counts occurrences ("5 times", "several times"); "5 times 3" is a product, so it
#: binds only when no number follows.
TIMES = {"times": "time"}

#: Currencies by word, code and symbol, to a canonical name: "$20" = "20 dollars" = "20 usd",
#: "€1" = "1 euro", "1£" = "one pound" = "1 gbp". "pound" is both the currency and the weight,
#: one name for both ("lbs" as well): a rewrite of one into the other is not a case worth a
#: false alarm. Only common codes are listed: many three-letter codes are English words
#: ("all", "top", "try", "cup").
CURRENCY_WORDS = {
    "dollar": "dollar", "dollars": "dollar", "usd": "dollar", "buck": "dollar", "bucks": "dollar",
    "euro": "euro", "euros": "euro", "eur": "euro",
    "pound": "pound", "pounds": "pound", "gbp": "pound", "quid": "pound", "lb": "pound", "lbs": "pound",
    "cent": "cent", "cents": "cent", "penny": "penny", "pence": "penny", "pennies": "penny",
    "yen": "yen", "jpy": "yen", "yuan": "yuan", "cny": "yuan", "rmb": "yuan",
    "rupee": "rupee", "rupees": "rupee", "inr": "rupee", "rs": "rupee", "ruble": "ruble", "rubles": "ruble", "rouble": "ruble",
    "roubles": "ruble", "peso": "peso", "pesos": "peso", "mxn": "peso",
    "franc": "franc", "francs": "franc", "chf": "franc", "cad": "canadian dollar", "aud": "australian dollar",
    "nzd": "new zealand dollar", "hkd": "hong kong dollar", "sgd": "singapore dollar",
    "bitcoin": "bitcoin", "bitcoins": "bitcoin", "btc": "bitcoin",
}
CURRENCY_NAMES = frozenset(CURRENCY_WORDS.values())
#: Codes and symbols may come before the amount ("USD 10", "€1") as well as after it.
CURRENCY_BEFORE_AMOUNT = frozenset({"usd", "eur", "gbp", "jpy", "cny", "rmb", "inr", "rs", "mxn", "chf", "cad", "aud", "nzd",
                                    "hkd", "sgd", "btc"})
#: Currency symbols and the per cent sign, as the tokenizer reads them.
SYMBOLS = {"$": "dollar", "€": "euro", "£": "pound", "¥": "yen", "₹": "rupee", "₽": "ruble", "%": "percent"}
#: Nationality words between an amount and its currency: "20 canadian dollars" = "20 cad";
#: "us", "american" and the like add nothing ("20 US dollars" = "$20").
CURRENCY_ADJECTIVES = {
    "us": "", "american": "", "british": "", "uk": "", "russian": "", "mexican": "", "swiss": "", "japanese": "",
    "chinese": "", "indian": "", "canadian": "canadian", "australian": "australian", "singapore": "singapore",
}

#: Units of measure, to a canonical name ("12 oz" = "12 ounces").
MEASURE_WORDS = {
    "cup": "cup", "cups": "cup", "tablespoon": "tablespoon", "tablespoons": "tablespoon", "tbsp": "tablespoon",
    "teaspoon": "teaspoon", "teaspoons": "teaspoon", "tsp": "teaspoon", "ounce": "ounce", "ounces": "ounce",
    "oz": "ounce", "pint": "pint", "pints": "pint", "quart": "quart", "quarts": "quart", "gallon": "gallon",
    "gallons": "gallon", "liter": "liter", "liters": "liter", "litre": "liter", "litres": "liter",
    "milliliter": "milliliter", "milliliters": "milliliter", "ml": "milliliter", "gram": "gram", "grams": "gram",
    "kilogram": "kilogram", "kilograms": "kilogram", "kg": "kilogram", "kilo": "kilogram", "kilos": "kilogram",
    "mile": "mile", "miles": "mile", "kilometer": "kilometer", "kilometers": "kilometer", "kilometre": "kilometer",
    "kilometres": "kilometer", "km": "kilometer", "meter": "meter", "meters": "meter", "metre": "meter",
    "metres": "meter", "foot": "foot", "feet": "foot", "ft": "foot", "inch": "inch", "inches": "inch",
    "yard": "yard", "yards": "yard", "centimeter": "centimeter", "centimeters": "centimeter", "cm": "centimeter",
    "degree": "degree", "degrees": "degree", "calorie": "calorie", "calories": "calorie", "percent": "percent",
    "star": "star", "stars": "star", "mph": "mile per hour",
}


def counted_unit(word: str) -> str | None:
    """The canonical name of the currency or unit of measure ``word`` names, or None."""
    return CURRENCY_WORDS.get(word) or MEASURE_WORDS.get(word) or TIMES.get(word)


def amount_of_time(amount: Fraction, unit: str) -> tuple[Fraction, str]:
    """``amount`` of ``unit`` in the largest unit of its kind that makes it whole: (2, "week")
    for 14 days, (30, "minute") for half an hour; months, mornings and the like as they are."""
    for table, order in zip((SECONDS_IN, MONTHS_IN), _CANONICAL_ORDER):
        if unit in table:
            total = amount * table[unit]
            for target in order:
                if (total / table[target]).denominator == 1:
                    return total / table[target], target
            return total / table[order[-1]], order[-1]
    return amount, unit


def is_amount(key: str) -> bool:
    """Whether ``key`` is an amount ("2", "0.5", "1/3"), not words ("two" as written)."""
    try:
        Fraction(key)
    except ValueError:
        return False
    return True


def format_amount(value: Fraction) -> str:
    """An amount as a key: "21.5", "0.25", "3"; thirds and the like as "1/3"."""
    if value.denominator == 1:
        return str(value.numerator)
    rest = value.denominator
    for factor in (2, 5):
        while rest % factor == 0:
            rest //= factor
    if rest != 1:
        return f"{value.numerator}/{value.denominator}"
    return format((Decimal(value.numerator) / Decimal(value.denominator)).normalize(), "f")
