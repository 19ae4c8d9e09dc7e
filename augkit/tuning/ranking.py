"""From a tune job's runs to its answer: configurations ranked by paired validation gain.

A configuration's gain on a split is its validation accuracy minus ``none``'s on the same
split (same training rows before augmentation, same validation rows), in points. Over the
splits both were measured on: the mean gain and its sample standard deviation (the spread).
The recommendation is the configuration with the highest mean gain among those whose gain
is positive, larger than its spread over at least two splits, and worth at least one
validation row per split (:mod:`augkit.tuning.resolution`); when none is, it is, honestly, no
augmentation.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from augkit.tuning.job import RunRecord
from augkit.tuning.resolution import row_points
from augkit.tuning.space import NONE, Configuration

RANKING_COLUMNS = ("rank", "configuration", "pipeline", "n", "weight", "training", "splits", "accuracy", "gain", "gain_sd", "macro_f1", "verdict")


@dataclass(frozen=True)
class Ranking:
    """The ranked table (a DataFrame, :data:`RANKING_COLUMNS`; accuracy and macro-F1 as
    percentages, gains in points) and the recommended configuration (None: no augmentation)."""

    table: Any
    recommended: Configuration | None


def rank(configurations: Sequence[Configuration], records: Sequence[RunRecord], valid_rows: int | None = None) -> Ranking:
    """Rank every configuration measured on at least one split, ``none`` included (gain 0).
    ``valid_rows``: the rows each split validates on, when known; a gain under one of them
    (:func:`~augkit.tuning.resolution.row_points`) never beats none."""
    import pandas as pd

    by_key = {record.key: record for record in records}
    splits = sorted({record.split for record in records})
    rows = []
    for configuration in configurations:
        measured = [by_key[(s, configuration.label)] for s in splits if (s, configuration.label) in by_key]
        if not measured:
            continue
        gains = [100 * (by_key[(r.split, configuration.label)].accuracy - by_key[(r.split, NONE)].accuracy)
                 for r in measured if (r.split, NONE) in by_key]
        rows.append({
            "configuration": configuration.label,
            "pipeline": configuration.pipeline or NONE,
            "n": configuration.n,
            "weight": configuration.weight if configuration.pipeline else None,
            "training": configuration.training if configuration.pipeline else None,
            "splits": len(measured),
            "accuracy": round(100 * statistics.fmean(r.accuracy for r in measured), 2),
            "gain": round(statistics.fmean(gains), 2) if gains else None,
            "gain_sd": round(statistics.stdev(gains), 2) if len(gains) >= 2 else None,
            "macro_f1": round(100 * statistics.fmean(r.macro_f1 for r in measured), 2),
            "_configuration": configuration,
        })
    # ties: none first (the simpler answer), then the smaller spread, then by name
    rows.sort(key=lambda row: (-_or(row["gain"], float("-inf")), row["pipeline"] != NONE, _or(row["gain_sd"], float("inf")),
                               row["configuration"]))
    recommended = None
    for position, row in enumerate(rows, start=1):
        row["rank"] = position
        row["verdict"] = _verdict(row, None if valid_rows is None else row_points(valid_rows))
        if recommended is None and row["verdict"] == "beats none":
            recommended = row["_configuration"]
    table = pd.DataFrame([{name: row[name] for name in RANKING_COLUMNS} for row in rows], columns=list(RANKING_COLUMNS))
    for column in ("weight", "gain", "gain_sd"):
        table[column] = table[column].astype(float)
    return Ranking(table, recommended)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


#: The verdict of a gain beyond its spread but smaller than one validation row per split.
UNDER_ONE_ROW = "under one row"


def _verdict(row: dict, step: float | None) -> str:
    if row["pipeline"] == NONE:
        return "baseline"
    gain, spread = row["gain"], row["gain_sd"]
    if gain is None:
        return "no paired none"
    if spread is None:
        return "one split: spread unknown"
    if gain > spread and gain > 0:
        # gains are rounded to 0.01, so one row (14.2857...) shows as 14.29
        return UNDER_ONE_ROW if step is not None and gain < round(step, 2) else "beats none"
    return "worse than none" if gain < -spread else "within spread"
