"""Hugging Face datasets in, the same kind out, through batched ``map``.

Same semantics as the DataFrame adapter: each original row followed by its augmentations,
other columns (features included, e.g. ``ClassLabel``) copied from the source row,
``augkit_source`` holding the source row's position and ``augkit_method`` the method
(None on original rows).

- ``datasets.Dataset``: ``map(batched=True, num_proc=workers)``. Rows are seeded one by one,
  so the output is the same for any ``workers`` and ``batch_size``. Each map batch also emits,
  in helper columns dropped afterwards, why a row got no augmentation and what each pipeline
  step did to its candidates (:mod:`augkit.adapters.carried_counts`), so the run's counts
  survive worker processes.
- ``datasets.IterableDataset``: augmented lazily, batch by batch as it is iterated; no counts
  (the rows have not been read yet), and no filter that needs every original
  (``label_integrity``).
"""

from __future__ import annotations

import contextlib
from typing import Any

from augkit.adapters.carried_counts import (
    COUNTS_COLUMN,
    REASON_COLUMN,
    TRACE_COLUMN,
    decode_traces,
    encode_counts,
    encode_traces,
    report_from_columns,
)
from augkit.adapters.columns import check_run_columns
from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.engine.run import prepare_pipeline, protection_request, run_pipeline
from augkit.engine.run_options import RunOptions
from augkit.errors import UsageError
from augkit.pipeline.calibrate import Preparation
from augkit.pipeline.pipeline import Pipeline
from augkit.pipeline.row_context import (
    CHANGED_COLUMN,
    LABEL_FROM_COLUMN,
    changed_columns,
)
from augkit.pipeline.row_order import refuse_unordered
from augkit.protection.output import realigned_tags
from augkit.reporting.report import AugmentationReport

_PLACEHOLDER = "__augkit_placeholder"  # a row emitted only to carry a reason (keep_original=False)


def augment_dataset(
    pipeline: Pipeline,
    dataset: Any,
    *,
    text_column: str,
    label_column: str | None,
    keep_original: bool,
    options: RunOptions,
    context_columns: dict[str, str] | None = None,
    protect_column: str | None = None,
) -> tuple[Any, AugmentationReport]:
    """Augment a ``Dataset`` (``options.workers`` map processes) or an ``IterableDataset``
    (lazily). With ``options.trace``, the report holds the trace of a ``Dataset`` (each
    source named by its position); an ``IterableDataset`` has none (nothing has run yet).
    ``context_columns`` maps the logical names the pipeline's augmenters read to columns
    (:mod:`augkit.pipeline.row_context`); ``protect_column`` each row's protection
    (:mod:`augkit.protection`), re-aligned BIO tags written there for augmentations of
    tagged rows."""
    import datasets

    mapping = dict(context_columns or {})
    batch_size, workers = options.batch_size, options.workers
    streaming = isinstance(dataset, datasets.IterableDataset)
    columns = list(dataset.column_names or []) if streaming else list(dataset.column_names)
    check_run_columns(columns, text_column, label_column, protect_column, mapping)
    if workers > 1 and not streaming:
        refuse_unordered(pipeline.dataset_filters, f"datasets' map with num_proc={workers} augments separate "
                         "shards of the dataset in separate processes",
                         "Run it with workers=1, or augment dataset.to_pandas() with workers (augkit's own workers "
                         "hand every batch back in order).")
    features = (_output_features(dataset.features, pipeline, label_column)
                if dataset.features is not None else None)
    if options.n > 0 and not streaming and pipeline.preparation is not Preparation.NONE:
        # Steps compare candidates with all originals (label_integrity) or collect each label's
        # examples: show them the whole column once, not one map batch at a time.
        prepare_pipeline(
            pipeline,
            dataset[text_column],
            describe_row=lambda i: f"column {text_column!r}, row {i}",
            coerce=options.coerce,
            labels=_engine_labels(dataset[label_column], dataset.features, label_column) if label_column is not None else None,
            columns={name: dataset[column] for name, column in mapping.items()},
            n=options.n, seed=options.seed,
            protection=protection_request(options, protect_column),
            protect_values=dataset[protect_column] if protect_column is not None else None,
        )
    if streaming:
        if pipeline.preparation is Preparation.WHOLE:
            raise UsageError(
                "a step of this pipeline must see every original text before the first batch (needs_all_texts), "
                "which a streamed IterableDataset cannot show it up front; augment a datasets.Dataset instead"
            )
        mapper = _BatchAugmenter(pipeline, text_column, label_column, keep_original, options.replace(trace=False),
                                 with_reasons=False, mapping=mapping, protect_column=protect_column,
                                 features=dataset.features)
        return dataset.map(mapper, batched=True, batch_size=batch_size, with_indices=True, features=features), AugmentationReport(seed=options.seed)

    mapper = _BatchAugmenter(pipeline, text_column, label_column, keep_original, options, with_reasons=True,
                             mapping=mapping, protect_column=protect_column, features=dataset.features)
    with_reasons = features.copy()
    with_reasons[REASON_COLUMN] = datasets.Value("string")
    with_reasons[COUNTS_COLUMN] = datasets.Value("string")
    if options.trace:
        with_reasons[TRACE_COLUMN] = datasets.Value("string")
    with_reasons[_PLACEHOLDER] = datasets.Value("bool")
    with _progress_bars(options.progress):
        mapped = dataset.map(
            mapper, batched=True, batch_size=batch_size, with_indices=True, features=with_reasons,
            num_proc=workers if workers > 1 else None, load_from_cache_file=False, desc=f"augkit {pipeline.name}",
        )
    report = _report(mapped, len(dataset), keep_original, options.n, options.seed, pipeline.count_names, text_column)
    helpers = [REASON_COLUMN, COUNTS_COLUMN, _PLACEHOLDER]
    if options.trace:
        report.trace = _trace(mapped)
        helpers.append(TRACE_COLUMN)
    if not keep_original:
        mapped = mapped.filter(lambda placeholder: not placeholder, input_columns=[_PLACEHOLDER], batched=False,
                               load_from_cache_file=False)
    return mapped.remove_columns(helpers), report


