"""Checking what a step returns against its contract: an augmenter's ``augment_batch`` one list
of strings (or Candidates) per text, a filter's ``filter_batch`` one list of Candidates per
source. A breach raises :class:`~augkit.errors.AugmenterOutputError`, whose ``kind`` becomes
the failed row's reason."""

from __future__ import annotations

import reprlib
from typing import Any

from augkit.errors import AugmenterOutputError
from augkit.steps.candidate import Candidate
from augkit.steps.filter import Filter


def checked_output(label: str, texts: list[str], output: Any, n: int) -> list[list[str]]:
    """Validate ``augment_batch`` output: one list of str per text, never None. Blank
    candidates are dropped and at most ``n`` kept per text."""
    if not isinstance(output, (list, tuple)):
        raise AugmenterOutputError(
            f"augmenter {label!r}: augment_batch() returned {_shown(output)}, expected a list of lists of str",
            kind=f"augmenter {label!r} returned {type(output).__name__}",
        )
    if len(output) != len(texts):
        # A whole batch's mistake, or one row's (a model call that lost a row): Pipeline.run
        # runs the batch again row by row, which decides.
        counts = f"{len(output)} rows for {plural(len(texts), 'text')}"
        raise AugmenterOutputError(f"augmenter {label!r}: augment_batch() returned {counts}",
                                   kind=f"augmenter {label!r} returned {counts}")
    rows = []
    for row in output:
        if type(row) is not list:
            if not isinstance(row, (list, tuple)):
                raise AugmenterOutputError(
                    f"augmenter {label!r} returned {_shown(row)} for a text; "
                    "augment() must return a list of strings (possibly empty), never None",
                    kind=f"augmenter {label!r} returned {type(row).__name__}",
                )
            row = list(row)
        if all(type(text) is str for text in row):
            if not all(map(str.strip, row)):
                row = [text for text in row if text.strip()]
        else:
            for text in row:
                if not isinstance(text, (str, Candidate)) or not isinstance(getattr(text, "text", text), str):
                    raise AugmenterOutputError(
                        f"augmenter {label!r} returned the candidate {_shown(text)}; "
                        "candidates must be str (or augkit.Candidate, to attach scores)",
                        kind=f"augmenter {label!r} returned {_bad_candidate(text)}",
                    )
            if not all(_candidate_text(item).strip() for item in row):
                row = [item for item in row if _candidate_text(item).strip()]
        rows.append(row[:n] if len(row) > n else row)
    return rows


def _candidate_text(item: str | Candidate) -> str:
    return item if type(item) is str else item.text


def checked_filter_output(step: Filter, output: Any, before: list[list[Candidate]]) -> list[list[Candidate]]:
    """Validate ``filter_batch`` output: one list of Candidate per source."""
    contract = "filter_batch() must return one list of Candidate objects per source"
    if not isinstance(output, (list, tuple)):
        raise AugmenterOutputError(f"filter {step.name!r}: filter_batch() returned {_shown(output)}; {contract}",
                                   kind=f"filter {step.name!r} returned {type(output).__name__}")
    if len(output) != len(before):
        counts = f"{len(output)} rows for {plural(len(before), 'source')}"
        raise AugmenterOutputError(f"filter {step.name!r}: filter_batch() returned {counts}; {contract}",
                                   kind=f"filter {step.name!r} returned {counts}")
    for row in output:
        if not isinstance(row, (list, tuple)):
            raise AugmenterOutputError(f"filter {step.name!r} returned {_shown(row)} for a source; {contract}",
                                       kind=f"filter {step.name!r} returned {type(row).__name__}")
        for candidate in row:
            if not isinstance(candidate, Candidate):
                raise AugmenterOutputError(f"filter {step.name!r} returned the candidate {_shown(candidate)}; {contract}",
                                           kind=f"filter {step.name!r} returned a {type(candidate).__name__} candidate")
    return [row if type(row) is list else list(row) for row in output]


def _shown(value: Any) -> str:
    """A returned value as an error message shows it: short repr and type."""
    return f"{reprlib.repr(value)} ({type(value).__name__})" if value is not None else "None"


def _bad_candidate(item: Any) -> str:
    """What was wrong with a candidate, in the words of a reason: its type, or its text's."""
    if isinstance(item, Candidate):
        return f"a Candidate whose text is {type(item.text).__name__}"
    return f"a {type(item).__name__} candidate"


def plural(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"

