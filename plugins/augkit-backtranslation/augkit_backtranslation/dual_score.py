"""Dual scoring (Hao et al., 2022, ParaZh-22M: the MT-parabank paper, §2.4): rank a translation by its forward probability
plus the reverse model's teacher-forced probability of the source given the translation,
per token. Round trips chain two translations, so a back-translated candidate gets both
legs scored both ways.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from augkit.plugin import TargetScore

#: How candidates are ranked: ``dual`` (forward + reverse, both legs), ``forward``
#: (the generation probability of both legs only) or ``none`` (beam order).
SCORINGS = ("dual", "forward", "none")


def per_token(scores: Sequence[TargetScore]) -> float:
    """Summed log-probability of several scored sequences over their summed tokens: the
    paper's "per-token probability" of p_dual = p_forward + p_reverse, in log space."""
    return sum(score.logprob for score in scores) / sum(score.tokens for score in scores)


def round_trip_terms(
    scoring: str,
    pivot_given_source: TargetScore,
    source_given_pivot: TargetScore,
    candidate_given_pivot: TargetScore,
    pivot_given_candidate: TargetScore,
) -> list[TargetScore]:
    """The scores that enter a round-trip candidate's rank under ``scoring``.

    For source s, pivot translation p and back-translation c: ``forward`` uses
    log P(p|s) and log P(c|p), the probabilities the two translation steps generated with;
    ``dual`` adds each step's reverse, log P(s|p) under the pivot->source model and
    log P(p|c) under the source->pivot model, which penalises a step that dropped or
    invented content (the under-translation the paper's dual scoring targets).
    """
    forward = [pivot_given_source, candidate_given_pivot]
    if scoring == "forward":
        return forward
    if scoring == "dual":
        return [*forward, source_given_pivot, pivot_given_candidate]
    raise ValueError(f"no score terms for scoring={scoring!r}")
