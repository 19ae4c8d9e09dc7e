"""The one-call entry point: :func:`augment`."""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from augkit.augment_options import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_TEXT_COLUMN,
    AugmentOptions,
    spells_augment_options,
)
from augkit.engine.run_options import RunOptions
from augkit.errors import InputError, UsageError
from augkit.models.hub_access import forget_hub_answer
from augkit.pipeline.compose import Chain, Interleave
from augkit.pipeline.pipeline import Pipeline
from augkit.pipeline.requests import check_context_request, check_protect_column
from augkit.pipeline.row_context import context_mapping
from augkit.reporting.report import AugmentationReport, check_something_worked
from augkit.steps.augmenter import Augmenter

logger = logging.getLogger("augkit")
REPORT_ATTR = "augkit_report"


@spells_augment_options
def augment(
    data: Any,
    method: str | Augmenter | Pipeline | Interleave | Chain,
    n: int = 1,
    seed: int | None = None,
    *,
    text_column: str | None = None,
    label_column: str | None = None,
    context_columns: Mapping[str, str] | Sequence[str] | None = None,
    keep_original: bool = True,
    progress: bool | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    coerce: bool = False,
    workers: int = 1,
    strict: bool = False,
    row_timeout: float | None = None,
    trace: bool = False,
    protect: Sequence[str] | str | None = None,
    protect_column: str | None = None,
    protect_codes: bool = True,
    **params: Any,
) -> Any:
    """Augment texts, a pandas DataFrame or a Hugging Face dataset.

    Parameters
    ----------
    data : list of str, pandas.DataFrame, datasets.Dataset, datasets.IterableDataset or ray.data.Dataset
        ``list[str]`` gives ``list[list[str]]`` (the augmentations of each text, in order).
        A DataFrame or Dataset gives the same type: each original row (unless
        ``keep_original=False``) followed by one row per augmentation, which copies every
        other column from its source row and adds ``augkit_source`` (the source row's index
        label, or position for a Dataset) and ``augkit_method``.
    method : str, Augmenter, Pipeline, Interleave or Chain
        A registered method name (``"eda"``), a pipeline string (``"eda+aeda|dedup"``), an
        augmenter instance or a pipeline. Plain methods get exact-duplicate removal.
    n : int
        Augmentations per input (at most; a method may find fewer).
    seed : int or None
        Same seed, same output, whatever the batching or the other rows. None: fresh.
    text_column, label_column : str, optional
        Column names for tables; ``text_column`` defaults to ``"text"``. The label column is
        checked to exist and handed to filters and to augmenters that read labels; labels are
        copied unchanged unless a method sets them (pair augmentation, see ``context_columns``).
        A row whose label is missing (None, NaN, an empty or whitespace string) is kept as it
        is and not augmented, nor shown to steps that read labels; the report counts and names it.
    context_columns : dict or list of str, optional
        For methods that read other columns of each row (``augkit info METHOD`` lists them):
        ``{"premise": "sentence_A"}`` maps the name a method reads to a column of ``data``; a
        list of names maps each to the same-named column. Methods that rewrite such columns
        or set labels (pair augmentation) write them into their rows and name what changed in
        ``augkit_changed`` (and the source row's label in ``augkit_label_from``).
    keep_original : bool
        Keep the original rows in table output.
    progress : bool or None
        Show a progress bar; None shows one when standard error is a terminal.
    batch_size : int
        Texts per call to the augmenter's ``augment_batch`` (output does not depend on it).
    coerce : bool
        Turn non-string texts into strings instead of failing: bytes decoded as UTF-8,
        anything else ``str(value)``. Original rows keep their values.
    workers : int
        Worker processes (1: this process; for a ``datasets.Dataset``, ``map``'s ``num_proc``).
        Output does not depend on it.
    strict : bool
        When an augmenter or filter raises on a row, returns something outside its contract
        there (None, a non-string), or cannot produce for it (an LLM reply it cannot use, a
        request that failed: :attr:`augkit.GeneratedRow.failed`): False (default) keeps the
        row, gives it no augmentation and counts the failure in the report
        (``augmentation failed (...)``); True stops with
        :class:`~augkit.errors.AugmentationFailedError` naming the row and counting its batch's
        failures. Rows whose candidates were all removed by a filter are not failures. Either
        way, a run in which a step failed on *every* row asked raises
        :class:`~augkit.errors.NothingAugmentedError` (its ``report`` counts the reasons).
    row_timeout : float or None
        Seconds a row may take (None, the default: no limit). A batch gets ``row_timeout``
        as a whole; one that runs out is run again row by row, each row with the whole limit
        (same output, per-row seeds), so a hung row costs at most about twice the limit. A
        row past it fails like a row that raised: kept, counted (``timed out after 60 s``),
        or with ``strict`` the run stops naming it. Pick a limit above a normal batch's time,
        or lower ``batch_size``.
    trace : bool
        Also return the run's trace: ``(result, trace)``, where ``trace`` is a DataFrame
        with one row per candidate generated (``source``: the source row's index label or
        position; ``method``; ``candidate``; ``fate``: kept or dropped; ``dropped_by``: the
        step that dropped it; ``score_<name>`` for every score a step gave it), and one row
        per source row that got no candidate at all (``fate`` none, ``reason`` why). See
        :mod:`augkit.reporting.trace`. Output rows are the same with or without it.
    protect : list of str or str, optional
        Words and phrases no method may change, in any row (every occurrence, whole words,
        any case); a string is a ``|``-separated list. See :mod:`augkit.protection`.
    protect_column : str, optional
        A column holding each row's own protected text: BIO tags (one per whitespace-separated
        word, ``O B-playlist I-playlist``: each augmentation then carries its re-aligned tags
        in that column), phrases (a list, a JSON list or ``|``-separated) or character spans.
        EDA and AEDA never edit inside a protected span; other methods' candidates that lose
        or alter one are dropped by the pipeline's ``protected`` step, and the trace names the span.
    protect_codes : bool
        Also protect, in every row, single letters other than "a" and "I", all-capital
        tokens of 2 to 5 letters and words mixing letters and digits ("fare code h",
        "ATM", "ua123"). True by default.
    **params
        Constructor parameters of the method, e.g. ``alpha_sr=0.2`` for EDA.

    Notes
    -----
    Missing (None/NaN), empty and whitespace texts are kept as they are and get no
    augmentation; for tables, the counts are in ``result.attrs["augkit_report"]`` (with the
    first rows that failed or had no label in its ``examples``).

    Examples
    --------
    >>> augkit.augment(["I lost my card"], "eda", n=2, seed=0)   # doctest: +SKIP
    [['I lost my bill', 'my lost I card']]
    """
    # locals() is the call's arguments here: this is the first statement
    result, report = augment_with_options(data, method, AugmentOptions.of(locals()), params)
    if _is_dataframe(result):
        result.attrs[REPORT_ATTR] = report.as_dict()
    if trace:
        from augkit.reporting.trace import trace_frame

        return result, trace_frame(report.trace or [])
    return result


