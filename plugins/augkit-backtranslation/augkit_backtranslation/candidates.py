"""What a round trip returns for one input: candidate paraphrases with their provenance."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RoundTripCandidate:
    """One back-translated candidate of a source text.

    ``score`` is the candidate's dual score per token (higher is better; see
    ``docs/methods/backtranslation.md``) or ``None`` when the engine gives no scores
    (``bergamot``).
    """

    text: str
    pivot: str
    pivot_text: str
    score: float | None = None
