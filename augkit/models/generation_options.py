"""Checking a generation's options before any model runs: beams, samples, probabilities, the
sources whose words a paraphrase may not copy; a bad value is an error naming the option."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from augkit.errors import InvalidParameterError


def check_generation_options(num_beams, num_return, do_sample, top_p, seeds, count, top_k=None) -> None:
    for name, value in (("num_beams", num_beams), ("num_return", num_return)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}")
    if not do_sample and num_return > num_beams:
        raise InvalidParameterError(f"beam search returns at most num_beams sequences: num_return={num_return} > num_beams={num_beams}")
    if top_p is not None and not 0 < top_p <= 1:
        raise InvalidParameterError(f"top_p must be in (0, 1], got {top_p!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0):
        raise InvalidParameterError(f"top_k must be an integer >= 0 (0: no top-k cut), got {top_k!r}")
    if seeds is not None and len(seeds) != count:
        raise InvalidParameterError(f"seeds must have one seed per text: {len(seeds)} seeds for {count} texts")


def checked_probability(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or not 0 <= value <= 1:
        raise InvalidParameterError(
            f"forbid_source_unigrams must be a probability between 0 and 1 (0: off), got {value!r}")
    return float(value)


def checked_unigram_sources(sources: Sequence[str] | None, texts: Sequence[str]) -> Sequence[str]:
    if sources is None:
        return texts
    if isinstance(sources, str) or len(sources) != len(texts):
        count = "a string" if isinstance(sources, str) else f"{len(sources)} sources"
        raise InvalidParameterError(f"unigram_sources must have one text per input: {count} for {len(texts)} texts")
    wrong = [i for i, source in enumerate(sources) if not isinstance(source, str)]
    if wrong:
        raise InvalidParameterError(f"unigram_sources must be texts; not at positions {wrong[:10]}")
    return sources
