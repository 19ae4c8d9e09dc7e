"""Counts that travel with the rows, for backends that rebuild a run's report from its output.

A ``datasets`` map or a Ray ``map_batches`` runs the engine in other processes, batch by
batch, and hands back only rows. So each source row's first output row carries two helper
columns, dropped afterwards: why the row got no augmentation (``""`` when it got some), and
what each pipeline step did to its candidates (:attr:`augkit.Pipeline.count_names`, as
comma-separated integers). :func:`report_from_columns` sums them into the run's report.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence

from augkit.reporting.report import AugmentationReport
from augkit.reporting.trace import TraceEntry, entry_from_tuple

REASON_COLUMN = "__augkit_reason"
COUNTS_COLUMN = "__augkit_counts"
#: A source row's trace (:mod:`augkit.reporting.trace`), as JSON, when the run keeps one.
TRACE_COLUMN = "__augkit_trace"


def encode_traces(entries: Sequence[TraceEntry]) -> str:
    """One source row's trace entries as carried in :data:`TRACE_COLUMN`."""
    return json.dumps([entry.as_tuple() for entry in entries])


def decode_traces(encoded: str | None, source: object) -> list[TraceEntry]:
    """The entries :func:`encode_traces` wrote, named after ``source``."""
    if not isinstance(encoded, str) or not encoded:
        return []
    return [entry_from_tuple(fields, source) for fields in json.loads(encoded)]


def encode_counts(counts: Sequence[int]) -> str:
    """One row's step counts as carried in :data:`COUNTS_COLUMN`."""
    return ",".join(map(str, counts))


def report_from_columns(
    *, rows: int, keep_original: bool, n: int, count_names: Sequence[str], augmentations: int, rows_augmented: int,
    reasons: Sequence[str | None], counts: Iterable[str | None], sources: Sequence[object], texts: Sequence[object],
    seed: int | None,
) -> AugmentationReport:
    """The run's report from the carried columns (each value once per source row; None and
    ``""`` on the other rows), the output's own counts, and the source and text of each
    row that carries a reason (aligned with ``reasons``, to name the rows
    :func:`augkit.reporting.report.names_rows`)."""
    report = AugmentationReport(rows_read=rows, original_rows_written=rows if keep_original else 0, n=n, seed=seed,
                                augmentations=augmentations, rows_augmented=rows_augmented)
    report.without_augmentation = Counter(reason for reason in reasons if isinstance(reason, str) and reason)
    report.note_examples(reasons, texts, sources)
    totals = [0] * len(count_names)
    for encoded in counts:
        if isinstance(encoded, str) and encoded:
            for position, value in enumerate(encoded.split(",")):
                totals[position] += int(value)
    report.candidates = dict(zip(count_names, totals))
    return report
