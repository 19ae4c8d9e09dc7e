"""Rank candidates by a weighted sum of the scores earlier filters gave them; keep the best."""

from __future__ import annotations

from collections.abc import Mapping

from augkit.errors import InputError, InvalidParameterError
from augkit.steps.candidate import Candidate
from augkit.steps.drop_reasons import keep_first
from augkit.steps.filter import Filter, check_sources


class TopKFilter(Filter):
    """Ranks each source's candidates by a weighted sum of their scores and keeps the best k.

    The rank score is ``sum(weight * score)`` over the named scores, best first (ties keep
    the generator's order).

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
        self.k = k
        self.weights = _parse_weights(weights)

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        check_sources(self.name, [source], [candidates])
        for candidate in candidates:
            candidate.scores["rank_score"] = self._rank_score(candidate)
        ranked = sorted(candidates, key=lambda c: -c.scores["rank_score"])
        return ranked if self.k is None else keep_first(ranked, self.k, "k")

    def _rank_score(self, candidate: Candidate) -> float:
        scores = {name: value for name, value in candidate.scores.items() if name != "rank_score"}
        weights = self.weights if self.weights is not None else dict.fromkeys(scores, 1.0)
        missing = sorted(set(weights) - set(scores))
        if missing:
            have = ", ".join(sorted(scores)) or "none"
            raise InputError(
                f"top_k ranks by {', '.join(missing)}, but no earlier filter scored the candidate "
                f"{candidate.text[:60]!r} (its scores: {have}); put the filter that computes it before top_k"
            )
        return float(sum(weight * scores[name] for name, weight in weights.items()))


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
