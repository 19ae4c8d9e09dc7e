"""The one check of the columns a table run names, for every adapter (pandas, Hugging Face
datasets, Ray, file jobs): the text, label and protect columns exist, names are unique, the
provenance columns augkit adds are free, and each context column exists and is neither the
text nor the label column. An adapter calls :func:`check_run_columns` with its table's column
names before reading any row, so a wrong name is refused with the same message whatever holds
the table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from augkit.adapters.provenance import check_free_columns
from augkit.errors import InputError, UsageError


def check_run_columns(columns: Sequence[Any], text_column: str, label_column: str | None,
                      protect_column: str | None = None, context_columns: Mapping[str, str] | None = None) -> None:
    """Refuse a run whose named columns do not fit ``columns`` (the table's, in order), naming
    the column and listing the table's: ``label column 'intnet' not found; columns are: text,
    intent``. ``context_columns`` maps the logical names a pipeline reads to columns
    (:mod:`augkit.pipeline.row_context`)."""
    columns = list(columns)
    if not isinstance(text_column, str):
        raise InputError(f"text_column must be a column name (str), got {type(text_column).__name__}")
    duplicated = sorted({str(c) for c in columns if columns.count(c) > 1})
    if duplicated:
        raise InputError(f"duplicate column names: {', '.join(duplicated)}")
    for role, name in (("text", text_column), ("label", label_column), ("protect", protect_column)):
        if name is not None and name not in columns:
            raise InputError(f"{role} column {name!r} not found; columns are: {', '.join(map(str, columns))}")
    if protect_column is not None and protect_column in (text_column, label_column):
        role = "text" if protect_column == text_column else "label"
        raise InputError(f"the protect column {protect_column!r} is the {role} column; it must hold each row's protected "
                         "phrases, spans or BIO tags")
    check_free_columns(columns)
    for name, column in (context_columns or {}).items():
        if column not in columns:
            raise InputError(
                f"context column {column!r} (mapped to {name!r}) not found; columns are: {', '.join(map(str, columns))}"
            )
        if column == text_column:
            raise UsageError(f"context column {name!r} is mapped to the text column {column!r}; map it to another column")
        if column == label_column:
            raise UsageError(
                f"context column {name!r} is mapped to the label column {column!r}; steps read labels from "
                "context.labels (name the label column with label_column=...)"
            )
