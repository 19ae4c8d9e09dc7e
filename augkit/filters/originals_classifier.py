"""A classifier trained on the run's own originals, for the filters that ask whether a candidate
still carries its label (``pvi``, ``consistency``): fitted once per run in ``prepare``, on the
originals only (never on candidates, never on test data), then asked for every candidate's
label probabilities in batches.

Three classifiers: ``logreg``, logistic regression on frozen sentence embeddings
(all-MiniLM-L6-v2 unless ``model`` names another), and ``tfidf``, logistic regression on TF-IDF
word 1-2 grams (no model: the cheap choice for large runs), both ``augkit tune``'s judges; and
``finetune``, the encoder itself fine-tuned with a linear head. Each text's probabilities depend
on that text alone, so the result is the same whatever the batch size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from augkit.errors import InputError, InvalidParameterError, MissingDependencyError
from augkit.steps.inputs import is_missing_label

if TYPE_CHECKING:
    import numpy as np

#: The classifiers a filter may name (``classifier=``).
CLASSIFIERS = ("logreg", "tfidf", "finetune")
#: How ``classifier="finetune"`` trains (:class:`~augkit.tuning.finetune.FineTunedMiniLM`'s
#: parameters): a fixed budget, since a filter has no held-out rows to stop on; on 5-shot
#: BANKING77 the few-shot benchmark's runs at these rates kept their best weights at 100 to
#: 350 steps of 32.
FINETUNE_SETTINGS = {"steps": 200, "batch_size": 32, "lr": 1e-4, "head_lr": 3e-3, "warmup": 0.1, "seed": 0}
INSTALL = "pip install 'augkit[select]'"


def check_classifier(name: str, C: float) -> None:
    """Refuse an unknown classifier name or a non-positive C before any run starts."""
    if name not in CLASSIFIERS:
        raise InvalidParameterError(f"unknown classifier {name!r}; available: {', '.join(CLASSIFIERS)}")
    if not C > 0:
        raise InvalidParameterError(f"C must be positive, got {C}")


def labelled_originals(step: str, texts: Sequence[str], labels: Sequence[Any] | None) -> tuple[list[str], list[Any]]:
    """The originals that have a label, or a clear error when the run has no label column or
    fewer than two labels (a classifier needs two to tell apart)."""
    if labels is None:
        raise InputError(
            f"filter {step!r} trains a classifier on the originals' labels: pass label_column= to "
            "augkit.augment (--label-column on the command line)"
        )
    kept = [(text, label) for text, label in zip(texts, labels) if not is_missing_label(label)]
    if len({label for _, label in kept}) < 2:
        raise InputError(f"filter {step!r} needs originals of at least two labels to train its classifier; "
                         f"the run has {len({label for _, label in kept})}")
    return [text for text, _ in kept], [label for _, label in kept]


class OriginalsClassifier:
    """The classifier ``classifier`` names, trained on labelled texts.

    Parameters
    ----------
    classifier : str
        ``logreg`` (frozen sentence embeddings), ``tfidf`` or ``finetune``.
    C : float
        Inverse L2 regularisation strength of the logistic regressions.
    model, device : str
        The sentence-transformers encoder of ``logreg`` (the model ``finetune`` fine-tunes)
        and where it runs.
    """

    def __init__(self, classifier: str = "logreg", C: float = 16.0, model: str | None = None, device: str = "auto"):
        self.classifier = classifier
        self.C = C
        self.model = model
        self.device = device

    def fit(self, texts: Sequence[str], labels: Sequence[Any]) -> OriginalsClassifier:
        """Train on ``texts`` and ``labels``; :attr:`classes` lists the labels in column order."""
        import numpy as np

        self._judge = self._make_judge()
        self._judge.prepare(list(texts))
        #: The features of the training texts, in order (cross-fitting reuses them).
        self.training_features = self._judge.features(list(texts))
        self._fitted = self._judge.fit(self.training_features, _codes(labels, self), np.ones(len(texts)), self.C)
        return self

    def refit(self, features: Any, labels: Sequence[Any]) -> OriginalsClassifier:
        """Another classifier with this one's features and label columns, trained on
        ``features`` (rows of :meth:`features`) and ``labels``: the cross-fitting of ``pvi``'s
        reference scores trains one per fold without embedding anything again."""
        import numpy as np

        other = OriginalsClassifier(self.classifier, self.C, self.model, self.device)
        other._judge, other._columns, other.classes = self._judge, self._columns, self.classes
        other._fitted = self._judge.fit(features, _codes(labels, other), np.ones(features.shape[0]), self.C, start=self._fitted)
        return other

    def features(self, texts: Sequence[str]) -> Any:
        """The classifier's input for ``texts``."""
        return self._judge.features(list(texts))

    def probabilities(self, texts: Sequence[str] | None = None, features: Any = None) -> np.ndarray:
        """Label probabilities, one row per text, one column per label of :attr:`classes`
        (a label absent from this fit's training rows gets 0)."""
        import numpy as np
        from threadpoolctl import threadpool_limits

        features = self.features(texts) if features is None else features
        with threadpool_limits(1):
            seen = self._fitted.predict_proba(features)
        out = np.zeros((seen.shape[0], len(self.classes)))
        out[:, self._fitted.classes_] = seen
        return out

    def column(self, label: Any) -> int:
        """The probability column of ``label`` (-1 for a label the originals never had)."""
        return self._columns.get(_key(label), -1)

    def _make_judge(self):
        try:
            import sklearn  # noqa: F401
        except ImportError:
            raise MissingDependencyError(f"filters 'pvi' and 'consistency' need scikit-learn: {INSTALL}") from None
        from augkit.tuning.classifiers import EmbeddingClassifier, TfidfClassifier

        if self.classifier == "logreg":
            return EmbeddingClassifier(self.model, self.device)
        if self.classifier == "finetune":
            return _FineTuned(self.model)
        return TfidfClassifier()


