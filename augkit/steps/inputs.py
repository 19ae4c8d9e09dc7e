"""Checking input texts: what is augmented, what passes through, what is an error.

- ``None``, NaN (and pandas' NA) and empty or whitespace-only strings are kept as they
  are and yield no augmentation; the reason is counted in the run's report.
- Any other non-string value is an error naming the column, the row and the type, unless
  ``coerce=True`` turns it into a string (:func:`coerced_text`: bytes decoded as UTF-8,
  anything else ``str(value)``).
- When the run has labels, a row whose label is missing (:func:`is_missing_label`) is kept as
  it is and yields no augmentation either (:data:`NO_LABEL`): "missing" is not a class, and a
  label-conditioned step must not learn it as one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from augkit.errors import InputError

MISSING_TEXT = "missing text (None/NaN)"
BLANK_TEXT = "empty or whitespace text"
NO_LABEL = "no label (passed through)"


def is_missing(value: Any) -> bool:
    """None, float NaN, or pandas' NA/NaT (recognised without importing pandas)."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return type(value).__name__ in {"NAType", "NaTType"}


def is_missing_label(value: Any) -> bool:
    """A label that is not there: missing (:func:`is_missing`), or an empty or whitespace
    string (an empty cell of a CSV file, which augkit reads as ``""``). The string ``"NA"``
    is a label like any other.

    >>> [is_missing_label(v) for v in (None, float("nan"), "", "  ", "NA", 0)]
    [True, True, True, True, False, False]
    """
    if isinstance(value, str):
        return not value.strip()
    return is_missing(value)


def prepare_texts(
    values: Sequence[Any], *, describe_row: Callable[[int], str], coerce: bool, labels: Sequence[Any] | None = None
) -> tuple[list[str | None], list[str | None]]:
    """Split ``values`` into texts to augment and skip reasons.

    Returns ``(texts, skips)`` aligned with ``values``: ``texts[i]`` is the string to augment
    or None; ``skips[i]`` is None or the reason row ``i`` is not augmented. With ``labels``
    (aligned with ``values``), a row whose label is missing is skipped too (:data:`NO_LABEL`),
    unless its text already was.
    """
    texts, skips = _prepared_texts(values, describe_row, coerce)
    if labels is not None:
        for index, label in enumerate(labels):
            if texts[index] is not None and is_missing_label(label):
                texts[index] = None
                skips[index] = NO_LABEL
    return texts, skips


def _prepared_texts(values: Sequence[Any], describe_row: Callable[[int], str], coerce: bool) -> tuple[list[str | None], list[str | None]]:
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
