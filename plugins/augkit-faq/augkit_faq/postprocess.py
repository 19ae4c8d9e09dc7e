"""Post-processing of generated candidates (Ng 2021, section 3.8): restore each abbreviation's
long form as the source question wrote it, then keep candidates unique, against the source
question and against each other."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from augkit_faq.abbreviations import restore

_SPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.?!]+$")


@dataclass(frozen=True)
class ProcessedCandidate:
    """A generated text after restoration; ``duplicate`` when it repeats the source question
    or an earlier candidate (letter case, spacing and final punctuation aside)."""

    text: str
    duplicate: bool


def comparison_key(text: str) -> str:
    """What two texts must share to count as the same question: "How do I pay?" and
    "how do i  pay" are one."""
    return _TRAILING.sub("", _SPACE.sub(" ", text).strip()).casefold()


def process_candidates(source: str, terms: dict[str, str], generated: Sequence[str]) -> list[ProcessedCandidate]:
    """Every generated text, restored, in generation order; empty texts are dropped."""
    seen = {comparison_key(source)}
    processed = []
    for text in generated:
        restored = _SPACE.sub(" ", restore(text, terms)).strip()
        if not restored:
            continue
        key = comparison_key(restored)
        processed.append(ProcessedCandidate(restored, key in seen))
        seen.add(key)
    return processed
