"""Ray Data in, Ray Data out: the same augmentation as the local backend, on a Ray cluster.

The dataset is zipped with its row positions (``augkit_source``), then ``map_batches`` runs
the pipeline in a pool of ``workers`` actors: each actor receives the pipeline once (so a
model-backed augmenter loads its model once per actor) and augments batch after batch. Rows are
seeded one by one, so the rows, provenance and candidates are those of the local backend
whatever the number of blocks or actors; the output keeps the input order
(``preserve_order``). An actor that dies (a killed worker, a lost node) is restarted and its
batch retried (``max_restarts`` / ``max_task_retries``).

Filters that compare candidates with every original (``label_integrity``) are shown the text
column once, on the driver, before the actors start.
"""

from __future__ import annotations

from typing import Any

from augkit.adapters.carried_counts import (
    COUNTS_COLUMN,
    REASON_COLUMN,
    TRACE_COLUMN,
    decode_traces,
    report_from_columns,
)
from augkit.adapters.columns import check_run_columns
from augkit.adapters.frame import augment_frame
from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.engine.run import prepare_pipeline, protection_request
from augkit.engine.run_options import RunOptions
from augkit.pipeline.calibrate import Preparation
from augkit.pipeline.pipeline import Pipeline
from augkit.pipeline.row_order import refuse_unordered
from augkit.reporting.report import AugmentationReport

_POSITION = "__augkit_position"
#: What to do instead of running dataset filters on Ray.
RAY_REFUSAL_FIX = ("Run it with the local backend (augkit's workers, workers=N or --workers N, hand every batch back "
                   "in order).")
#: Restarts of a dead actor, and retries of the batch it was running.
ACTOR_RESTARTS = 3


def augment_ray_dataset(
    pipeline: Pipeline,
    dataset: Any,
    *,
    text_column: str,
    label_column: str | None,
    keep_original: bool,
    options: RunOptions,
    num_cpus_per_worker: float = 1,
    num_gpus_per_worker: float = 0,
    prepared: bool = False,
    context_columns: dict[str, str] | None = None,
    protect_column: str | None = None,
) -> tuple[Any, AugmentationReport]:
    """Augment a ``ray.data.Dataset`` with a pool of ``options.workers`` actors. With
    ``options.trace`` the report holds the trace, each source named by its position.
    ``context_columns`` maps the logical names the pipeline's augmenters read to columns
    (:mod:`augkit.pipeline.row_context`); ``protect_column`` each row's protection (:mod:`augkit.protection`)."""
    refuse_unordered(pipeline.dataset_filters, "Ray augments the dataset's blocks in parallel actors and no process "
                     "sees their candidates before they are written", RAY_REFUSAL_FIX)
    import ray

    mapping = dict(context_columns or {})
    check_run_columns(list(dataset.columns()), text_column, label_column, protect_column, mapping)
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    rows = dataset.count()
    if not prepared and options.n > 0 and pipeline.preparation is Preparation.WHOLE:
        columns = list(dict.fromkeys([text_column, *([label_column] if label_column is not None else []), *mapping.values(),
                                      *([protect_column] if protect_column is not None else [])]))
        every = dataset.select_columns(columns).to_pandas()
        prepare_pipeline(pipeline, every[text_column].tolist(), describe_row=lambda i: f"column {text_column!r}, row {i}",
                         coerce=options.coerce,
                         labels=every[label_column].tolist() if label_column is not None else None,
                         columns={name: every[column].tolist() for name, column in mapping.items()},
                         n=options.n, seed=options.seed, protection=protection_request(options, protect_column),
                         protect_values=every[protect_column].tolist() if protect_column is not None else None)
        prepared = True
    # Materialised before the actors start: with every CPU held by an actor, upstream tasks
    # (reading, zipping) would otherwise wait forever on a small cluster.
    positioned = dataset.zip(ray.data.range(rows).rename_columns({"id": _POSITION})).materialize()
    mapped = positioned.map_batches(
        _RayBatchAugmenter,
        fn_constructor_kwargs={
            "pipeline": pipeline, "text_column": text_column, "label_column": label_column,
            "keep_original": keep_original, "options": options, "prepared": prepared, "mapping": mapping,
            "protect_column": protect_column,
        },
        batch_format="pandas",
        batch_size=options.batch_size,
        compute=ray.data.ActorPoolStrategy(size=options.workers),
        num_cpus=num_cpus_per_worker,
        num_gpus=num_gpus_per_worker,
        max_restarts=ACTOR_RESTARTS,
        max_task_retries=ACTOR_RESTARTS,
    ).materialize()
    report = _report(mapped, rows, keep_original, options.n, options.seed, pipeline.count_names, options.trace, text_column)
    if not keep_original:
        mapped = mapped.filter(lambda row: row[METHOD_COLUMN] is not None)
    return mapped.drop_columns([REASON_COLUMN, COUNTS_COLUMN] + ([TRACE_COLUMN] if options.trace else [])), report


