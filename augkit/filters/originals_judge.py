"""What ``pvi`` and ``consistency`` share: a filter that trains a classifier on the run's
labelled originals in ``prepare`` (cross-fitted unless told otherwise) and asks it for the
label probabilities of every candidate of a batch, each judged on its row's label (or its
own, for a candidate that carries one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from augkit.errors import InputError, InvalidParameterError, UsageError
from augkit.filters.embedding import encoder_needs
from augkit.filters.originals_classifier import (
    CrossFitted,
    OriginalsClassifier,
    check_classifier,
    labelled_originals,
)
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.filter import Filter, check_sources

if TYPE_CHECKING:
    import numpy as np

class OriginalsJudgedFilter(Filter):
    """Base of the filters that judge candidates with a classifier trained on the originals.

    A subclass calls :meth:`_set_judge` from its constructor with the shared parameters
    (``classifier``, ``C``, ``folds``, ``cross_fit``, ``model``, ``device``: see
    :class:`~augkit.filters.pvi.PviFilter`), may extend :meth:`prepare`, and decides in
    ``filter_batch`` from :meth:`_judged`.
    """

    needs_all_texts = True
    uses_model = True

    def _set_judge(self, classifier: str, C: float, folds: int, cross_fit: bool, model: str | None, device: str) -> None:
        check_classifier(classifier, C)
        if folds < 2:
            raise InvalidParameterError(f"folds must be at least 2, got {folds}")
        self.classifier = classifier
        self.C = float(C)
        self.folds = int(folds)
        self.cross_fit = bool(cross_fit)
        self.model = model
        self.device = device
        self._judge: OriginalsClassifier | None = None
        self._folds: CrossFitted | None = None

    def required_models(self):
        if self.classifier == "finetune":
            from augkit.models.needs import ModelNeed
            from augkit.tuning.finetune import DEFAULT_MODEL

            return [ModelNeed(self.model or DEFAULT_MODEL, "token", "model", "the classifier fine-tuned on the originals")]
        return encoder_needs(self) if self.classifier == "logreg" else []

    def prepare(self, dataset: DatasetContext) -> None:
        """Train the classifier (and its cross-fitting folds) on the labelled originals;
        :attr:`_originals` keeps them, in order, for a subclass's own use."""
        texts, labels = labelled_originals(self.name, dataset.texts, dataset.labels)
        self._judge = OriginalsClassifier(self.classifier, self.C, self.model, self.device).fit(texts, labels)
        self._folds = CrossFitted(self._judge, texts, labels, self.folds) if self.cross_fit else None
        self._originals = (texts, labels)

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        raise UsageError(f"filter {self.name!r} needs each row's label: it runs through augkit.augment() with label_column=")

    def _judged(self, sources, candidates, context: BatchContext) -> tuple[list[Candidate], list[Any], np.ndarray]:
        """Every candidate of the batch (flat, in order), the label each is judged on, and
        the classifier's label probabilities for each (one row per candidate)."""
        import numpy as np

        check_sources(self.name, sources, candidates)
        if self._judge is None:
            raise UsageError(f"filter {self.name!r} trains its classifier on the run's originals, which it has not seen: "
                             "run it through augkit.augment() (or the CLI), or call Pipeline.prepare(texts, labels) first")
        if context.labels is None:
            raise InputError(f"filter {self.name!r} needs the rows' labels: pass label_column= to augkit.augment (--label-column)")
        rows = [(row, candidate) for row, cands in enumerate(candidates) for candidate in cands]
        flat = [candidate for _, candidate in rows]
        labels = [candidate.label if candidate.label is not None else context.labels[row] for row, candidate in rows]
        if not flat:
            return flat, labels, np.zeros((0, len(self._judge.classes)))
        texts = [candidate.text for candidate in flat]
        if self._folds is None:
            return flat, labels, self._judge.probabilities(texts)
        return flat, labels, self._folds.probabilities(texts, [sources[row] for row, _ in rows], labels)


def without(candidates: list[list[Candidate]], dropped: set[int]) -> list[list[Candidate]]:
    """Each row's candidates but those whose ``id`` is in ``dropped``."""
    return [[c for c in row if id(c) not in dropped] for row in candidates]
