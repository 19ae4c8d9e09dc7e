"""Preparing a pipeline's steps on a run's originals before its batches: whether a run must
(:class:`Preparation`), and the candidates a calibrating step sees (:func:`calibration_sample`)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

from augkit.pipeline.checks import checked_filter_output
from augkit.steps.augmenter import Augmenter
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.filter import Filter

#: Originals generated together when calibrating a step (:meth:`Pipeline.prepare`): fixed, so
#: that the calibration sample never depends on the run's batch size.
CALIBRATION_GROUP = 16



class Preparation(enum.Enum):
    """What a pipeline's steps need from :meth:`Pipeline.prepare`, decided in one place
    (:attr:`Pipeline.preparation`) for every caller that runs a pipeline over parts of a run
    (batches, map batches, file chunks, Ray blocks)."""

    #: No step does anything in ``prepare``: callers skip the pass over the originals.
    NONE = "none"
    #: Steps prepare to save work (an encoder warming its cache): each part may be prepared
    #: on its own; preparing the whole run at once is faster, never different.
    ANY_PART = "any part"
    #: A step must see every original of the run (``needs_all_texts``): callers prepare the
    #: whole run up front, and cannot run it streamed without reading it all first.
    WHOLE = "whole"



def preparation_of(augmenters: Sequence[Augmenter], filters: Sequence[Filter]) -> Preparation:
    """Whether and how these steps must see a run's originals before its batches."""
    steps = [*augmenters, *filters]
    if any(step.needs_all_texts for step in steps) or any(step.calibration_candidates for step in filters):
        return Preparation.WHOLE
    if any(overrides_prepare(step) for step in steps):
        return Preparation.ANY_PART
    return Preparation.NONE


def overrides_prepare(step: Augmenter | Filter) -> bool:
    """Whether a step does something in ``prepare`` (the base classes' does nothing)."""
    base = Augmenter if isinstance(step, Augmenter) else Filter
    return type(step).prepare is not base.prepare



#: A pipeline's generator as calibration calls it: (texts, n, seed, context) -> candidates per text.
Generate = Callable[[list[str], int, int, BatchContext], list[list[Candidate]]]


def calibration_sample(generate: Generate, filters: Sequence[Filter], dataset: DatasetContext, position: int,
                       wanted: int, n: int, seed: int) -> tuple[list[str], list[list[Candidate]]]:
    """The run's first originals, in order, with their candidates that reach filter
    ``position``, until there are at least ``wanted`` (or the originals run out). Rows
    are generated in fixed groups, so the sample never depends on the run's batching."""
    sources: list[str] = []
    reached: list[list[Candidate]] = []
    for start in range(0, len(dataset.texts), CALIBRATION_GROUP):
        rows = list(range(start, min(start + CALIBRATION_GROUP, len(dataset.texts))))
        texts = [dataset.texts[i] for i in rows]
        context = BatchContext(labels=None if dataset.labels is None else [dataset.labels[i] for i in rows],
                               columns={name: [values[i] for i in rows] for name, values in dataset.columns.items()},
                               protected=None if dataset.protected is None else [dataset.protected[i] for i in rows])
        candidates = generate(texts, n, seed, context)
        for step in filters[:position]:
            candidates = checked_filter_output(step, step.filter_batch(texts, candidates, context), candidates)
        for text, row in zip(texts, candidates, strict=True):
            sources.append(text)
            reached.append(row)
            if sum(map(len, reached)) >= wanted:
                return sources, reached
    return sources, reached
