"""The :class:`DatasetFilter` interface: a filter whose verdict on a candidate depends on the
outputs kept for earlier rows of the run, not only on the candidate and its source.

Such a step cannot run inside a batch: a batch (in a worker process, a file chunk) does not
know what earlier batches kept. So the pipeline leaves it, and the cut to ``n``, to the
process that gathers the batches' outcomes, which runs it on them in the data's row order
(:mod:`augkit.pipeline.row_order`). The output is then the same whatever the batch size,
the number of workers or the chunks of a file job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.filter import Filter, check_sources


class DatasetFilter(Filter):
    """Base class of filters that judge each candidate against the whole run so far: every
    original (shown once in :meth:`prepare`) and every output kept before it, in row order
    and, within a row, in candidate order.

    A subclass implements :meth:`judge` (why a candidate is dropped, or ``""``) and
    :meth:`remember` (a candidate was kept: later ones are judged against it too);
    :meth:`anticipate` may compute in one batched call what :meth:`judge` will need. Its
    :meth:`prepare` must forget what an earlier run remembered. It comes after every other
    filter of its pipeline (the pipeline refuses it elsewhere), since the outputs it
    remembers must be final.
    """

    #: It must see every original before the first candidate (and is then run on a whole
    #: run's rows, in order: never one part of it on its own).
    needs_all_texts: ClassVar[bool] = True

    def anticipate(self, texts: Sequence[str]) -> None:
        """Called with every candidate text about to be judged in one gathered batch, before
        the first :meth:`judge`: the place to embed them in one call. Does nothing here."""

    def judge(self, text: str, label: Any, source: str | None = None) -> str:
        """Why ``text`` (a candidate rewritten from ``source`` for a row labelled ``label``;
        None without a label column) is dropped, in words naming what it is too close to and
        the value measured; ``""`` to keep it."""
        raise NotImplementedError(f"{type(self).__name__} must implement judge()")

    def remember(self, text: str, label: Any, row: Any) -> None:
        """``text`` was kept as an output of ``row`` (the row's name in the caller's data),
        labelled ``label``: later candidates are judged against it too."""
        raise NotImplementedError(f"{type(self).__name__} must implement remember()")

    def filter_batch(self, sources: list[str], candidates: list[list[Candidate]], context: BatchContext) -> list[list[Candidate]]:
        """The filter used on its own: each candidate judged and, if kept, remembered, row by
        row in the order given (rows named by their position here). A pipeline never calls
        it: it runs the filter on its gathered outcomes (:mod:`augkit.pipeline.row_order`)."""
        check_sources(self.name, sources, candidates)
        self.anticipate([c.text for row in candidates for c in row])
        kept_rows = []
        for position, row in enumerate(candidates):
            label = None if context.labels is None else context.labels[position]
            kept = []
            for candidate in row:
                own_label = label if candidate.label is None else candidate.label
                candidate.drop_reason = self.judge(candidate.text, own_label, sources[position])
                if not candidate.drop_reason:
                    self.remember(candidate.text, own_label, position)
                    kept.append(candidate)
            kept_rows.append(kept)
        return kept_rows
