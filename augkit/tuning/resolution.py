"""How finely a tune job's validation splits can tell configurations apart.

A split validates on ``V`` rows, so a configuration's accuracy there moves in steps of one
row, ``100 / V`` points, and so does its gain over ``none``; the mean over ``S`` splits moves
in steps of ``100 / (V * S)``. A gain smaller than one row per split on average is erased by
a single row read otherwise. When nothing beats ``none``, one row of a split is worth more
than every configuration's gain and spread (all tied, typically), and the splits together
hold fewer rows than it takes to show gains of :data:`POINTS_WANTED`, the splits are too small
to tell the configurations apart: the honest answer says so, with what would, more rows.

The rows wanted: enough that one row weighs at most :data:`POINTS_WANTED` in the mean over the
splits. Gains of augkit's pipelines on few-shot intent data stay under a point
(docs/benchmarks/fewshot.md: 7 of 120 cells gain beyond their spread, all by less than one
point), so coarser steps cannot show them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Points of accuracy one validation row may weigh in the mean over the splits, for gains of
#: the size augmentation brings to be visible (see the module docstring).
POINTS_WANTED = 1.0


def row_points(valid_rows: int) -> float:
    """Points of accuracy one of a split's ``valid_rows`` validation rows is worth."""
    return 100 / valid_rows


@dataclass(frozen=True)
class MoreRows:
    """What would validate on enough rows (:data:`POINTS_WANTED`): ``splits`` splits of the
    same rows, or ``rows_per_label`` rows per label (each holding out ``held_per_label``)
    with the splits asked for; ``total``: the validation rows that makes over the splits."""

    splits: int
    rows_per_label: int
    held_per_label: int
    total: int


def more_rows(valid_rows: int, labels: int, splits: int, valid_fraction: float) -> MoreRows:
    """The smallest changes that bring the validation to ``100 / POINTS_WANTED`` rows over
    the splits, from ``splits`` splits of ``valid_rows`` rows over ``labels`` validated labels.

    >>> more_rows(7, labels=7, splits=3, valid_fraction=0.25)
    MoreRows(splits=15, rows_per_label=20, held_per_label=5, total=105)
    """
    wanted = math.ceil(100 / POINTS_WANTED)
    held = math.ceil(wanted / (labels * splits))
    return MoreRows(splits=math.ceil(wanted / valid_rows), rows_per_label=math.ceil(held / valid_fraction),
                    held_per_label=held, total=held * labels * splits)


def too_coarse(valid_rows: int, splits: int, best_gain: float | None, best_spread: float | None) -> bool:
    """Whether the splits cannot tell the configurations apart: one row of a split is worth
    more than the best configuration's gain and spread (all tied with ``none``, typically),
    and the splits hold fewer than ``100 / POINTS_WANTED`` validation rows in all (more rows
    would show finer gains)."""
    step = row_points(valid_rows)
    return step > max(abs(best_gain or 0.0), best_spread or 0.0) and step / splits > POINTS_WANTED