def _codes(labels: Sequence[Any], owner: OriginalsClassifier) -> np.ndarray:
    """Labels as column numbers, assigned in first-seen order on the first fit and kept for
    later fits (a cross-fitting fold may lack some labels)."""
    import numpy as np

    if not hasattr(owner, "_columns"):
        owner._columns = {}
        owner.classes = []
    codes = []
    for label in labels:
        key = _key(label)
        if key not in owner._columns:
            owner._columns[key] = len(owner.classes)
            owner.classes.append(label)
        codes.append(owner._columns[key])
    return np.asarray(codes)


def _key(label: Any) -> Any:
    """A hashable key per label value (numpy scalars and Python numbers of equal value meet)."""
    import numpy as np

    return label.item() if isinstance(label, np.generic) else label


class CrossFitted:
    """The originals dealt into ``folds`` folds (each label's originals in turn), one
    classifier per fold trained on the other folds, and the classifier trained on all.

    A candidate rewritten from an original is scored by the classifier of that original's fold,
    which never saw the original: scored by one that did, a paraphrase of a training example
    looks as certain as the example itself, and every candidate passes. Candidates whose source
    is not an original (or whose fold lacks a label) get the classifier trained on all.
    :attr:`original_probabilities` holds each original's out-of-fold probabilities.
    """

    def __init__(self, full: OriginalsClassifier, texts: Sequence[str], labels: Sequence[Any], folds: int):
        """``full`` is the classifier trained on ``texts`` and ``labels``, in that order."""
        import numpy as np

        self.full = full
        features = full.training_features
        turns: dict[int, int] = {}
        fold = np.empty(len(texts), dtype=np.int64)
        for position, label in enumerate(labels):
            column = full.column(label)
            fold[position] = turns.get(column, 0) % folds
            turns[column] = turns.get(column, 0) + 1
        self.models: list[OriginalsClassifier | None] = []
        self.trained: list[set[int]] = []
        self.original_probabilities = np.zeros((len(texts), len(full.classes)))
        self.original_scored = np.zeros(len(texts), dtype=bool)
        for part in range(folds):
            inside, outside = np.flatnonzero(fold != part), np.flatnonzero(fold == part)
            inside_labels = [labels[i] for i in inside]
            trained = {full.column(label) for label in inside_labels}
            if not len(outside) or len(trained) < 2:
                self.models.append(None)
                self.trained.append(set())
                continue
            model = full.refit(features[inside], inside_labels)
            self.models.append(model)
            self.trained.append(trained)
            self.original_probabilities[outside] = model.probabilities(features=features[outside])
            self.original_scored[outside] = [full.column(labels[i]) in trained for i in outside]
        self.fold_of_text: dict[str, int] = {}
        for text, part in zip(texts, fold.tolist()):
            self.fold_of_text.setdefault(text, part)

    def probabilities(self, texts: Sequence[str], sources: Sequence[str], labels: Sequence[Any]) -> np.ndarray:
        """Label probabilities of ``texts``, each from the classifier that did not see its
        source (``sources[i]`` is the original ``texts[i]`` was rewritten from, ``labels[i]``
        the label it is judged on)."""
        import numpy as np

        features = self.full.features(texts)
        out = np.empty((len(texts), len(self.full.classes)))
        groups: dict[int, list[int]] = {}
        for position, (source, label) in enumerate(zip(sources, labels)):
            part = self.fold_of_text.get(source, -1)
            if part >= 0 and self.full.column(label) not in self.trained[part]:
                part = -1
            groups.setdefault(part, []).append(position)
        for part, positions in groups.items():
            model = self.models[part] if part >= 0 else self.full
            out[positions] = model.probabilities(features=features[positions])
        return out


class _FineTuned:
    """``classifier="finetune"``: all-MiniLM-L6-v2 (or ``model``) fine-tuned with a linear head
    on the texts (:data:`FINETUNE_SETTINGS`), behind the interface of ``augkit tune``'s
    logistic-regression judges: its features are the texts themselves."""

    def __init__(self, model: str | None):
        self.model = model

    def prepare(self, texts: Sequence[str]) -> None:
        """Nothing to learn before the fit."""

    def features(self, texts: Sequence[str]) -> Any:
        import numpy as np

        return np.array(list(texts), dtype=object)

    def fit(self, features: Any, labels: Any, weights: Any, C: float, start: Any = None) -> Any:
        """A fine-tuned model (``C`` and ``start`` belong to the logistic regressions)."""
        from augkit.tuning.finetune import FineTunedMiniLM

        return FineTunedMiniLM(model_path=self.model, **FINETUNE_SETTINGS).fit(list(features), list(labels), weights)
