"""The :class:`Scorer` interface: a pipeline step that keeps every candidate and only adds
its score(s), for a later step (``rank``, ``top_k``) or the user to decide with."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

from augkit.errors import AugmenterOutputError, UsageError
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.filter import Filter, check_sources

#: What a scorer gives one candidate: a number when it declares one score, else a mapping
#: of each declared score name to a number.
ScoreValue = float | Mapping[str, float]


class Scorer(Filter):
    """Base class of steps that measure candidates and drop none.

    A subclass sets ``name`` and ``scores`` (the names of the scores it adds, which become
    ``augkit_<score>`` columns) and implements either :meth:`score` (one candidate against
    its source) or :meth:`score_batch` (every candidate of a batch at once, for scorers that
    run a model). The base class checks the shape of what they return (one value per
    candidate, finite numbers, exactly the declared names) and writes the values into
    ``candidate.scores``; every candidate is kept, in the order received.

    >>> class Length(Scorer):
    ...     name, scores = "length_words", ("length_words",)
    ...     def score(self, source, candidate):
    ...         return float(len(candidate.split()))
    >>> [c.scores for c in Length().filter("a b", [Candidate("a b c")])]
    [{'length_words': 3.0}]
    """

    def score(self, source: str, candidate: str) -> ScoreValue:
        """The score of one candidate text against its source text: a number when the
        scorer declares one score, else a mapping with a number for each declared name."""
        raise NotImplementedError(f"{type(self).__name__} must implement score() or score_batch()")

    def score_pairs(self, sources: list[str], texts: list[str]) -> list[ScoreValue]:
        """Scores of candidate texts, each against its source (``sources[i]`` for
        ``texts[i]``), all in one call: what a model-backed scorer implements to score a
        whole batch at once (:meth:`score_batch` flattens the batch for it)."""
        raise NotImplementedError(f"{type(self).__name__} must implement score(), score_pairs() or score_batch()")

    def score_batch(
        self, sources: list[str], candidates: list[list[Candidate]], context: BatchContext
    ) -> list[list[ScoreValue]]:
        """Scores of many sources' candidates: one list per source, one value per candidate.
        Defaults to one :meth:`score_pairs` call on the whole batch when the scorer has it,
        else :meth:`score` per candidate."""
        if type(self).score_pairs is not Scorer.score_pairs:
            pairs = [(source, c.text) for source, row in zip(sources, candidates, strict=True) for c in row]
            values = iter(self.score_pairs([s for s, _ in pairs], [t for _, t in pairs]) if pairs else [])
            return [[next(values) for _ in row] for row in candidates]
        return [[self.score(source, c.text) for c in row] for source, row in zip(sources, candidates, strict=True)]

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return self.filter_batch([source], [candidates], BatchContext())[0]

    def filter_batch(
        self, sources: list[str], candidates: list[list[Candidate]], context: BatchContext
    ) -> list[list[Candidate]]:
        """Score every candidate (:meth:`score_batch`), write the scores, keep everything."""
        check_sources(self.name, sources, candidates)
        if not self.scores:
            raise UsageError(f"scorer {self.name!r} ({type(self).__name__}) declares no scores: set scores = ('name', ...)")
        values = self.score_batch(sources, candidates, context)
        for row, row_values in zip(candidates, _checked_rows(self.name, values, candidates), strict=True):
            for candidate, value in zip(row, row_values, strict=True):
                candidate.scores.update(_named(self.name, self.scores, value, candidate))
        return [list(row) for row in candidates]


def _checked_rows(step: str, values: Any, candidates: Sequence[Sequence[Candidate]]) -> list[list[Any]]:
    """``values`` when it holds one list per source with one value per candidate."""
    contract = "score_batch() must return one list per source with one value per candidate"
    if not isinstance(values, (list, tuple)) or len(values) != len(candidates):
        got = f"{len(values)} rows" if isinstance(values, (list, tuple)) else type(values).__name__
        raise AugmenterOutputError(f"scorer {step!r}: {contract}; got {got} for {len(candidates)} sources",
                                   kind=f"scorer {step!r} returned the wrong shape")
    for position, (row, row_values) in enumerate(zip(candidates, values)):
        if not isinstance(row_values, (list, tuple)) or len(row_values) != len(row):
            got = f"{len(row_values)} values" if isinstance(row_values, (list, tuple)) else type(row_values).__name__
            raise AugmenterOutputError(
                f"scorer {step!r}: {contract}; source {position} has {len(row)} candidates, got {got}",
                kind=f"scorer {step!r} returned the wrong shape",
            )
    return [list(row_values) for row_values in values]


def _named(step: str, names: tuple[str, ...], value: Any, candidate: Candidate) -> dict[str, float]:
    """``value`` as ``{score name: float}``, after checking it is what the scorer declares."""
    if isinstance(value, Mapping):
        if set(value) != set(names):
            raise AugmenterOutputError(
                f"scorer {step!r} gave {candidate.text[:60]!r} the scores {sorted(value)}; it declares {list(names)}",
                kind=f"scorer {step!r} returned undeclared scores",
            )
        pairs = [(name, value[name]) for name in names]
    elif len(names) == 1:
        pairs = [(names[0], value)]
    else:
        raise AugmenterOutputError(
            f"scorer {step!r} declares {len(names)} scores ({', '.join(names)}): give each candidate a mapping "
            f"of score name to number, not {type(value).__name__}",
            kind=f"scorer {step!r} returned {type(value).__name__}",
        )
    named = {}
    for name, number in pairs:
        if isinstance(number, bool) or not isinstance(number, Real) or not math.isfinite(number):
            raise AugmenterOutputError(
                f"scorer {step!r} gave {candidate.text[:60]!r} the score {name} = {number!r}; scores are finite numbers",
                kind=f"scorer {step!r} returned a score that is not a finite number",
            )
        named[name] = float(number)
    return named


def check_model_and_device(step: str, model: Any, device: Any, kind: str) -> None:
    """A model-backed step's ``model`` (a ``kind`` id or directory) and ``device``, checked
    at construction so that a typo fails before any model loads."""
    from augkit.errors import InvalidParameterError

    if not isinstance(model, str) or not model.strip():
        raise InvalidParameterError(f"{step}: model must be {kind} id or directory, got {model!r}")
    if not isinstance(device, str) or not device.strip():
        raise InvalidParameterError(f"{step}: device must be 'cpu', 'cuda', 'cuda:N' or 'auto', got {device!r}")
