"""Post-processing of generated candidates (Ng 2021, section 3.8): restore each abbreviation's
long form as the source question wrote it, then keep candidates unique, against the source
question and against each other, by augkit's one duplicate rule (the ``dedup`` filter with the
options :func:`same_question_rule` sets)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from augkit.plugin import ExactDuplicateFilter
from augkit_faq.abbreviations import restore

_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class ProcessedCandidate:
    """A generated text after restoration; ``duplicate`` when it repeats the source question
    or an earlier candidate (letter case, spacing and final punctuation aside)."""

    text: str
    duplicate: bool


def same_question_rule() -> ExactDuplicateFilter:
    """What counts as the same question: "How do I pay?" and "how do i  pay" are one
    (letter case, spacing and final punctuation aside), and so is the question itself.
    As a pipeline step: ``dedup(ignore_case=True, ignore_final_punctuation=True)``."""
    return ExactDuplicateFilter(ignore_case=True, ignore_final_punctuation=True)


def comparison_key(text: str) -> str:
    """What two texts must share to count as the same question (:func:`same_question_rule`'s key).

    >>> comparison_key("How do I  pay?") == comparison_key("how do i pay")
    True
    """
    return same_question_rule().key(text)


def process_candidates(source: str, terms: dict[str, str], generated: Sequence[str]) -> list[ProcessedCandidate]:
    """Every generated text, restored, in generation order; empty texts are dropped."""
    restored = [_SPACE.sub(" ", restore(text, terms)).strip() for text in generated]
    restored = [text for text in restored if text]
    verdicts = same_question_rule().repeats(source, restored)
    return [ProcessedCandidate(text, verdict is not None) for text, verdict in zip(restored, verdicts, strict=True)]
