"""Row context: the other columns of a row an augmenter reads or rewrites, and its label.

An augmenter declares logical names (``context_columns = ("premise",)``); the caller maps
them to the columns of their data (``context_columns={"premise": "sentence_A"}``,
``--context-column premise=sentence_A``). :func:`resolve_context_columns` checks that mapping
against the pipeline and the data once per run; the adapters then hand each batch its rows'
values by logical name (:class:`augkit.BatchContext`), and write back what an augmenter
rewrote (:attr:`augkit.Candidate.fields`, :attr:`augkit.Candidate.label`), naming it in the
``augkit_changed`` and ``augkit_label_from`` provenance columns.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from augkit.errors import AugmenterOutputError, UsageError
from augkit.protection.locate import relocated
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext

#: Provenance column naming the columns of an augmented row that differ from its source row
#: (comma-separated, text column first), when a step may rewrite other columns or the label.
CHANGED_COLUMN = "augkit_changed"
#: Provenance column holding the source row's label on augmented rows whose label a step
#: changed (missing elsewhere), when a step may set labels.
LABEL_FROM_COLUMN = "augkit_label_from"


def context_mapping(context_columns: Any) -> dict[str, str]:
    """The caller's ``context_columns`` as ``{logical name: data column}``: None is none, a
    list of names maps each to the same-named column, a dict is taken as it is."""
    if context_columns is None:
        return {}
    if isinstance(context_columns, str):
        context_columns = [context_columns]
    if isinstance(context_columns, Mapping):
        pairs = list(context_columns.items())
    elif isinstance(context_columns, (list, tuple)):
        pairs = [(name, name) for name in context_columns]
    else:
        raise UsageError(
            "context_columns must be a dict {name the method reads: your column}, e.g. {'premise': 'sentence_A'}, "
            f"or a list of column names read under their own names; got {type(context_columns).__name__}"
        )
    mapping: dict[str, str] = {}
    for name, column in pairs:
        if not isinstance(name, str) or not isinstance(column, str) or not name or not column:
            raise UsageError(f"context_columns maps names to column names (non-empty str); got {name!r}: {column!r}")
        if name in mapping and mapping[name] != column:
            raise UsageError(f"context column {name!r} is mapped twice ({mapping[name]!r} and {column!r})")
        mapping[name] = column
    return mapping




def changed_columns(candidate: Candidate, source: Any, text_column: str, mapping: Mapping[str, str],
                    label_column: str | None) -> str:
    """The ``augkit_changed`` value of an augmented row: the columns that differ from its source
    row, text column first, then rewritten fields in their mapping's order, then the label."""
    names = [text_column] if candidate.text != source else []
    names += [column for name, column in mapping.items() if name in candidate.fields]
    if candidate.label is not None and label_column is not None:
        names.append(label_column)
    return ",".join(names)


def candidates_context(rows: list[list[Candidate]], context: BatchContext) -> BatchContext:
    """The context of each candidate of ``rows``, for a chain step that rewrites them: its
    source row's, with the fields and label earlier steps rewrote."""
    positions = [index for index, row in enumerate(rows) for _ in row]
    taken = context.take(positions)
    flat = [c for row in rows for c in row]
    if taken.protected is not None:  # each candidate's protected spans, where they now stand in it
        taken = replace(taken, protected=[relocated(spans, c.text) if spans else spans
                                          for c, spans in zip(flat, taken.protected)])
    if not any(c.fields or c.label is not None for c in flat):
        return taken
    columns = {name: [c.fields.get(name, value) for c, value in zip(flat, values)] for name, values in taken.columns.items()}
    labels = None if taken.labels is None else [c.label if c.label is not None else label for c, label in zip(flat, taken.labels)]
    return BatchContext(labels=labels, columns=columns, protected=taken.protected)


def merged(earlier: Candidate, later: Candidate) -> Candidate:
    """A chain step's rewrite of ``earlier``: its text and scores, with the fields and label
    of both steps (the later step's where both set one)."""
    label = later.label if later.label is not None else earlier.label
    return Candidate(later.text, later.method, later.scores, {**earlier.fields, **later.fields}, label)


def own_columns(step: str, names: tuple[str, ...], context: BatchContext, rows: int, *,
                optional: tuple[str, ...] = ()) -> dict[str, Sequence[Any]]:
    """The context columns ``step`` declares, from the batch's (its ``optional`` ones only
    when present); a clear error when the caller did not map a required one (driving a
    pipeline by hand without them)."""
    names = (*names, *(name for name in optional if name in context.columns))
    missing = [name for name in names if name not in context.columns]
    if missing:
        raise UsageError(
            f"augmenter {step!r} reads the context column(s) {', '.join(map(repr, missing))}: map each to a column of "
            f"your data, e.g. context_columns={{{missing[0]!r}: 'your_column'}} (command line: --context-column "
            f"{missing[0]}=COLUMN)"
        )
    for name in names:
        if len(context.columns[name]) != rows:
            raise UsageError(f"context column {name!r} has {len(context.columns[name])} values for {_count(rows, 'text')}")
    return {name: context.columns[name] for name in names}


def check_fields(step: str, declared: tuple[str, ...], fields: Any) -> None:
    """A candidate's rewritten fields: a dict of text per column the augmenter declares."""
    if not isinstance(fields, dict):
        raise AugmenterOutputError(f"augmenter {step!r} returned a candidate whose fields are {_shown(fields)}, not a dict",
                                   kind=f"augmenter {step!r} returned fields of type {type(fields).__name__}")
    for name, value in fields.items():
        if name not in declared:
            listing = ", ".join(declared) or "none"
            raise AugmenterOutputError(
                f"augmenter {step!r} rewrote the field {name!r}, which it does not declare in rewrites_columns ({listing})",
                kind=f"augmenter {step!r} rewrote an undeclared field",
            )
        if type(value) is not str or not value.strip():
            raise AugmenterOutputError(f"augmenter {step!r} rewrote the field {name!r} to {_shown(value)}; expected a non-blank str",
                                       kind=f"augmenter {step!r} rewrote a field to a {type(value).__name__}")


def without_unchanged(rows: list[list[Candidate]], context: BatchContext) -> list[list[Candidate]]:
    """Candidates whose fields and label list only what differs from their source row: a field
    rewritten to its own value, or the row's own label, is no change (``augkit_changed`` and
    duplicate removal then see the candidate as it is)."""
    for index, row in enumerate(rows):
        for candidate in row:
            if candidate.fields:
                candidate.fields = {
                    name: value for name, value in candidate.fields.items()
                    if name not in context.columns or value != context.columns[name][index]
                }
            if candidate.label is not None and context.labels is not None and candidate.label == context.labels[index]:
                candidate.label = None
    return rows




def _shown(value: Any) -> str:
    return f"{reprlib.repr(value)} ({type(value).__name__})" if value is not None else "None"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
