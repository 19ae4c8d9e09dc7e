"""What the label-safety filters (``negation``, ``numbers``, ``entities``) share.

Each reads a few cheap clues from the source and from every candidate (its negations, its
numbers and times, its names) and drops the candidate when they disagree. These are the
meaning changes that stay close in embedding space and so pass ``semantic``: "what films are
at the nearest movie theatre" -> "that films are not closer cinema", "this week" -> "this
month", "an image in Google Documents" -> "a non-Google Docs image" (similarity 0.92).
No model is involved: each is a few regular expressions and word lists.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from augkit.errors import InvalidParameterError
from augkit.steps.candidate import Candidate
from augkit.steps.filter import Filter, check_sources

#: What a filter compares: a tuple whose first item is its canonical form (then as written, ...).
Clue = TypeVar("Clue", bound=tuple)


@dataclass(frozen=True)
class Mismatch:
    """How a candidate's clues differ from its source's: ``count`` differences (0 when they
    agree) and a ``reason`` a person can read (empty when they agree)."""

    count: int = 0
    reason: str = ""

    def __bool__(self) -> bool:
        return self.count > 0


class LabelSafetyFilter(Filter):
    """Base of the filters that drop a candidate whose clues differ from its source's.

    A subclass sets ``name`` and ``scores`` (one score: the number of differences) and
    implements :meth:`clues` (what a text says, read once per source) and :meth:`compare`.
    :meth:`explain` says in words why a candidate would be dropped.
    """

    scores: ClassVar[tuple[str, ...]] = ()

    def clues(self, text: str) -> Any:
        """What this filter reads from a text (negations, numbers, names, ...)."""
        raise NotImplementedError(f"{type(self).__name__} must implement clues()")

    def compare(self, source_clues: Any, candidate_clues: Any) -> Mismatch:
        """How the candidate's clues differ from the source's."""
        raise NotImplementedError(f"{type(self).__name__} must implement compare()")

    def mismatch(self, source: str, text: str) -> Mismatch:
        """How ``text`` differs from ``source`` for this filter (falsy when it does not)."""
        return self.compare(self.clues(source), self.clues(text))

    def explain(self, source: str, text: str) -> str:
        """Why ``text`` would be dropped as a rewrite of ``source``, or ``""`` if it would be
        kept (:meth:`filter` gives each candidate it drops this reason).

        >>> from augkit.filters import NegationFilter
        >>> NegationFilter().explain("my card works", "my card does not work")
        "negation added: 'not'"
        """
        return self.mismatch(source, text).reason

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        check_sources(self.name, [source], [candidates])
        score = self.scores[0]
        source_clues = self.clues(source)
        kept = []
        for candidate in candidates:
            found = self.compare(source_clues, self.clues(candidate.text))
            candidate.scores[score] = float(found.count)
            if found:
                candidate.drop_reason = found.reason
            else:
                kept.append(candidate)
        return kept


def word_set(step: str, parameter: str, value: Collection[str] | str | None, default: Iterable[str]) -> frozenset[str]:
    """A word-list parameter as a set of lower-cased words: ``None`` gives ``default``, a
    string is split at commas (the command line's ``-p negation.words=not,never``), any
    other collection must hold non-empty strings."""
    if value is None:
        return frozenset(default)
    items = value.split(",") if isinstance(value, str) else value
    if isinstance(items, (bytes, dict)) or not isinstance(items, Collection):
        raise InvalidParameterError(f"{step}: {parameter} must be a list of words or a comma-separated string, got {value!r}")
    words = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise InvalidParameterError(f"{step}: {parameter} must hold non-empty words, got {item!r} in {value!r}")
        words.append(item.strip().lower())
    return frozenset(words)


def describe_difference(kind: str, lost: Iterable[str], added: Iterable[str]) -> str:
    """``"number lost: '3'; added: '4'"``: what the source had that the candidate lost, and what
    the candidate added, each quoted as written."""
    parts = []
    for verb, items in (("lost", list(lost)), ("added", list(added))):
        if items:
            parts.append(f"{verb}: " + ", ".join(repr(item) for item in items))
    return f"{kind} " + "; ".join(parts) if parts else ""


def multiset_difference(source: list[Clue], candidate: list[Clue]) -> tuple[list[Clue], list[Clue]]:
    """Expressions as tuples that start with their canonical form (then the text as written,
    and whatever else a filter keeps): those the candidate lost and those it added, compared
    by canonical form with repeats counted."""
    lost_keys = Counter(expression[0] for expression in source) - Counter(expression[0] for expression in candidate)
    added_keys = Counter(expression[0] for expression in candidate) - Counter(expression[0] for expression in source)
    return _take(source, lost_keys), _take(candidate, added_keys)


def _take(expressions: list[Clue], wanted: Counter) -> list[Clue]:
    taken = []
    for expression in expressions:
        if wanted[expression[0]] > 0:
            wanted[expression[0]] -= 1
            taken.append(expression)
    return taken
