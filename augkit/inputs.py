"""Checking input texts: what is augmented, what passes through, what is an error.

- ``None``, NaN (and pandas' NA) and empty or whitespace-only strings are kept as they
  are and yield no augmentation; the reason is counted in the run's report.
- Any other non-string value is an error naming the column, the row and the type, unless
  ``coerce=True`` turns it into a string (:func:`coerced_text`: bytes decoded as UTF-8,
  anything else ``str(value)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from augkit.errors import InputError

MISSING_TEXT = "missing text (None/NaN)"
BLANK_TEXT = "empty or whitespace text"


def is_missing(value: Any) -> bool:
    """None, float NaN, or pandas' NA/NaT (recognised without importing pandas)."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return type(value).__name__ in {"NAType", "NaTType"}


def prepare_texts(
    values: Sequence[Any], *, describe_row: Callable[[int], str], coerce: bool
) -> tuple[list[str | None], list[str | None]]:
    """Split ``values`` into texts to augment and skip reasons.

    Returns ``(texts, skips)`` aligned with ``values``: ``texts[i]`` is the string to augment
    or None; ``skips[i]`` is None or the reason row ``i`` is not augmented.
    """
    texts: list[str | None] = []
    skips: list[str | None] = []
    for index, value in enumerate(values):
        if type(value) is str and value.strip():  # the common case, without the checks below
            texts.append(value)
            skips.append(None)
            continue
        if is_missing(value):
            texts.append(None)
            skips.append(MISSING_TEXT)
            continue
        if not isinstance(value, str):
            if not coerce:
                raise InputError(
                    f"{describe_row(index)}: expected text (str), got {type(value).__name__} {value!r}; "
                    "convert the column to strings or pass coerce=True (--coerce on the command line)"
                )
            value = _coerced(value, describe_row, index)
        if value.strip():
            texts.append(value)
            skips.append(None)
        else:
            texts.append(None)
            skips.append(BLANK_TEXT)
    return texts, skips


def coerced_text(value: Any) -> str:
    """The string ``coerce=True`` augments for a non-string text: bytes decoded as UTF-8
    (raising UnicodeDecodeError when they are not UTF-8), anything else ``str(value)``.

    >>> coerced_text(b"caf\\xc3\\xa9"), coerced_text(3.5)
    ('café', '3.5')
    """
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8")
    return str(value)


def _coerced(value: Any, describe_row: Callable[[int], str], index: int) -> str:
    try:
        return coerced_text(value)
    except UnicodeDecodeError as error:
        raw = bytes(value)
        raise InputError(
            f"{describe_row(index)}: bytes that are not UTF-8 ({error.reason} at byte {error.start}: "
            f"{raw[max(0, error.start - 20):error.start + 20]!r}); decode the column with its encoding before augmenting, "
            "e.g. .str.decode('latin-1') in pandas"
        ) from None
