"""What an augmenter may say about one row beyond its candidates: why it gave none, whether
that was a failure to produce (an unusable reply, a request that failed), and what the row
cost (requests, tokens, money). A :class:`GeneratedRow` is the row's list of candidates with
these attached; the pipeline carries them through unions and chains into the run's report
(reasons in "rows got no augmentation", usage in its own part of the summary), whatever the
batching, worker processes, datasets or Ray."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

#: Prefix of the report's count names that hold usage rather than candidate counts.
USAGE_PREFIX = "usage:"


class GeneratedRow(list):
    """One row's candidates (a list, as ``augment_batch`` returns), with ``reason``: why the
    row got none (shown in the summary instead of "augmenter returned nothing"), ``failed``:
    True when the augmenter could not produce what it was asked for this row (a reply it
    could not use, a request that failed after its retries), as opposed to having nothing to
    offer (a text without synonyms) or a usable answer whose texts were all repeats; and
    ``usage``: integer counts of what it cost, under names the augmenter declares in
    :attr:`augkit.Augmenter.usage` (``{"requests": 1, "prompt_tokens": 212}``).

    A failed row counts as a failure, like a row an augmenter raised on: its reason reads
    ``augmentation failed (<reason>)``, ``strict`` stops the run on it, and a run in which
    every row asked failed raises :class:`augkit.NothingAugmentedError`.

    >>> row = GeneratedRow([], reason="the reply holds no JSON list", failed=True, usage={"requests": 1})
    >>> row, row.reason, row.failed
    ([], 'the reply holds no JSON list', True)
    """

    def __init__(self, items: Iterable[Any] = (), *, reason: str | None = None, usage: Mapping[str, int] | None = None,
                 failed: bool = False):
        super().__init__(items)
        self.reason = reason
        self.usage = dict(usage or {})
        self.failed = bool(failed)


class RowNotes(NamedTuple):
    """What a row says beyond its candidates: :attr:`GeneratedRow.reason`, ``usage`` and ``failed``."""

    reason: str | None
    usage: dict[str, int]
    failed: bool = False


def notes_of(row: Any) -> RowNotes:
    """A row's reason, usage and failure (none for a plain list)."""
    if isinstance(row, GeneratedRow):
        return RowNotes(row.reason, row.usage, row.failed)
    return RowNotes(None, {})


def with_notes(items: Iterable[Any], reason: str | None, usage: Mapping[str, int], failed: bool = False) -> list:
    """``items`` as a :class:`GeneratedRow` when there is a note to carry, else a plain list."""
    return GeneratedRow(items, reason=reason, usage=usage, failed=failed) if reason or usage or failed else list(items)


def merged_notes(rows: Iterable[Any]) -> RowNotes:
    """The notes of several rows for one source (a union's members, a chain's steps): usage
    summed; failed when any failed, with the first failed row's reason; else the first reason
    given."""
    reason, failure, usage = None, None, {}
    for row in rows:
        notes = notes_of(row)
        reason = reason or notes.reason
        if notes.failed and failure is None:
            failure = notes.reason or ""
        for name, value in notes.usage.items():
            usage[name] = usage.get(name, 0) + int(value)
    if failure is not None:
        return RowNotes(failure or reason, usage, True)
    return RowNotes(reason, usage)
