"""``list[str]`` in, ``list[list[str]]`` out."""

from __future__ import annotations

from collections.abc import Sequence

from augkit.engine.run import run_pipeline
from augkit.engine.run_options import RunOptions
from augkit.errors import UsageError
from augkit.pipeline.pipeline import Pipeline
from augkit.reporting.report import AugmentationReport


def augment_texts(pipeline: Pipeline, texts: Sequence, options: RunOptions) -> tuple[list[list[str]], AugmentationReport]:
    """The augmentations of each text, in input order (an empty list for skipped ones); with
    ``options.trace``, the report's trace names each source by its position."""
    if pipeline.readers:
        step, names = next(iter(pipeline.readers.items()))
        raise UsageError(
            f"method {step!r} reads other columns of each row ({', '.join(names)}): augment a table (a pandas "
            "DataFrame, a datasets.Dataset) and map them with context_columns={...}"
        )
    if pipeline.label_setters:
        raise UsageError(f"method {pipeline.label_setters[0]!r} sets the labels of the rows it writes: augment a table "
                         "and name its label column (label_column=...)")
    result = run_pipeline(pipeline, list(texts), options, describe_row=lambda i: f"item {i}")
    if result.traces is not None:
        result.report.trace = [entry for row in result.traces for entry in row]
    return [[c.text for c in row] for row in result.candidates], result.report
