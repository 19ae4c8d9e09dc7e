"""Keep a candidate only when a classifier trained on the run's originals still gives it its
row's label, by a margin over the runner-up: the label-consistency filter of data-augmentation
work from Anaby-Tavor et al. 2020 (LAMBADA) on."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from augkit.filters.originals_judge import OriginalsJudgedFilter, without
from augkit.steps.context import BatchContext
from augkit.steps.drop_reasons import below
from augkit.steps.inputs import is_missing_label

if TYPE_CHECKING:
    import numpy as np

class ConsistencyFilter(OriginalsJudgedFilter):
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
        ``logreg`` (frozen sentence embeddings, the default), ``tfidf`` (no model) or
        ``finetune`` (all-MiniLM-L6-v2, or ``model``, fine-tuned for 200 steps of 32, once
        per cross-fitting fold).
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
        ``logreg``'s sentence-transformers encoder, or the model ``finetune`` fine-tunes;
        None is all-MiniLM-L6-v2.
    device : str
        Where the encoder runs: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``.
    """

    name = "consistency"
    scores = ("consistency",)

    def __init__(self, min: float = 0.0, classifier: str = "logreg", C: float = 16.0,  # noqa: A002
                 folds: int = 5, cross_fit: bool = True, model: str | None = None, device: str = "auto"):
        self._set_judge(classifier, C, folds, cross_fit, model, device)
        self.min = float(min)

    def filter_batch(self, sources, candidates, context: BatchContext):
        flat, labels, probabilities = self._judged(sources, candidates, context)
        dropped: set[int] = set()
        for candidate, label, chances in zip(flat, labels, probabilities):
            margin, rival = self._margin(chances, label)
            candidate.scores[self.name] = margin
            if margin < self.min:
                candidate.drop_reason = (
                    f"{below('label margin', margin, 'min', self.min)}: the originals' classifier gives "
                    f"{self._judge.classes[rival]!r} {chances[rival]:.2f}, {label!r} {self._own(chances, label):.2f}"
                )
                dropped.add(id(candidate))
        return without(candidates, dropped)

    def _margin(self, chances: np.ndarray, label: Any) -> tuple[float, int]:
        """(own probability minus the best other label's, that label's column); NaN for a
        row without a label."""
        if is_missing_label(label):
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
