"""Pointwise V-information (Ethayarajh et al. 2022), the selection step of ICDA (Lin et al.
2023, "Selective In-Context Data Augmentation for Intent Detection using Pointwise
V-Information"): keep a candidate only when a classifier trained on the originals finds its
text informative about its label.

    PVI(x -> y) = log2 p_g(y | x) - log2 p_null(y)

g is trained on the run's originals; the null model is trained on the same labels with empty
inputs. Given no input, the best any model can learn is each label's share of the originals,
so augkit uses those shares directly (no fit). A candidate whose text makes its label more
likely than the prior scores above 0 bits; one that points at another label scores below.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from augkit.errors import InputError, InvalidParameterError
from augkit.filters.originals_classifier import (
    CrossFitted,
)
from augkit.filters.originals_judge import OriginalsJudgedFilter, without
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.inputs import is_missing_label

if TYPE_CHECKING:
    import numpy as np

#: The per-label quantile of the reference PVIs that is the threshold when no other is given.
DEFAULT_QUANTILE = 0.1
#: Smallest probability taken for a label (log2 of 0 is minus infinity).
_FLOOR = 1e-12


class PviFilter(OriginalsJudgedFilter):
    """Keeps candidates whose pointwise V-information about their label reaches a threshold.

    Adds the score ``pvi`` (bits; ``score_pvi`` in the trace). By default the threshold is set
    per label (``per_label``, as ICDA's per-intent thresholds) as the 0.1 ``quantile`` of the
    PVI of reference examples of that label: a candidate must be at least as informative as
    the least informative tenth of the real examples. Reference examples are the rows of
    the ``validation`` table when one is named (scored by the classifier trained on the
    originals), otherwise the originals themselves, each scored by a classifier trained on
    the other ``folds`` - 1 folds (cross-fitting: an original scored by a classifier that
    saw it would look more informative than it is). A
    label with no reference score takes the all-labels quantile. A candidate is scored by the
    classifier that did not see its source (``cross_fit``). ``min`` alone sets one threshold
    in bits for every label instead (``min=0``: the text must make its label more likely
    than the prior); ``min`` and ``quantile`` together: the higher of the two.

    A row without a label (None or NaN) has nothing to be informative about: its candidates
    pass, scored NaN. A candidate that carries a label of its own (pair augmentation) is
    judged on that label.

    Parameters
    ----------
    min : float, optional
        Lowest PVI kept, in bits, for every label.
    quantile : float, optional
        Per-label (or global) threshold: this quantile of the reference PVIs; 0.1 when
        neither it nor ``min`` is given.
    per_label : bool
        With ``quantile``: one threshold per label (default) or one for all.
    validation : str, optional
        A table (CSV, TSV, JSON lines, Parquet, Excel) of held-out labelled rows whose PVIs
        set the quantile thresholds; never the data the final classifier is tested on.
    validation_text, validation_label : str
        The validation table's text and label columns.
    folds : int
        Cross-fitting folds: the originals are dealt into this many folds, each label's in
        turn, and a classifier is trained without each fold.
    cross_fit : bool
        Score a candidate with the classifier that did not see its source (default). A
        classifier that saw the source finds its paraphrases as certain as the source itself:
        on 5-shot BANKING77 EDA output, 4.6% of candidates fell under the 0.25 quantile that
        way. False scores every candidate with the classifier trained on all originals, as
        ICDA does for new (not rewritten) examples.
    classifier : str
        ``logreg`` (logistic regression on frozen sentence embeddings, the default) or
        ``tfidf`` (on TF-IDF word 1-2 grams: no model, far cheaper) or ``finetune``
        (all-MiniLM-L6-v2, or ``model``, fine-tuned with a linear head for 200 steps of 32:
        the most exact and by far the dearest, one fine-tuning per cross-fitting fold).
    C : float
        Inverse L2 regularisation of the logistic regression.
    model : str, optional
        ``logreg``'s sentence-transformers encoder, or the model ``finetune`` fine-tunes;
        None is all-MiniLM-L6-v2.
    device : str
        Where the encoder runs: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``.
    """

    name = "pvi"
    scores = ("pvi",)

    def __init__(
        self,
        min: float | None = None,  # noqa: A002
        quantile: float | None = None,
        per_label: bool = True,
        validation: str | None = None,
        validation_text: str = "text",
        validation_label: str = "label",
        folds: int = 5,
        cross_fit: bool = True,
        classifier: str = "logreg",
        C: float = 16.0,
        model: str | None = None,
        device: str = "auto",
    ):
        self._set_judge(classifier, C, folds, cross_fit, model, device)
        if quantile is None and min is None:
            quantile = DEFAULT_QUANTILE
        if quantile is not None and not 0 <= quantile <= 1:
            raise InvalidParameterError(f"quantile must lie in [0, 1], got {quantile}")
        if validation is not None and quantile is None:
            raise InvalidParameterError("validation= sets quantile thresholds; give quantile= too")
        self.min = None if min is None else float(min)
        self.quantile = quantile
        self.per_label = bool(per_label)
        self.validation = validation
        self.validation_text = validation_text
        self.validation_label = validation_label

    def prepare(self, dataset: DatasetContext) -> None:
        import numpy as np

        super().prepare(dataset)
        texts, labels = self._originals
        counts = np.bincount([self._judge.column(label) for label in labels], minlength=len(self._judge.classes))
        self._log_prior = np.log2(counts / counts.sum())
        self._thresholds = self._set_thresholds(texts, labels)

    def _set_thresholds(self, texts: list[str], labels: list[Any]) -> tuple[float, dict[Any, float]]:
        """(threshold for every label, threshold per label) from ``min`` and ``quantile``."""
        import numpy as np

        floor = self.min if self.min is not None else -math.inf
        if self.quantile is None:
            return floor, {}
        if self.validation is not None:
            ref_texts, ref_labels = self._validation_rows()
            ref_scores = self._pvi(self._judge.probabilities(ref_texts), ref_labels)
        else:
            folds = self._folds or CrossFitted(self._judge, texts, labels, self.folds)
            ref_labels = labels
            ref_scores = np.where(folds.original_scored, self._pvi(folds.original_probabilities, labels), np.nan)
        known = ~np.isnan(ref_scores)
        overall = max(floor, float(np.quantile(ref_scores[known], self.quantile))) if known.any() else floor
        per_label: dict[Any, float] = {}
        if self.per_label:
            by_label: dict[int, list[float]] = {}
            for label, value in zip(ref_labels, ref_scores):
                if not math.isnan(value):
                    by_label.setdefault(self._judge.column(label), []).append(value)
            per_label = {column: max(floor, float(np.quantile(values, self.quantile))) for column, values in by_label.items()}
        return overall, per_label

    def _validation_rows(self) -> tuple[list[str], list[Any]]:
        from augkit.tables.io import read_table

        frame = read_table(self.validation)
        for column in (self.validation_text, self.validation_label):
            if column not in frame.columns:
                raise InputError(f"filter 'pvi': the validation table {self.validation} has no column {column!r} "
                                 f"(columns: {', '.join(map(str, frame.columns))}); name it with validation_text= / validation_label=")
        rows = [(t, label) for t, label in zip(frame[self.validation_text], frame[self.validation_label])
                if isinstance(t, str) and t.strip() and not is_missing_label(label) and self._judge.column(label) >= 0]
        if not rows:
            raise InputError(f"filter 'pvi': the validation table {self.validation} has no row with a text and one of the run's labels")
        return [t for t, _ in rows], [label for _, label in rows]

    def _pvi(self, probabilities: np.ndarray, labels: Sequence[Any]) -> np.ndarray:
        """PVI of each row of ``probabilities`` for its label (NaN for a missing or unknown label)."""
        import numpy as np

        columns = np.array([-1 if is_missing_label(label) else self._judge.column(label) for label in labels], dtype=np.int64)
        known = columns >= 0
        out = np.full(len(columns), np.nan)
        rows = np.flatnonzero(known)
        out[rows] = np.log2(np.maximum(probabilities[rows, columns[rows]], _FLOOR)) - self._log_prior[columns[rows]]
        return out

    def filter_batch(self, sources, candidates, context: BatchContext):
        flat, labels, probabilities = self._judged(sources, candidates, context)
        dropped: set[int] = set()
        for candidate, label, value in zip(flat, labels, self._pvi(probabilities, labels)):
            candidate.scores[self.name] = float(value)
            threshold = self._threshold(label)
            if value < threshold:  # False for NaN: a row without a label passes
                candidate.drop_reason = self._why(float(value), threshold, label)
                dropped.add(id(candidate))
        return without(candidates, dropped)

    def _threshold(self, label: Any) -> float:
        overall, per_label = self._thresholds
        return per_label.get(self._judge.column(label), overall) if not is_missing_label(label) else overall

    def _why(self, value: float, threshold: float, label: Any) -> str:
        if self.quantile is None or threshold == self.min:  # min alone, or min above the quantile
            return f"PVI {value:.2f} bits below min={threshold:g} for label {label!r}"
        rows = "validation rows" if self.validation else "originals (cross-fitted)"
        scope = f"of label {label!r}" if self.per_label and self._judge.column(label) in self._thresholds[1] else "of all labels"
        return f"PVI {value:.2f} bits below {threshold:.2f}, quantile={self.quantile:g} of the PVIs of the {rows} {scope}"

