"""ParaMac's diversity score of each candidate against its source, as a pipeline step."""

from __future__ import annotations

from augkit.errors import InvalidParameterError
from augkit.filters.scorer import Scorer
from augkit.metrics._paramac import PARAMAC_BETAS


class DiversityScorer(Scorer):
    """Adds ParaMac's s_div of each candidate and its source; drops nothing.

    s_div (Liu et al., 2022, equation 2; :func:`augkit.metrics.paramac_diversity`) is
    ``beta1`` times the Jaccard overlap of the two texts' word sets plus ``beta2`` times the
    mean position shift of their shared words over the longer text's word count. Words are
    split on whitespace, case-sensitive, as ParaMac's released code does. Scale about 0..2
    with the default betas. As printed in the paper, the overlap term *rises* with overlap,
    so a high s_div means "similar words, moved around"; ParaMac ranks with a positive
    weight on it (``rank(diversity=1.2)``). Adds the score ``diversity``.

    Parameters
    ----------
    beta1 : float
        Weight of the word overlap (Jaccard) term; 1.0 as in ParaMac's released code.
    beta2 : float
        Weight of the word-order shift term; 1.0 as in ParaMac's released code.
    """

    name = "diversity"
    scores = ("diversity",)

    def __init__(self, beta1: float = PARAMAC_BETAS[0], beta2: float = PARAMAC_BETAS[1]):
        for label, value in (("beta1", beta1), ("beta2", beta2)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidParameterError(f"diversity: {label} must be a number, got {value!r}")
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)

    def score(self, source: str, candidate: str) -> float:
        from augkit.metrics import paramac_diversity

        return paramac_diversity(candidate, source, self.beta1, self.beta2)
