"""Order each source's candidates by a weighted sum of normalised scores; keep the best."""

from __future__ import annotations

import math
from typing import Any

from augkit.errors import InputError, InvalidParameterError
from augkit.steps.candidate import Candidate
from augkit.steps.drop_reasons import keep_first
from augkit.steps.filter import Filter, check_sources
from augkit.steps.params import did_you_mean

#: How each score is put on a common scale before weighting (see :class:`RankFilter`).
NORMALIZATIONS = ("minmax", "zscore", "raw")
#: Where the weights come from (see :class:`RankFilter`).
WEIGHTINGS = ("given", "inverse_std")


class RankFilter(Filter):
    """Ranks each source's candidates by a weighted sum of named scores; keeps the best ``k``.

    Weights are keyword arguments named after scores that earlier steps add:
    ``rank(semantic=4.0, fluency=8.0, diversity=1.2)`` in a pipeline string,
    ``RankFilter(semantic=4.0, diversity=1.2)`` in Python. A negative weight prefers low
    values. For each source separately, every weighted score is first normalised over that
    source's candidates that reach this step (``normalize``), then::

        rank = sum(weight[s] * normalised[s] for each weighted score s)

    Candidates are ordered by ``rank``, highest first; ties keep the order they arrived in
    (generation order). ``rank`` is added as a score (column ``augkit_rank``).

    Normalisation, per source, over the ``m`` candidates of that source reaching ``rank``:

    - ``minmax`` (default): ``(x - min) / (max - min)``, so each score spans 0..1 and the
      weights alone say how much each matters; 0 for every candidate when all ``m`` values
      are equal (one candidate, or a score that does not separate them).
    - ``zscore``: ``(x - mean) / std`` with the population standard deviation (divided by
      ``m``); 0 when the std is 0.
    - ``raw``: the values as the scorers gave them.

    ParaMac (Liu et al., 2022, equation 3 and appendix A) combines *raw* scores,
    ``4.0 * s_sem + 8.0 * s_flu + 1.2 * s_div``, its weights set by hand inversely
    proportional to each score's standard deviation over 500 of its outputs "to avoid one
    score totally overwhelming the other": ``rank(semantic=4, fluency=8, diversity=1.2,
    normalize=raw)`` is its formula. Those weights fit its own scorers' spreads (BERTScore,
    GPT-2); with other scorers ``minmax`` or ``zscore`` puts every score on one scale so
    that the weights alone say what matters, which is why ``minmax`` is the default.
    Weights cannot be named after the other parameters.

    With ``weighting="inverse_std"`` each weight is divided by its score's standard deviation
    (population, of the normalised values) over the candidates that reach ``rank`` for the
    run's first originals, in the data's order, until at least ``calibration_candidates``
    (500, as ParaMac's appendix) are seen: ParaMac's rule for setting its weights, done on the
    run's own candidates. ``rank(bertscore=1, fluency=1, diversity=1, normalize="raw",
    weighting="inverse_std")`` is exactly it; other weights scale it. The calibrated weights
    are :attr:`effective_weights`. Calibration happens once, before the run
    (:meth:`augkit.Pipeline.prepare`), so it needs the whole input up front and does not
    depend on batching.

    Normalised values depend only on a source's own candidates, so results do not depend on
    the batch. Every weighted score must be added by an earlier step (checked when the
    pipeline is built, naming the steps that add scores) and carried by every candidate
    (checked at run time).

    ``top_k`` is this ranker with raw scores, its weights given as one mapping and every score
    weighed 1 when none is given (:class:`~augkit.filters.top_k.TopKFilter`).

    Parameters
    ----------
    k : int, optional
        Candidates kept per source, best first; None (default) keeps them all, ranked, and
        the pipeline then keeps the run's ``n`` best.
    normalize : str
        ``minmax`` (per source, default), ``zscore`` (per source) or ``raw``.
    weighting : str
        ``given`` (default): the weights as given; ``inverse_std``: each divided by its
        score's spread over the run's first candidates (see above).
    calibration_candidates : int
        How many candidates ``inverse_std`` measures spreads on (at least; whole sources).
    **weights : float
        One weight per score name, e.g. ``semantic=4.0``; at least one.
    """

    name = "rank"
    scores = ("rank",)

    def __init__(self, k: int | None = None, normalize: str = "minmax", weighting: str = "given",
                 calibration_candidates: int = 500, **weights: float):
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise InvalidParameterError(f"rank: k must be an integer >= 1 (candidates kept per source) or None, got {k!r}")
        if normalize not in NORMALIZATIONS:
            raise InvalidParameterError(
                f"rank: normalize must be one of {', '.join(NORMALIZATIONS)}, got {normalize!r}"
                + did_you_mean(str(normalize), NORMALIZATIONS)
            )
        if weighting not in WEIGHTINGS:
            raise InvalidParameterError(f"rank: weighting must be one of {', '.join(WEIGHTINGS)}, got {weighting!r}"
                                        + did_you_mean(str(weighting), WEIGHTINGS))
        if isinstance(calibration_candidates, bool) or not isinstance(calibration_candidates, int) or calibration_candidates < 2:
            raise InvalidParameterError(f"rank: calibration_candidates must be an integer >= 2, got {calibration_candidates!r}")
        if not weights:
            raise InvalidParameterError(
                "rank: give at least one weight named after a score, e.g. rank(semantic=4.0, diversity=1.2)"
            )
        for score, weight in weights.items():
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
                hint = did_you_mean(score, ("k", "normalize", "weighting", "calibration_candidates"), kind="parameter")
                raise InvalidParameterError(f"rank: the weight of score {score!r} must be a finite number, got {weight!r}{hint}")
        self._configure(k, normalize, weighting, calibration_candidates, weights)

    def _configure(self, k: int | None, normalize: str, weighting: str, calibration_candidates: int,
                   weights: dict[str, float]) -> None:
        """Set the checked parameters (``top_k`` checks its own and sets them here too)."""
        self.k = k
        self.normalize = normalize
        self.weights: dict[str, float] = {score: float(weight) for score, weight in weights.items()}
        self.weighting = weighting
        self._calibration_size = calibration_candidates
        self.calibration_candidates = calibration_candidates if weighting == "inverse_std" else 0
        #: The weights ranking uses: :attr:`weights`, or after ``inverse_std`` calibration each
        #: divided by its score's spread (None until calibrated).
        self.effective_weights: dict[str, float] | None = dict(self.weights) if weighting == "given" else None
        #: Per weighted score, its spread over the calibration candidates (inverse_std only).
        self.calibration_spreads: dict[str, float] = {}

    def get_params(self) -> dict[str, Any]:
        """The weights (by score name), then the other parameters."""
        return {**self.weights, "k": self.k, "normalize": self.normalize, "weighting": self.weighting,
                "calibration_candidates": self._calibration_size}

    def calibrate(self, sources: list[str], candidates: list[list[Candidate]]) -> None:
        """Divide each weight by its score's population standard deviation over ``candidates``
        (normalised per source as ranking does): ParaMac's inverse-spread weights."""
        count = sum(map(len, candidates))
        if count < 2:
            raise InputError(
                f"rank: weighting='inverse_std' measures each score's spread over the run's first candidates, but only "
                f"{count} reached rank (from {len(sources)} originals); give the weights instead (weighting='given')"
            )
        spreads: dict[str, float] = {}
        for score in self.weights:
            values = [v for row in candidates if row for v in normalize_scores(self._values(score, row), self.normalize)]
            mean = math.fsum(values) / len(values)
            spreads[score] = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
        flat = [score for score, spread in spreads.items() if spread == 0]
        if flat:
            raise InputError(
                f"rank: weighting='inverse_std': the score(s) {', '.join(flat)} have the same value on all {count} "
                "calibration candidates, so their spread gives no weight; give the weights instead (weighting='given')"
            )
        self.calibration_spreads = spreads
        self.effective_weights = {score: weight / spreads[score] for score, weight in self.weights.items()}

    def reads_scores(self) -> tuple[str, ...]:
        return tuple(self.weights)

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        check_sources(self.name, [source], [candidates])
        if not candidates:
            return []
        weights = self._weights_for(candidates)
        columns = {score: self._values(score, candidates) for score in weights}
        normalised = {score: normalize_scores(values, self.normalize) for score, values in columns.items()}
        (added,) = self.scores
        for position, candidate in enumerate(candidates):
            candidate.scores[added] = math.fsum(weight * normalised[score][position] for score, weight in weights.items())
        ranked = sorted(candidates, key=lambda c: -c.scores[added])  # stable: ties keep arrival order
        return ranked if self.k is None else keep_first(ranked, self.k, "k")

    def _weights_for(self, candidates: list[Candidate]) -> dict[str, float]:
        """The weights that rank one source's ``candidates``: :attr:`effective_weights`."""
        if self.effective_weights is None:
            raise InputError(
                "rank(weighting='inverse_std') sets its weights from the run's candidates before the run: run it through "
                "augkit.augment (or call Pipeline.prepare first when driving a pipeline by hand)"
            )
        return self.effective_weights

    def _values(self, score: str, candidates: list[Candidate]) -> list[float]:
        values = []
        for candidate in candidates:
            value = candidate.scores.get(score)
            if value is None:
                have = ", ".join(sorted(candidate.scores)) or "none"
                raise InputError(
                    f"{self.name} weighs the score {score!r}, but the candidate {candidate.text[:60]!r} has none "
                    f"(its scores: {have}); the step that adds {score!r} must run on every candidate before {self.name}"
                )
            if not math.isfinite(value):
                raise InputError(f"{self.name}: the candidate {candidate.text[:60]!r} has {score} = {value!r}; "
                                 "scores must be finite")
            values.append(float(value))
        return values


def normalize_scores(values: list[float], how: str) -> list[float]:
    """One score of a source's candidates put on a common scale (see :class:`RankFilter`).

    >>> normalize_scores([1.0, 3.0, 2.0], "minmax")
    [0.0, 1.0, 0.5]
    >>> normalize_scores([1.0, 3.0], "zscore")
    [-1.0, 1.0]
    """
    if how == "raw":
        return list(values)
    if how == "minmax":
        low, high = min(values), max(values)
        return [0.0 if high == low else (value - low) / (high - low) for value in values]
    if how == "zscore":
        mean = math.fsum(values) / len(values)
        std = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / len(values))
        return [0.0 if std == 0 else (value - mean) / std for value in values]
    raise InvalidParameterError(f"normalize must be one of {', '.join(NORMALIZATIONS)}, got {how!r}")
