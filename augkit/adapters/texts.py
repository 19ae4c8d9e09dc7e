"""``list[str]`` in, ``list[list[str]]`` out."""

from __future__ import annotations

from collections.abc import Sequence

from augkit.engine import run_pipeline
from augkit.pipeline import Pipeline
from augkit.report import AugmentationReport


def augment_texts(pipeline: Pipeline, texts: Sequence, **options) -> tuple[list[list[str]], AugmentationReport]:
    """The augmentations of each text, in input order (an empty list for skipped ones)."""
    result = run_pipeline(pipeline, list(texts), describe_row=lambda i: f"item {i}", **options)
    return [[c.text for c in row] for row in result.candidates], result.report
