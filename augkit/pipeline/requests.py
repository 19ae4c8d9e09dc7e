"""What a run asks of a pipeline, checked before any data is read: every column its steps read is
mapped, no mapping is left unused, a step that sets labels has a label column, and a protect
column has the pipeline's ``protected`` step. :func:`augkit.augment` and ``augkit augment``
call these once per run."""

from __future__ import annotations

from collections.abc import Mapping

from augkit.errors import UsageError
from augkit.pipeline.pipeline import Pipeline
from augkit.protection.step import ProtectedSpansFilter


def check_context_request(pipeline: Pipeline, mapping: Mapping[str, str], label_column: str | None) -> None:
    """What the pipeline's augmenters read and set, against what the caller passed, before any
    data is looked at: every declared name is mapped, no mapping is left unused, and a step
    that sets labels has a label column."""
    readers = pipeline.readers
    needed = pipeline.context_names
    unmapped = {step: [name for name in names if name not in mapping] for step, names in readers.items()}
    unmapped = {step: names for step, names in unmapped.items() if names}
    if unmapped:
        step, names = next(iter(unmapped.items()))
        example = ", ".join(f"{name!r}: 'your_column'" for name in names)
        flags = " ".join(f"--context-column {name}=COLUMN" for name in names)
        raise UsageError(
            f"method {step!r} reads the column(s) {', '.join(map(repr, names))} of each row: map them to columns of "
            f"your data with context_columns={{{example}}} (command line: {flags})"
        )
    unused = [name for name in mapping if name not in needed]
    if unused:
        reads = ", ".join(needed) if needed else "none"
        raise UsageError(
            f"context column(s) {', '.join(map(repr, unused))} are read by no step of {pipeline.name!r} "
            f"(the names its steps read: {reads})"
        )
    if pipeline.label_setters and label_column is None:
        setters = ", ".join(map(repr, pipeline.label_setters))
        raise UsageError(
            f"method {setters} may set the label of the rows it writes: name the label column "
            "(label_column=... in Python, --label-column on the command line)"
        )


def check_protect_column(pipeline: Pipeline, protect_column: str | None) -> None:
    """A protect column needs the ``protected`` step: without it a candidate could lose a
    tagged slot, and its BIO tags could not be re-aligned."""
    if protect_column is not None and not any(isinstance(step, ProtectedSpansFilter) for step in pipeline.filters):
        raise UsageError(f"protect_column={protect_column!r} needs the pipeline's 'protected' step, which "
                         f"{pipeline.spec!r} leaves out ([protected=false]); drop that option")
