"""Names of the provenance columns augkit adds to tables."""

from __future__ import annotations

from collections.abc import Iterable

from augkit.errors import InputError
from augkit.steps.candidate import Candidate

SOURCE_COLUMN = "augkit_source"
METHOD_COLUMN = "augkit_method"


def score_columns(candidates: Iterable[list[Candidate]], declared: Iterable[str] = ()) -> list[str]:
    """``augkit_<score>`` for every score the pipeline declares (``declared``, so the
    columns exist even when no candidate carries them) and every score a candidate
    recorded, in that order."""
    names: dict[str, None] = dict.fromkeys(declared)
    for row in candidates:
        for candidate in row:
            names.update(dict.fromkeys(candidate.scores))
    return [f"augkit_{name}" for name in names]


def check_free_columns(columns: Iterable[str]) -> None:
    """Refuse input that already has provenance columns (e.g. an augkit output fed back),
    rather than overwrite them silently."""
    taken = [c for c in columns if c in (SOURCE_COLUMN, METHOD_COLUMN)]
    if taken:
        raise InputError(
            f"input already has augkit provenance column(s) {', '.join(taken)} "
            "(is it the output of an earlier run?); rename or drop them first"
        )