def _trace(mapped: Any) -> list:
    """The run's trace from the carried column (one value per source row)."""
    import pyarrow.compute as pc

    table = mapped.data
    carried = pc.is_valid(table.column(TRACE_COLUMN))
    sources = pc.filter(table.column(SOURCE_COLUMN), carried).to_pylist()
    encoded = pc.filter(table.column(TRACE_COLUMN), carried).to_pylist()
    return [entry for source, value in zip(sources, encoded) for entry in decode_traces(value, source)]


class _BatchAugmenter:
    """The function ``map`` calls on each batch (a class, so it pickles to worker processes)."""

    def __init__(self, pipeline, text_column, label_column, keep_original, options: RunOptions, *, with_reasons,
                 mapping: dict[str, str], protect_column: str | None = None, features: Any = None):
        self.pipeline = pipeline
        self.text_column = text_column
        self.label_column = label_column
        self.keep_original = keep_original
        # datasets' map shows its own bar and runs the worker processes
        self.options = options.replace(progress=False, workers=1)
        self.with_reasons = with_reasons
        self.mapping = mapping
        self.protect_column = protect_column
        self.rewrites = bool(pipeline.rewritten_names or pipeline.label_setters)
        self.features = features

    def __call__(self, batch: dict[str, list], indices: list[int]) -> dict[str, list]:
        text_column = self.text_column
        result = run_pipeline(
            self.pipeline,
            batch[text_column],
            self.options,
            describe_row=lambda i: f"column {text_column!r}, row {indices[i]}",
            labels=_engine_labels(batch[self.label_column], self.features, self.label_column)
            if self.label_column is not None else None,
            columns={name: batch[column] for name, column in self.mapping.items()},
            prepared=True,
            protect_values=batch[self.protect_column] if self.protect_column is not None else None,
            protect_column=self.protect_column,
            row_names=indices,
        )
        traced = self.with_reasons and result.traces is not None
        scores = self.pipeline.score_names
        score_columns = [f"augkit_{name}" for name in scores]
        extra = [REASON_COLUMN, COUNTS_COLUMN, _PLACEHOLDER] if self.with_reasons else []
        extra += [TRACE_COLUMN] if traced else []
        pair = _pair_columns(self.pipeline) if self.rewrites else []
        out: dict[str, list] = {name: [] for name in [*batch, SOURCE_COLUMN, METHOD_COLUMN, *score_columns, *pair, *extra]}
        reasons = _reasons_by_row(result, len(batch[text_column]))
        protection = result.protection
        retag = self.protect_column is not None and protection is not None and any(protection.bio)
        for position, row in enumerate(result.candidates):
            emitted = [(None, None, {}, False, None)] if self.keep_original else []
            emitted += [(c.text, c.method, c.scores, False, c) for c in row]
            if not emitted and self.with_reasons:
                emitted = [(None, None, {}, True, None)]  # carries the reason; dropped after map
            for number, (text, method, candidate_scores, placeholder, candidate) in enumerate(emitted):
                for name, column in batch.items():
                    out[name].append(text if name == text_column and text is not None else column[position])
                if retag and candidate is not None and protection.bio[position]:
                    out[self.protect_column][-1] = realigned_tags(protection, [position], [candidate])[0]
                if candidate is not None and self.rewrites:
                    self._write_rewrites(out, batch, position, candidate)
                elif self.rewrites:
                    for name in pair:
                        out[name].append(None)
                out[SOURCE_COLUMN].append(indices[position])
                out[METHOD_COLUMN].append(method)
                for name, column_name in zip(scores, score_columns):
                    out[column_name].append(candidate_scores.get(name))
                if self.with_reasons:
                    out[REASON_COLUMN].append(reasons[position] if number == 0 else None)
                    out[COUNTS_COLUMN].append(encode_counts(result.counts[position]) if number == 0 else None)
                    out[_PLACEHOLDER].append(placeholder)
                if traced:
                    out[TRACE_COLUMN].append(encode_traces(result.traces[position]) if number == 0 else None)
        return out


    def _write_rewrites(self, out: dict[str, list], batch: dict[str, list], position: int, candidate) -> None:
        """Pair augmentation: the fields and label ``candidate`` rewrote, over the values its
        row got from the source row, and what changed."""
        for name, column in self.mapping.items():
            if name in candidate.fields:
                out[column][-1] = candidate.fields[name]
        out[CHANGED_COLUMN].append(changed_columns(candidate, batch[self.text_column][position], self.text_column,
                                                   self.mapping, self.label_column))
        if self.pipeline.label_setters:
            changed = candidate.label is not None
            if changed:
                out[self.label_column][-1] = candidate.label
            out[LABEL_FROM_COLUMN].append(batch[self.label_column][position] if changed else None)