class _RayBatchAugmenter:
    """One actor of the pool: holds the pipeline, augments pandas batches."""

    def __init__(self, pipeline: Pipeline, text_column: str, label_column: str | None, keep_original: bool,
                 options: RunOptions, prepared: bool, mapping: dict[str, str], protect_column: str | None = None):
        self.pipeline = pipeline
        self.text_column = text_column
        self.label_column = label_column
        self.keep_original = keep_original
        self.options = options.replace(progress=False, workers=1)
        self.prepared = prepared
        self.mapping = mapping
        self.protect_column = protect_column

    def __call__(self, batch: Any) -> Any:
        positions = batch.pop(_POSITION).tolist()
        batch.index = positions
        # originals always travel (they carry the reasons the report counts); dropped after
        out, _ = augment_frame(self.pipeline, batch, text_column=self.text_column, label_column=self.label_column,
                               keep_original=True, options=self.options, carry_counts=True, prepared=self.prepared,
                               context_columns=self.mapping, protect_column=self.protect_column)
        return out.reset_index(drop=True)


def _report(mapped: Any, rows: int, keep_original: bool, n: int, seed: int | None, count_names: tuple[str, ...], trace: bool,
            text_column: str) -> AugmentationReport:
    augmentations, sources, reasons, counts, entries = 0, set(), [], [], []
    unaugmented_sources, unaugmented_texts = [], []  # of the rows carrying a reason, to name them
    columns = list(dict.fromkeys([SOURCE_COLUMN, METHOD_COLUMN, REASON_COLUMN, COUNTS_COLUMN, text_column]
                                 + ([TRACE_COLUMN] if trace else [])))
    for batch in mapped.select_columns(columns).iter_batches(batch_format="pandas"):
        augmented = batch[METHOD_COLUMN].notna()
        augmentations += int(augmented.sum())
        sources.update(batch.loc[augmented, SOURCE_COLUMN].tolist())
        without = batch[REASON_COLUMN].map(lambda reason: isinstance(reason, str) and bool(reason))
        reasons += batch.loc[without, REASON_COLUMN].tolist()
        unaugmented_sources += batch.loc[without, SOURCE_COLUMN].tolist()
        unaugmented_texts += batch.loc[without, text_column].tolist()
        counts += batch[COUNTS_COLUMN].tolist()
        if trace:
            for source, encoded in zip(batch[SOURCE_COLUMN].tolist(), batch[TRACE_COLUMN].tolist()):
                entries += decode_traces(encoded, source)
    report = report_from_columns(rows=rows, keep_original=keep_original, n=n, seed=seed, count_names=count_names,
                                 augmentations=augmentations, rows_augmented=len(sources), reasons=reasons, counts=counts,
                                 sources=unaugmented_sources, texts=unaugmented_texts)
    report.trace = entries if trace else None
    return report