def augment_with_report(data: Any, method: Any, *args: Any, **keywords: Any) -> tuple[Any, AugmentationReport]:
    """:func:`augment`, also returning the run's :class:`~augkit.reporting.report.AugmentationReport`
    (with ``trace=True``, its ``trace`` holds every candidate's :class:`~augkit.reporting.trace.TraceEntry`).
    It takes exactly :func:`augment`'s parameters (its signature is augment's)."""
    call = _AUGMENT_SIGNATURE.bind(data, method, *args, **keywords)
    return augment_with_options(data, method, AugmentOptions.of(call.arguments), call.arguments.get("params", {}))


_AUGMENT_SIGNATURE = inspect.signature(augment)
augment_with_report.__signature__ = _AUGMENT_SIGNATURE.replace(  # type: ignore[attr-defined]
    return_annotation="tuple[Any, AugmentationReport]")


def augment_with_options(data: Any, method: Any, asked: AugmentOptions,
                         params: Mapping[str, Any]) -> tuple[Any, AugmentationReport]:
    """What :func:`augment` and :func:`augment_with_report` both do, with the caller's options
    as one object: the entry for callers inside augkit that hold them so (``augkit augment``
    on a file it reads whole, :func:`augkit.jobs.file_augment.augment_file`)."""
    params, named_columns = _column_keywords(params)
    pipeline = build_pipeline(method, params)
    text_column, context_columns = _apply_column_keywords(pipeline, named_columns, asked.text_column,
                                                          asked.context_columns)
    label_column, protect_column = asked.label_column, asked.protect_column
    options = RunOptions.of(asked).checked()
    check_protect_column(pipeline, protect_column)
    table_options = {
        "text_column": DEFAULT_TEXT_COLUMN if text_column is None else text_column,
        "label_column": label_column,
        "keep_original": asked.keep_original,
        "options": options,
        "context_columns": context_mapping(context_columns),
        "protect_column": protect_column,
    }
    if isinstance(data, (list, tuple)) and context_columns is not None:
        raise UsageError("context_columns apply to tables (a DataFrame, a datasets.Dataset), not to a list of texts")
    if isinstance(data, (list, tuple)) and protect_column is not None:
        raise UsageError("protect_column applies to tables (a DataFrame, a datasets.Dataset); for a list of texts "
                         "give the words and phrases to protect as protect=[...]")
    check_models_for_run(pipeline, options.n)
    if not isinstance(data, (list, tuple, str)):
        check_context_request(pipeline, table_options["context_columns"], label_column)
    if _is_dataframe(data):
        from augkit.adapters.frame import augment_frame

        result, report = augment_frame(pipeline, data, **table_options)
    elif _is_hf_dataset(data):
        from augkit.adapters.hf_dataset import augment_dataset

        result, report = augment_dataset(pipeline, data, **table_options)
    elif _is_ray_dataset(data):
        from augkit.adapters.ray_dataset import augment_ray_dataset

        result, report = augment_ray_dataset(pipeline, data, **table_options)
    elif isinstance(data, (list, tuple)):
        if text_column is not None or label_column is not None:
            raise UsageError("text_column and label_column apply to tables, not to a list of texts")
        from augkit.adapters.texts import augment_texts

        result, report = augment_texts(pipeline, data, options)
    elif isinstance(data, str):
        raise InputError("data is a single str; pass a list of texts, e.g. augment([text], ...)")
    else:
        raise InputError(
            f"cannot augment a {type(data).__module__}.{type(data).__name__}; "
            "expected a list of str, a pandas.DataFrame, a datasets.Dataset or a ray.data.Dataset"
        )
    logger.info("augkit %s: %s", pipeline.name, report.summary())
    check_something_worked(report)
    return result, report


