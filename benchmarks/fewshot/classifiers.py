"""Classifiers the few-shot benchmark trains: the :class:`Classifier` protocol, the default
(logistic regression on frozen all-MiniLM-L6-v2 sentence embeddings) and TF-IDF with logistic
regression.

A classifier is anything with ``fit(texts, labels, sample_weight)`` and ``predict(texts)``;
:func:`make_classifier` builds a fresh one per run from its name and keyword parameters. The
fine-tuned transformer lives in :mod:`benchmarks.fewshot.finetune` and SetFit in
:mod:`benchmarks.fewshot.setfit_classifier` (they need torch and transformers only when chosen).
A classifier whose ``fit`` also takes ``paraphrase_of`` can take augmentation as positive
pairs instead of rows (``@into=pairs``, see :mod:`benchmarks.fewshot.methods`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np


class Classifier(Protocol):
    """What the benchmark trains and tests: a fresh instance per run.

    Example::

        clf = make_classifier("logreg", C=1.0)
        clf.fit(["I lost my card", "what is my balance"], ["lost_card", "balance"], None)
        clf.predict(["my card is gone"])   # -> ["lost_card"]
    """

    def fit(self, texts: Sequence[str], labels: Sequence[str], sample_weight: Sequence[float] | None) -> Classifier:
        """Train on ``texts`` and their ``labels``; ``sample_weight`` (one per text, or None
        for all ones) scales each example's loss."""

    def predict(self, texts: Sequence[str]) -> list[str]:
        """One predicted label per text."""


class EmbeddingLogisticRegression:
    """Multinomial logistic regression (scikit-learn, L-BFGS) on frozen sentence embeddings
    from augkit's shared encoder (all-MiniLM-L6-v2: L2-normalised, 384 dimensions).

    Parameters
    ----------
    C : float
        Inverse L2 regularisation strength. The penalty does not grow with the number of rows
        while the data term does, so more rows (augmentation) regularise less at the same C.
    class_weight : "balanced" or None
        scikit-learn's class weighting, multiplied into ``sample_weight``.
    max_iter : int
        L-BFGS iterations.
    """

    def __init__(self, C: float = 1.0, class_weight: str | None = None, max_iter: int = 1000):
        self.C = C
        self.class_weight = class_weight
        self.max_iter = max_iter

    def fit(self, texts, labels, sample_weight=None):
        # The fit is augkit tune's (one BLAS thread: a fit on small matrices is 20 times
        # slower when spinning threads share the cores with another process: 0.24 s against
        # 4.9 s, measured); the features are this benchmark's pinned embeddings.
        from augkit.tuning.classifiers import EmbeddingClassifier

        texts = list(texts)
        head = EmbeddingClassifier()
        head.max_iter = self.max_iter
        weights = np.ones(len(texts)) if sample_weight is None else np.asarray(sample_weight)
        self.model_ = head.fit(embed(texts), list(labels), weights, self.C, class_weight=self.class_weight)
        return self

    def predict(self, texts):
        from threadpoolctl import threadpool_limits

        features = embed(texts)
        with threadpool_limits(1):
            return self.model_.predict(features).tolist()


class TfidfLogisticRegression:
    """Logistic regression (scikit-learn, L-BFGS) on TF-IDF features of word 1- and 2-grams
    with sublinear term frequency (``1 + log tf``), fitted on the training texts: the
    classical baseline, which sees only the words of its training rows, so new words from
    augmentation can matter to it where they cannot to a sentence encoder. The features and
    the fit are ``augkit tune``'s ``tfidf`` judge (:class:`augkit.tuning.classifiers.TfidfClassifier`).

    Parameters
    ----------
    C : float
        Inverse L2 regularisation strength.
    """

    def __init__(self, C: float = 10.0):
        self.C = C

    def fit(self, texts, labels, sample_weight=None):
        from augkit.tuning.classifiers import TfidfClassifier

        texts = list(texts)
        self.judge_ = TfidfClassifier()
        self.judge_.prepare(texts)
        weights = np.ones(len(texts)) if sample_weight is None else np.asarray(sample_weight)
        self.model_ = self.judge_.fit(self.judge_.features(texts), list(labels), weights, self.C)
        return self

    def predict(self, texts):
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):
            return self.model_.predict(self.judge_.features(list(texts))).tolist()


def embed(texts: Sequence[str]) -> np.ndarray:
    """Embeddings of ``texts`` from augkit's shared encoder (``augkit.models.encoder.get_encoder()``),
    which embeds each distinct text once per process; texts pinned with :func:`pin_embeddings`
    are looked up here first."""
    from augkit.models.encoder import get_encoder

    texts = list(texts)
    missing = [text for text in texts if text not in _PINNED]
    if len(missing) == len(texts):
        return get_encoder().encode(texts)
    fresh = dict(zip(missing, get_encoder().encode(missing))) if missing else {}
    return np.stack([_PINNED[text] if text in _PINNED else fresh[text] for text in texts])


def pin_embeddings(texts: Sequence[str]) -> None:
    """Embed ``texts`` once and keep them for the rest of the process: the evaluation splits,
    scored after every run. (The shared encoder's own cache is bounded and starts afresh
    when full, which a long run of augmented texts does.)"""
    from augkit.models.encoder import get_encoder

    missing = list(dict.fromkeys(text for text in texts if text not in _PINNED))
    if missing:
        _PINNED.update(zip(missing, get_encoder().encode(missing)))


_PINNED: dict[str, np.ndarray] = {}


CLASSIFIERS = ("logreg", "tfidf", "finetune", "setfit")


def make_classifier(name: str, **params: Any) -> Classifier:
    """A fresh classifier: ``logreg`` (:class:`EmbeddingLogisticRegression`), ``tfidf``
    (:class:`TfidfLogisticRegression`), ``finetune``
    (:class:`benchmarks.fewshot.finetune.FineTunedMiniLM`) or ``setfit``
    (:class:`benchmarks.fewshot.setfit_classifier.SetFitClassifier`), with its keyword parameters."""
    return classifier_class(name)(**params)


def classifier_class(name: str) -> type:
    """The class behind a classifier name (imports the torch-trained ones only when named)."""
    if name == "logreg":
        return EmbeddingLogisticRegression
    if name == "tfidf":
        return TfidfLogisticRegression
    if name == "finetune":
        from benchmarks.fewshot.finetune import FineTunedMiniLM

        return FineTunedMiniLM
    if name == "setfit":
        from benchmarks.fewshot.setfit_classifier import SetFitClassifier

        return SetFitClassifier
    raise ValueError(f"unknown classifier {name!r}; available: {', '.join(CLASSIFIERS)}")
