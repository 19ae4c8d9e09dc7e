"""What an augmenter may say about one row beyond its candidates: why it gave none, and what
the row cost (requests, tokens, money). A :class:`GeneratedRow` is the row's list of candidates
with both attached; the pipeline carries them through unions and chains into the run's report
(reasons in "rows got no augmentation", usage in its own part of the summary), whatever the
batching, worker processes, datasets or Ray."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: Prefix of the report's count names that hold usage rather than candidate counts.
USAGE_PREFIX = "usage:"


class GeneratedRow(list):
    """One row's candidates (a list, as ``augment_batch`` returns), with ``reason``: why the
    row got none (shown in the summary instead of "augmenter returned nothing"), and
    ``usage``: integer counts of what it cost, under names the augmenter declares in
    :attr:`augkit.Augmenter.usage` (``{"requests": 1, "prompt_tokens": 212}``).

    >>> row = GeneratedRow([], reason="the reply holds no JSON list", usage={"requests": 1})
    >>> row, row.reason
    ([], 'the reply holds no JSON list')
    """

    def __init__(self, items: Iterable[Any] = (), *, reason: str | None = None, usage: Mapping[str, int] | None = None):
        super().__init__(items)
        self.reason = reason
        self.usage = dict(usage or {})


def notes_of(row: Any) -> tuple[str | None, dict[str, int]]:
    """A row's reason and usage (none for a plain list)."""
    if isinstance(row, GeneratedRow):
        return row.reason, row.usage
    return None, {}


def with_notes(items: Iterable[Any], reason: str | None, usage: Mapping[str, int]) -> list:
    """``items`` as a :class:`GeneratedRow` when there is a note to carry, else a plain list."""
    return GeneratedRow(items, reason=reason, usage=usage) if reason or usage else list(items)


def merged_notes(rows: Iterable[Any]) -> tuple[str | None, dict[str, int]]:
    """The notes of several rows for one source (a union's members, a chain's steps): usage
    summed, the first reason given."""
    reason, usage = None, {}
    for row in rows:
        row_reason, row_usage = notes_of(row)
        reason = reason or row_reason
        for name, value in row_usage.items():
            usage[name] = usage.get(name, 0) + int(value)
    return reason, usage