#: What a ``ClassLabel`` column holds for a row without a label (the GLUE test splits' labels, for one).
CLASS_LABEL_MISSING = -1


def _engine_labels(labels: list, features: Any, label_column: str) -> list:
    """``labels`` as the engine reads them: a ``ClassLabel`` column's -1 is a missing label."""
    import datasets

    feature = features.get(label_column) if features is not None else None
    if isinstance(feature, datasets.ClassLabel):
        return [None if label == CLASS_LABEL_MISSING else label for label in labels]
    return labels


def _pair_columns(pipeline: Pipeline) -> list[str]:
    """The provenance columns of pair augmentation this pipeline's output gets."""
    return [CHANGED_COLUMN, *([LABEL_FROM_COLUMN] if pipeline.label_setters else [])]


def _reasons_by_row(result, rows: int) -> list[str]:
    """Per row of a batch: "" when augmented, else why not (as the report counts it)."""
    return ["" if row or reason is None else reason for row, reason in zip(result.candidates, result.reasons, strict=True)]


def _report(mapped: Any, rows: int, keep_original: bool, n: int, seed: int | None, count_names: tuple[str, ...],
            text_column: str) -> AugmentationReport:
    """The run's counts, from the output's arrow columns (not row by row)."""
    import pyarrow.compute as pc

    table = mapped.data
    augmented = pc.is_valid(table.column(METHOD_COLUMN))
    carried = pc.is_valid(table.column(REASON_COLUMN))
    named = pc.and_(carried, pc.not_equal(table.column(REASON_COLUMN), ""))  # rows without augmentation
    return report_from_columns(
        rows=rows, keep_original=keep_original, n=n, seed=seed, count_names=count_names,
        augmentations=pc.sum(augmented).as_py() or 0,
        rows_augmented=len(pc.unique(pc.filter(table.column(SOURCE_COLUMN), augmented))),
        reasons=pc.filter(table.column(REASON_COLUMN), named).to_pylist(),
        counts=pc.drop_null(table.column(COUNTS_COLUMN)).to_pylist(),
        sources=pc.filter(table.column(SOURCE_COLUMN), named).to_pylist(),
        texts=pc.filter(table.column(text_column), named).to_pylist(),
    )


def _output_features(features: Any, pipeline: Pipeline, label_column: str | None) -> Any:
    import datasets

    out = features.copy()
    out[SOURCE_COLUMN] = datasets.Value("int64")
    out[METHOD_COLUMN] = datasets.Value("string")
    for name in pipeline.score_names:
        out[f"augkit_{name}"] = datasets.Value("float64")
    if pipeline.rewritten_names or pipeline.label_setters:
        out[CHANGED_COLUMN] = datasets.Value("string")
    if pipeline.label_setters and label_column is not None:
        out[LABEL_FROM_COLUMN] = features[label_column]
    return out


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
