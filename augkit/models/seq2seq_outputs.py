"""What a sequence-to-sequence model gives back: generated texts with their scores
(:class:`GenerationResult`) and a teacher-forced target's score (:class:`TargetScore`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TargetScore:
    """Teacher-forced log-probability of a target given its source: ``logprob`` is the sum
    of the natural-log probabilities of the target's ``tokens`` tokens (end-of-sequence
    included)."""

    logprob: float
    tokens: int

    @property
    def per_token(self) -> float:
        return self.logprob / self.tokens


@dataclass
class GenerationResult:
    """Outputs of :meth:`Seq2SeqModel.generate`: ``texts[i]`` holds the sequences for
    input ``i`` (``num_return`` of them, fewer only for an empty input); ``split`` and
    ``truncated`` list the inputs that were too long for the model."""

    texts: list[list[str]]
    split: list[int] = field(default_factory=list)
    truncated: list[int] = field(default_factory=list)
