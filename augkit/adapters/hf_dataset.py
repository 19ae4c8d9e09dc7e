"""Hugging Face ``datasets.Dataset`` in, ``Dataset`` out, through batched ``map``.

Same semantics as the DataFrame adapter: each original row followed by its augmentations,
other columns (features included, e.g. ``ClassLabel``) copied from the source row,
``augkit_source`` holding the source row's position and ``augkit_method`` the method
(None on original rows).
"""

from __future__ import annotations

import contextlib
from typing import Any

from augkit.adapters.frame import check_columns
from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.engine import DEFAULT_BATCH_SIZE, prepare_pipeline, run_pipeline
from augkit.errors import InvalidParameterError
from augkit.pipeline import Pipeline
from augkit.report import AugmentationReport


def augment_dataset(
    pipeline: Pipeline,
    dataset: Any,
    *,
    text_column: str,
    label_column: str | None,
    keep_original: bool,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool | None = None,
    workers: int = 1,
    **options: Any,
) -> tuple[Any, AugmentationReport]:
    """Augment ``dataset``; ``progress=False`` hides the progress bar of ``map``."""
    import datasets

    if workers != 1:
        raise InvalidParameterError(
            "workers > 1 is not supported for a datasets.Dataset yet (its parallelism is "
            "Dataset.map's num_proc); augment a DataFrame or a list with workers, or use workers=1"
        )

    check_columns(list(dataset.column_names), text_column, label_column)
    report = AugmentationReport()
    features = dataset.features.copy()
    features[SOURCE_COLUMN] = datasets.Value("int64")
    features[METHOD_COLUMN] = datasets.Value("string")
    scores = pipeline.score_names
    for name in scores:
        features[f"augkit_{name}"] = datasets.Value("float64")
    if options.get("n", 0) > 0:
        # Filters compare candidates with all originals (label_integrity): show them the
        # whole column once, not one map batch at a time.
        prepare_pipeline(
            pipeline,
            dataset[text_column],
            describe_row=lambda i: f"column {text_column!r}, row {i}",
            coerce=options.get("coerce", False),
            labels=dataset[label_column] if label_column is not None else None,
        )

    def augment_batch(batch: dict[str, list], indices: list[int]) -> dict[str, list]:
        result = run_pipeline(
            pipeline,
            batch[text_column],
            describe_row=lambda i: f"column {text_column!r}, row {indices[i]}",
            labels=batch[label_column] if label_column is not None else None,
            batch_size=batch_size,
            progress=False,  # datasets' map shows its own bar
            prepared=True,
            **options,
        )
        _merge(report, result.report)
        score_columns = [f"augkit_{name}" for name in scores]
        out: dict[str, list] = {name: [] for name in [*batch, SOURCE_COLUMN, METHOD_COLUMN, *score_columns]}
        for position, row in enumerate(result.candidates):
            emitted = [(None, None, {})] if keep_original else []
            emitted += [(c.text, c.method, c.scores) for c in row]
            for text, method, candidate_scores in emitted:
                for name, column in batch.items():
                    out[name].append(text if name == text_column and text is not None else column[position])
                out[SOURCE_COLUMN].append(indices[position])
                out[METHOD_COLUMN].append(method)
                for name, column_name in zip(scores, score_columns):
                    out[column_name].append(candidate_scores.get(name))
        return out

    with _progress_bars(progress):
        augmented = dataset.map(
            augment_batch,
            batched=True,
            batch_size=batch_size,
            with_indices=True,
            features=features,
            load_from_cache_file=False,
            desc=f"augkit {pipeline.name}",
        )
    report.original_rows_written = len(dataset) if keep_original else 0
    return augmented, report


@contextlib.contextmanager
def _progress_bars(progress: bool | None):
    """Hide datasets' progress bars for this call only when ``progress`` is False."""
    from datasets.utils import logging as datasets_logging

    hide = progress is False and datasets_logging.is_progress_bar_enabled()
    if hide:
        datasets_logging.disable_progress_bar()
    try:
        yield
    finally:
        if hide:
            datasets_logging.enable_progress_bar()


def _merge(total: AugmentationReport, part: AugmentationReport) -> None:
    total.rows_read += part.rows_read
    total.rows_augmented += part.rows_augmented
    total.augmentations += part.augmentations
    total.without_augmentation.update(part.without_augmentation)
