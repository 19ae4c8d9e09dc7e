"""What a method hears, in a feedback round, about the candidates a pipeline's filters rejected.

A method that can learn from its rejected candidates (an LLM told which of its examples were
rejected and why) says how many extra rounds it wants (:meth:`augkit.Augmenter.feedback_rounds`);
after the pipeline's filters ran on a batch, each row left with fewer than ``n`` candidates and
some rejected in its last round is asked again through :meth:`augkit.Augmenter.augment_again`,
handed its :class:`RowFeedback`. The rule lives in the pipeline once (:mod:`augkit.pipeline.run`);
a method only writes its next round.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rejection:
    """A candidate a filter dropped: its ``text``, the ``step`` that dropped it (its name in the
    trace and counts: ``label_integrity``, ``semantic#2``) and the ``reason`` that step gave
    (its :attr:`~augkit.Candidate.drop_reason`, else its :meth:`~augkit.Filter.explain`; empty
    when it cannot say)."""

    text: str
    step: str
    reason: str = ""


@dataclass(frozen=True)
class RowFeedback:
    """What one row's next round is told: which round it is (1 for the first extra one), every
    candidate of the row rejected so far (earlier rounds first) and the texts kept so far
    (which a new candidate should not repeat)."""

    round: int
    rejected: tuple[Rejection, ...]
    kept: tuple[str, ...] = ()
