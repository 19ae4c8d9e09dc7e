"""pandas DataFrame in, DataFrame out: original rows plus one row per augmentation.

Each augmented row copies every column of its source row except the text, and adds
``augkit_source`` (the source row's index label) and ``augkit_method``. Original rows keep
every value, dtype and their index label in ``augkit_source`` (their ``augkit_method`` is
missing); each original is followed by its augmentations; the result has a fresh RangeIndex.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from augkit.adapters.carried_counts import (
    COUNTS_COLUMN,
    REASON_COLUMN,
    TRACE_COLUMN,
    encode_counts,
    encode_traces,
)
from augkit.adapters.columns import check_run_columns
from augkit.adapters.provenance import (
    METHOD_COLUMN,
    SOURCE_COLUMN,
    score_columns,
)
from augkit.engine.run import run_pipeline
from augkit.engine.run_options import RunOptions
from augkit.errors import InputError
from augkit.pipeline.pipeline import Pipeline
from augkit.pipeline.row_context import (
    CHANGED_COLUMN,
    LABEL_FROM_COLUMN,
    changed_columns,
)
from augkit.protection.output import realigned_tags
from augkit.reporting.report import AugmentationReport
from augkit.steps.inputs import coerced_text, is_missing


def augment_frame(
    pipeline: Pipeline,
    frame: Any,
    *,
    text_column: str,
    label_column: str | None,
    keep_original: bool,
    options: RunOptions,
    carry_counts: bool = False,
    prepared: bool = False,
    on_rows: Callable[[int], None] | None = None,
    context_columns: dict[str, str] | None = None,
    protect_column: str | None = None,
) -> tuple[Any, AugmentationReport]:
    """Augment ``frame`` (see the module docstring). ``carry_counts`` adds the helper columns
    of :mod:`augkit.adapters.carried_counts` to the original rows (for backends that count
    rows elsewhere; needs ``keep_original``). With ``options.trace`` the report holds the
    trace, each source named by its index label (and carried along with the counts).
    ``context_columns`` maps the logical names the pipeline's augmenters read to columns of
    ``frame`` (:mod:`augkit.pipeline.row_context`). ``protect_column`` holds each row's protected
    spans, phrases or BIO tags (:mod:`augkit.protection`); an augmentation of a row tagged
    BIO gets its own re-aligned tags there."""
    import numpy as np
    import pandas as pd

    mapping = dict(context_columns or {})
    check_run_columns(list(frame.columns), text_column, label_column, protect_column, mapping)
    row_labels = frame.index
    values = frame[text_column].tolist()
    labels = frame[label_column].tolist() if label_column is not None else None
    result = run_pipeline(
        pipeline,
        values,
        options,
        describe_row=lambda i: f"column {text_column!r}, row {row_labels[i]!r}",
        labels=labels,
        columns={name: frame[column].tolist() for name, column in mapping.items()},
        prepared=prepared,
        on_rows=on_rows,
        protect_values=frame[protect_column].tolist() if protect_column is not None else None,
        protect_column=protect_column,
        row_names=row_labels,
    )
    result.report.rename_rows(row_labels.__getitem__)
    if result.traces is not None:
        for position, entries in enumerate(result.traces):
            for entry in entries:
                entry.source = row_labels[position]
        result.report.trace = [entry for entries in result.traces for entry in entries]
    positions, new_texts, methods, made = [], [], [], []
    scores = score_columns(result.candidates, pipeline.score_names)
    score_values: dict[str, list[float]] = {name: [] for name in scores}
    for position, row in enumerate(result.candidates):
        if keep_original:
            positions.append(position)
            new_texts.append(None)
            methods.append(None)
            made.append(None)
            for name in scores:
                score_values[name].append(np.nan)
        for candidate in row:
            positions.append(position)
            new_texts.append(candidate.text)
            methods.append(candidate.method)
            made.append(candidate)
            for name in scores:
                score_values[name].append(candidate.scores.get(name.removeprefix("augkit_"), np.nan))
    out = frame.take(positions).reset_index(drop=True)
    out[text_column] = _text_column(frame[text_column], positions, new_texts)
    out[SOURCE_COLUMN] = row_labels.take(positions).to_numpy(dtype=object) if len(positions) else []
    out[METHOD_COLUMN] = pd.Series(methods, dtype=object)
    for name in scores:
        out[name] = pd.Series(score_values[name], dtype=float)
    if pipeline.rewritten_names or pipeline.label_setters:
        _write_rewrites(out, frame, positions, made, text_column, label_column, mapping, bool(pipeline.label_setters))
    if protect_column is not None and result.protection is not None and any(result.protection.bio):
        tags = realigned_tags(result.protection, positions, made)
        out[protect_column] = _text_column(frame[protect_column], positions, tags)
    if carry_counts:
        originals = [text is None for text in new_texts]
        out[REASON_COLUMN] = pd.Series([result.reasons[p] if first else None for p, first in zip(positions, originals)], dtype=object)
        out[COUNTS_COLUMN] = pd.Series([encode_counts(result.counts[p]) if first else None
                                        for p, first in zip(positions, originals)], dtype=object)
        if result.traces is not None:
            out[TRACE_COLUMN] = pd.Series([encode_traces(result.traces[p]) if first else None
                                           for p, first in zip(positions, originals)], dtype=object)
    result.report.original_rows_written = len(frame) if keep_original else 0
    return out, result.report


def texts_as_strings(column: Any) -> Any:
    """``column`` with every value that is neither a string nor missing replaced by the string
    it was augmented as (:func:`augkit.steps.inputs.coerced_text`): the text column of a file written
    after ``coerce=True``, which Parquet cannot store mixing floats and strings. Missing values
    stay missing; ``column`` itself comes back when nothing needs turning."""
    import pandas as pd
    from pandas.api.types import is_string_dtype

    if is_string_dtype(column.dtype) and not isinstance(column.dtype, pd.CategoricalDtype) and column.dtype != object:
        return column  # a pandas string dtype holds nothing else
    values = column.to_numpy(dtype=object, copy=True)
    turned = False
    for index, value in enumerate(values):
        if not isinstance(value, str) and not is_missing(value):
            values[index] = coerced_text(value)
            turned = True
    return pd.Series(values, index=column.index, name=column.name, dtype=object) if turned else column


def _write_rewrites(out: Any, frame: Any, positions: list[int], made: list, text_column: str, label_column: str | None,
                    mapping: dict[str, str], sets_labels: bool) -> None:
    """Pair augmentation: the other columns and labels candidates rewrote, into their output
    rows, and what changed in ``augkit_changed`` (and ``augkit_label_from``)."""
    import pandas as pd

    taken = [c for c in (CHANGED_COLUMN, LABEL_FROM_COLUMN) if c in frame.columns]
    if taken:
        raise InputError(f"input already has augkit provenance column(s) {', '.join(taken)}; rename or drop them first")
    for name, column in mapping.items():
        if any(c is not None and name in c.fields for c in made):
            out[column] = _text_column(frame[column], positions, [None if c is None else c.fields.get(name) for c in made])
    sources = frame[text_column].tolist()
    out[CHANGED_COLUMN] = pd.Series(
        [None if c is None else changed_columns(c, sources[p], text_column, mapping, label_column) for p, c in zip(positions, made)],
        dtype=object,
    )
    if not sets_labels:
        return
    original = frame[label_column].tolist()
    relabelled = [c is not None and c.label is not None for c in made]
    out[LABEL_FROM_COLUMN] = pd.Series([original[p] if changed else None for p, changed in zip(positions, relabelled)],
                                       dtype=object)
    if any(relabelled):
        out[label_column] = _label_column(frame[label_column], positions, [c.label if changed else None
                                                                          for c, changed in zip(made, relabelled)])


def _label_column(original: Any, positions: list[int], new_labels: list) -> Any:
    """The output label column: original labels, with the labels candidates set; the original
    dtype kept when it holds the new labels."""
    import pandas as pd

    taken = original.take(positions).reset_index(drop=True)
    values = taken.to_numpy(dtype=object, copy=True)
    for index, label in enumerate(new_labels):
        if label is not None:
            values[index] = label
    try:
        kept = pd.Series(values, dtype=taken.dtype)
    except (TypeError, ValueError):
        return pd.Series(values, dtype=object)
    return kept if kept.tolist() == values.tolist() else pd.Series(values, dtype=object)


def _text_column(original: Any, positions: list[int], new_texts: list[str | None]) -> Any:
    """The output text column: original values untouched, augmentations filled in, and
    the original dtype kept where it can hold strings."""
    import pandas as pd
    from pandas.api.types import is_object_dtype, is_string_dtype

    taken = original.take(positions).reset_index(drop=True)
    keeps_strings = is_string_dtype(taken.dtype) or is_object_dtype(taken.dtype)
    values = taken.to_numpy(dtype=object, copy=True)
    for index, text in enumerate(new_texts):
        if text is not None:
            values[index] = text
    return pd.Series(values, dtype=taken.dtype if keeps_strings and not isinstance(taken.dtype, pd.CategoricalDtype) else object)
