"""The words a filter gives a candidate it drops (:attr:`Candidate.drop_reason`, the trace's
``reason`` column), written once so every filter says it the same way: the value measured and
the parameter it broke, ``"semantic similarity 0.41 below min=0.5"``, or the place a ranked
candidate came in, ``"rank 5 of 7 beyond k=4"``."""

from __future__ import annotations

from augkit.steps.candidate import Candidate

#: Most decimals a measured value is shown with: enough to tell 0.49996 from a bound of 0.5.
_MOST_DECIMALS = 6
#: Decimals a measured value is shown with when two already show it on its side of the bound.
_FEWEST_DECIMALS = 2


def below(measure: str, value: float, parameter: str, bound: float) -> str:
    """A value under the lowest one kept.

    >>> below("semantic similarity", 0.41237, "min", 0.5)
    'semantic similarity 0.41 below min=0.5'
    >>> below("edit ratio", 0.11996, "min", 0.12)
    'edit ratio 0.11996 below min=0.12'
    """
    return f"{measure} {_shown(value, bound, below=True)} below {parameter}={bound:g}"


def above(measure: str, value: float, parameter: str, bound: float) -> str:
    """A value over the highest one kept.

    >>> above("semantic similarity", 0.991, "max", 0.98)
    'semantic similarity 0.99 above max=0.98'
    """
    return f"{measure} {_shown(value, bound, below=False)} above {parameter}={bound:g}"


def outside(measure: str, value: float, low: tuple[str, float] | None, high: tuple[str, float] | None) -> str:
    """Why ``value`` falls outside ``[low, high]`` (each a parameter name and its bound, None:
    no bound on that side), or ``""`` when it lies inside.

    >>> outside("length ratio", 2.5, ("min", 0.5), ("max", 2.0))
    'length ratio 2.50 above max=2'
    >>> outside("length ratio", 1.0, ("min", 0.5), ("max", 2.0))
    ''
    """
    if low is not None and value < low[1]:
        return below(measure, value, *low)
    if high is not None and value > high[1]:
        return above(measure, value, *high)
    return ""


def beyond(place: int, total: int, parameter: str, bound: int, what: str = "rank") -> str:
    """A candidate cut because only the first ``bound`` of ``total`` are kept (``place`` counts
    from 1).

    >>> beyond(5, 7, "k", 4)
    'rank 5 of 7 beyond k=4'
    """
    return f"{what} {place} of {total} beyond {parameter}={bound}"


def keep_first(ranked: list[Candidate], count: int, parameter: str, what: str = "rank") -> list[Candidate]:
    """The first ``count`` of ``ranked``; each candidate cut gets its place as its
    :attr:`~Candidate.drop_reason` (``"rank 5 of 7 beyond k=4"``)."""
    if len(ranked) <= count:
        return ranked
    for place, candidate in enumerate(ranked[count:], start=count + 1):
        candidate.drop_reason = beyond(place, len(ranked), parameter, count, what)
    return ranked[:count]


def _shown(value: float, bound: float, *, below: bool) -> str:
    """``value`` with two decimals, or as many more as it takes to show it on its side of
    ``bound`` (0.49996 is not "0.50 below min=0.5"); a count as it is."""
    if isinstance(value, int):
        return str(value)
    for decimals in range(_FEWEST_DECIMALS, _MOST_DECIMALS + 1):
        shown = f"{value:.{decimals}f}"
        if (float(shown) < bound) if below else (float(shown) > bound):
            return shown
    return repr(float(value))
