"""``list[str]`` in, ``list[list[str]]`` out."""

from __future__ import annotations

from collections.abc import Sequence

from augkit.engine import run_pipeline
from augkit.pipeline import Pipeline
from augkit.report import AugmentationReport
from augkit.run_options import RunOptions


def augment_texts(pipeline: Pipeline, texts: Sequence, options: RunOptions) -> tuple[list[list[str]], AugmentationReport]:
    """The augmentations of each text, in input order (an empty list for skipped ones); with
    ``options.trace``, the report's trace names each source by its position."""
    result = run_pipeline(pipeline, list(texts), options, describe_row=lambda i: f"item {i}")
    if result.traces is not None:
        result.report.trace = [entry for row in result.traces for entry in row]
    return [[c.text for c in row] for row in result.candidates], result.report