def _column_keywords(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``params`` split into method parameters and ``<name>_column`` keywords
    (``premise_column="sentence_A"``), which name the column of a logical name a method reads."""
    columns = {key: value for key, value in params.items() if key.endswith("_column") and "." not in key}
    return {key: value for key, value in params.items() if key not in columns}, columns


def _apply_column_keywords(pipeline: Pipeline, columns: Mapping[str, Any], text_column: str | None,
                           context_columns: Any) -> tuple[str | None, Any]:
    """Fold ``<name>_column=COLUMN`` keywords into the context mapping (``premise_column`` is
    ``context_columns={"premise": ...}``) and ``<text name>_column`` into ``text_column``
    (``hypothesis_column`` for a method whose text is the hypothesis of a pair)."""
    if not columns:
        return text_column, context_columns
    mapping = dict(context_mapping(context_columns) or {})
    text_names = pipeline.text_names
    for key, column in columns.items():
        name = key.removesuffix("_column")
        if name in text_names:
            if text_column is not None and text_column != column:
                raise UsageError(f"{key}={column!r} and text_column={text_column!r} name two columns for the text; give one")
            text_column = column
        elif name in pipeline.context_names:
            if name in mapping and mapping[name] != column:
                raise UsageError(f"{key}={column!r} and context_columns[{name!r}]={mapping[name]!r} disagree; give one")
            mapping[name] = column
        else:
            known = [f"{n}_column" for n in (*text_names, *pipeline.context_names)]
            raise UsageError(
                f"unknown keyword {key!r}: {pipeline.name!r} reads "
                + (f"the columns {', '.join(known)}" if known else "no other column than the text (text_column=)")
            )
    return text_column, mapping


def check_models_for_run(pipeline: Pipeline, n: int) -> None:
    """The start of a run that makes augmentations (``n`` > 0): the hub may be asked again,
    once (:func:`augkit.models.hub_access.forget_hub_answer`), and every model the pipeline needs is
    found before any loads (:meth:`Pipeline.check_models`)."""
    if n > 0:
        forget_hub_answer()
        pipeline.check_models()


def build_pipeline(method: Any, params: Mapping[str, Any]) -> Pipeline:
    """Turn what the caller passed as ``method`` (plus ``**params``) into a Pipeline."""
    if isinstance(method, str):
        return Pipeline.from_string(method, params)
    if isinstance(method, type) and issubclass(method, Augmenter):
        from augkit.steps.params import instantiate

        return Pipeline(instantiate(method, method.name, params))
    if params:
        raise UsageError(
            f"parameters {', '.join(sorted(params))} can only be given with a method name; "
            f"pass them to the constructor of {type(method).__name__} instead"
        )
    if isinstance(method, Pipeline):
        return method
    if isinstance(method, (Augmenter, Interleave, Chain)):
        return Pipeline(method)
    raise UsageError(
        f"method must be a name, an Augmenter, a Pipeline, an Interleave or a Chain; got {type(method).__name__}"
    )


def _is_dataframe(data: Any) -> bool:
    pandas = sys.modules.get("pandas")  # a DataFrame cannot exist unless pandas is imported
    return pandas is not None and isinstance(data, pandas.DataFrame)


def _is_ray_dataset(data: Any) -> bool:
    ray_data = sys.modules.get("ray.data")  # a Ray dataset cannot exist unless ray.data is imported
    return ray_data is not None and isinstance(data, ray_data.Dataset)


def _is_hf_dataset(data: Any) -> bool:
    datasets = sys.modules.get("datasets")
    return datasets is not None and isinstance(data, (datasets.Dataset, datasets.IterableDataset))
