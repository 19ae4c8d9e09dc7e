"""``top_k``: the ranker on raw scores, weights given as one mapping (every score by default)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from augkit.errors import InvalidParameterError
from augkit.filters.rank import RankFilter
from augkit.steps.candidate import Candidate


class TopKFilter(RankFilter):
    """Ranks each source's candidates by a weighted sum of their scores and keeps the best k.

    The rank score is ``sum(weight * score)`` over the named scores, best first (ties keep
    the generator's order): :class:`~augkit.filters.rank.RankFilter` with ``normalize="raw"``,
    the one ranker, with its weights given as one mapping and every score weighed 1 when none
    is given.

    Scores come from filters earlier in the pipeline (``semantic``, ``label_integrity``,
    ``edit_ratio``, ``length_ratio``, ...), so ``top_k`` goes last:
    ``eda|semantic|edit_ratio|top_k(weights={'semantic': 1, 'edit_ratio': 0.5})``. A
    negative weight prefers low scores. With oversampling (``Pipeline(...,
    oversample=3)``) the generator proposes more than ``n`` candidates and ``top_k``
    chooses which ``n`` survive. Adds the score ``rank_score``.

    Parameters
    ----------
    k : int, optional
        Candidates kept per source (None: all, ranked; the pipeline still keeps at most n).
    weights : dict or str, optional
        Score name to weight, as a dict or as ``"semantic=1,edit_ratio=0.5"``; None weighs
        every score the candidates carry equally.
    """

    name = "top_k"
    scores = ("rank_score",)

    def __init__(self, k: int | None = None, weights: Mapping[str, float] | str | None = None):
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise InvalidParameterError(f"top_k: k must be an integer >= 1 or None, got {k!r}")
        given = _parse_weights(weights)
        self._configure(k, "raw", "given", 0, given or {})
        #: The weights as given (None: every score the candidates carry, weight 1).
        self.given_weights = given

    def get_params(self) -> dict[str, Any]:
        return {"k": self.k, "weights": self.given_weights}

    def _weights_for(self, candidates: list[Candidate]) -> dict[str, float]:
        """The given weights, or weight 1 for every score the source's candidates carry
        (:meth:`RankFilter._values` names a candidate that lacks one)."""
        if self.given_weights is not None:
            return self.given_weights
        carried = (name for candidate in candidates for name in candidate.scores if name not in self.scores)
        return dict.fromkeys(carried, 1.0)


def _parse_weights(weights: Mapping[str, float] | str | None) -> dict[str, float] | None:
    if weights is None:
        return None
    if isinstance(weights, str):
        pairs = {}
        for part in filter(None, (p.strip() for p in weights.split(","))):
            name, equals, value = part.partition("=")
            try:
                if not equals:
                    raise ValueError
                pairs[name.strip()] = float(value)
            except ValueError:
                raise InvalidParameterError(f"top_k: weights must read 'score=weight,...', got {weights!r}") from None
        weights = pairs
    if not isinstance(weights, Mapping) or not weights:
        raise InvalidParameterError(f"top_k: weights must be a non-empty mapping of score name to weight, got {weights!r}")
    checked = {}
    for name, value in weights.items():
        if not isinstance(name, str) or isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidParameterError(f"top_k: weight {name!r}: {value!r} is not score name -> number")
        checked[name] = float(value)
    return checked
