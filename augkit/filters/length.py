"""Keep candidates whose length stays within bounds relative to their source."""

from __future__ import annotations

from augkit.errors import InvalidParameterError
from augkit.steps.candidate import Candidate
from augkit.steps.drop_reasons import below, outside
from augkit.steps.filter import Filter, check_sources
from augkit.text import split_words

_UNITS = ("words", "chars")


class LengthFilter(Filter):
    """Keeps candidates whose length relative to their source's lies in [min, max].

    Length counts words or characters. Catches generators that truncate a sentence or run
    on. Adds the score ``length_ratio``.

    Parameters
    ----------
    min : float
        Shortest candidate kept, as a fraction of the source's length (formerly ``min_ratio``,
        still accepted with a warning).
    max : float
        Longest candidate kept, as a multiple of the source's length (formerly ``max_ratio``).
    unit : str
        ``words`` (as augkit's word operations split them) or ``chars``.
    shortest : int
        Shortest candidate kept in ``unit`` whatever its source's length (0: no floor);
        ParaMac drops candidates under 15 characters.
    """

    name = "length"
    scores = ("length_ratio",)

    renamed_parameters = {"min_ratio": "min", "max_ratio": "max"}

    def __init__(self, min: float = 0.5, max: float = 2.0, unit: str = "words", shortest: int = 0):
        for label, value in (("min", min), ("max", max)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InvalidParameterError(f"length: {label} must be a number >= 0, got {value!r}")
        if min > max:
            raise InvalidParameterError(f"length: min ({min}) is above max ({max})")
        if unit not in _UNITS:
            raise InvalidParameterError(f"length: unit must be one of {', '.join(_UNITS)}, got {unit!r}")
        if isinstance(shortest, bool) or not isinstance(shortest, int) or shortest < 0:
            raise InvalidParameterError(f"length: shortest must be an integer >= 0, got {shortest!r}")
        self.min = float(min)
        self.max = float(max)
        self.unit = unit
        self.shortest = shortest

    def _length(self, text: str) -> int:
        return len(split_words(text).words) if self.unit == "words" else len(text)

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        check_sources(self.name, [source], [candidates])
        source_length = max(self._length(source), 1)
        kept = []
        for candidate in candidates:
            length = self._length(candidate.text)
            ratio = length / source_length
            candidate.scores["length_ratio"] = ratio
            if self.min <= ratio <= self.max and length >= self.shortest:
                kept.append(candidate)
            else:
                ratio_reason = outside("length ratio", ratio, ("min", self.min), ("max", self.max))
                candidate.drop_reason = (
                    f"{ratio_reason} ({length} {self.unit} for the source's {source_length})" if ratio_reason
                    else below(f"length in {self.unit}", length, "shortest", self.shortest)
                )
        return kept
