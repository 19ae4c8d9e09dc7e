"""Drop candidates too close to their source in edit distance: the MT-parabank filter, and
augkit's one edit-ratio rule (the parabank builder and back-translation's ``min_edit_ratio``
use it through :meth:`EditRatioFilter.ratio` and :meth:`EditRatioFilter.keeps`)."""

from __future__ import annotations

from augkit.errors import InvalidParameterError
from augkit.steps.candidate import Candidate
from augkit.steps.drop_reasons import outside
from augkit.steps.filter import Filter, check_sources

_LEVELS = ("char", "word")


class EditRatioFilter(Filter):
    """Keeps candidates whose edit-distance ratio to their source is at least ``min``.

    The ratio is the edit distance between candidate and source divided by the source's
    length (:func:`augkit.metrics.edit_distance_ratio`); the MT-parabank paper keeps pairs
    with a ratio of at least 12% to ensure diversity. Adds the score ``edit_ratio``.

    Parameters
    ----------
    min : float
        Lowest ratio kept.
    max : float, optional
        Highest ratio kept (None: no bound); catches candidates that rewrote everything.
    level : str
        ``char`` (characters, as the paper) or ``word`` (words).
    """

    name = "edit_ratio"
    scores = ("edit_ratio",)

    def __init__(self, min: float = 0.12, max: float | None = None, level: str = "char"):
        for label, value in (("min", min), ("max", max)):
            if label == "max" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InvalidParameterError(f"edit_ratio: {label} must be a number >= 0, got {value!r}")
        if max is not None and min > max:
            raise InvalidParameterError(f"edit_ratio: min ({min}) is above max ({max})")
        if level not in _LEVELS:
            raise InvalidParameterError(f"edit_ratio: level must be one of {', '.join(_LEVELS)}, got {level!r}")
        self.min = float(min)
        self.max = None if max is None else float(max)
        self.level = level

    def ratio(self, source: str, text: str) -> float:
        """The edit-distance ratio of ``text`` to ``source`` at this filter's ``level``.

        >>> EditRatioFilter().ratio("How do I pay?", "How do I pay")
        0.07692307692307693
        """
        from augkit.metrics import edit_distance_ratio

        return edit_distance_ratio(text, source, level=self.level)

    def keeps(self, ratio: float) -> bool:
        """Whether a candidate with this ratio passes: ``min <= ratio <= max``."""
        return self.min <= ratio and (self.max is None or ratio <= self.max)

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        check_sources(self.name, [source], [candidates])
        kept = []
        for candidate in candidates:
            ratio = self.ratio(source, candidate.text)
            candidate.scores[self.name] = ratio
            if self.keeps(ratio):
                kept.append(candidate)
            else:
                candidate.drop_reason = outside(
                    f"{self.level} edit ratio", ratio, ("min", self.min), None if self.max is None else ("max", self.max))
        return kept
