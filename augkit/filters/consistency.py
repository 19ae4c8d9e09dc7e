"""Keep a candidate only when a classifier trained on the run's originals still gives it its
row's label, by a margin over the runner-up: the label-consistency filter of data-augmentation
work from Anaby-Tavor et al. 2020 (LAMBADA) on."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from augkit.errors import InputError, InvalidParameterError, UsageError
from augkit.filters.embedding import encoder_needs
from augkit.filters.originals_classifier import (
    CrossFitted,
    OriginalsClassifier,
    check_classifier,
    is_missing,
    labelled_originals,
)
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.drop_reasons import below
from augkit.steps.filter import Filter, check_sources


class ConsistencyFilter(Filter):
    """Keeps candidates whose label the originals' classifier prefers by at least ``min``.

    A classifier (logistic regression on frozen sentence embeddings, or on TF-IDF) is trained
    on the run's labelled originals in ``prepare`` (one per cross-fitting fold, see
    ``cross_fit``); each candidate gets the score
    ``consistency``: the probability it gives the row's label minus the highest probability
    of any other label, in [-1, 1]. A candidate is kept when the score is at least ``min``
    (0, the default: the label must be the classifier's first choice, ties kept). The reason
    of a drop names the label the classifier preferred.

    A row without a label (None or NaN) passes, scored NaN; a candidate that carries a
    label of its own (pair augmentation) is judged on that label.

    Parameters
    ----------
    min : float
        Lowest margin kept, in [-1, 1].
    classifier : str
        ``logreg`` (frozen sentence embeddings, the default) or ``tfidf`` (no model).
    C : float
        Inverse L2 regularisation of the logistic regression.
    folds : int
        Cross-fitting folds (see ``cross_fit``).
    cross_fit : bool
        Judge a candidate with a classifier trained without its source's fold (the originals
        dealt into ``folds`` folds, each label's in turn), the default: a classifier that saw
        the source gives its paraphrases the source's own certainty. False: one classifier
        trained on all originals.
    model : str, optional
        ``logreg``'s sentence-transformers encoder; None is all-MiniLM-L6-v2.
    device : str
        Where the encoder runs: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``.
    """

    name = "consistency"
    scores = ("consistency",)
    needs_all_texts = True
    uses_model = True

    def __init__(self, min: float = 0.0, classifier: str = "logreg", C: float = 16.0,  # noqa: A002
                 folds: int = 5, cross_fit: bool = True, model: str | None = None, device: str = "auto"):
        check_classifier(classifier, C)
        if folds < 2:
            raise InvalidParameterError(f"folds must be at least 2, got {folds}")
        self.min = float(min)
        self.folds = int(folds)
        self.cross_fit = bool(cross_fit)
        self.classifier = classifier
        self.C = float(C)
        self.model = model
        self.device = device
        self._judge: OriginalsClassifier | None = None

    def required_models(self):
        return encoder_needs(self) if self.classifier == "logreg" else []

    def prepare(self, dataset: DatasetContext) -> None:
        texts, labels = labelled_originals(self.name, dataset.texts, dataset.labels)
        self._judge = OriginalsClassifier(self.classifier, self.C, self.model, self.device).fit(texts, labels)
        self._folds = CrossFitted(self._judge, texts, labels, self.folds) if self.cross_fit else None

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        raise UsageError("filter 'consistency' needs each row's label: it runs through augkit.augment() with label_column=")

    def filter_batch(self, sources, candidates, context: BatchContext):
        check_sources(self.name, sources, candidates)
        if self._judge is None:
            raise UsageError("filter 'consistency' trains its classifier on the run's originals, which it has not seen: "
                             "run it through augkit.augment() (or the CLI), or call Pipeline.prepare(texts, labels) first")
        if context.labels is None:
            raise InputError("filter 'consistency' needs the rows' labels: pass label_column= to augkit.augment (--label-column)")
        flat = [(row, candidate) for row, cands in enumerate(candidates) for candidate in cands]
        dropped: set[int] = set()
        if flat:
            texts = [candidate.text for _, candidate in flat]
            labels = [candidate.label if candidate.label is not None else context.labels[row] for row, candidate in flat]
            if self._folds is None:
                probabilities = self._judge.probabilities(texts)
            else:
                probabilities = self._folds.probabilities(texts, [sources[row] for row, _ in flat], labels)
            for (row, candidate), label, chances in zip(flat, labels, probabilities):
                margin, rival = self._margin(chances, label)
                candidate.scores[self.name] = margin
                if margin < self.min:
                    candidate.drop_reason = (
                        f"{below('label margin', margin, 'min', self.min)}: the originals' classifier gives "
                        f"{self._judge.classes[rival]!r} {chances[rival]:.2f}, {label!r} {self._own(chances, label):.2f}"
                    )
                    dropped.add(id(candidate))
        return [[c for c in row if id(c) not in dropped] for row in candidates]

    def _margin(self, chances: np.ndarray, label: Any) -> tuple[float, int]:
        """(own probability minus the best other label's, that label's column); NaN for a
        row without a label."""
        if is_missing(label):
            return math.nan, -1
        column = self._judge.column(label)
        others = chances.copy()
        if column >= 0:
            others[column] = -1.0
        rival = int(others.argmax())
        return float(self._own(chances, label) - chances[rival]), rival

    def _own(self, chances: np.ndarray, label: Any) -> float:
        column = self._judge.column(label)
        return float(chances[column]) if column >= 0 else 0.0
