"""The classifiers ``augkit tune`` trains to judge a configuration: fast on a CPU, seeded.

- ``logreg`` (the default): multinomial logistic regression on frozen sentence embeddings
  from augkit's shared encoder (all-MiniLM-L6-v2 unless ``encoder`` names another). Each
  distinct text is embedded once per process, so the configurations that share augmented
  texts, and every fit of a C grid, cost one embedding.
- ``tfidf``: logistic regression on TF-IDF word 1-2 grams (sublinear tf); no model at all.

Both honour a per-row training weight (augmented rows may count less than originals). The
inverse regularisation strength C matters more than most augmentation does on normalised
embeddings (more rows regularise less at the same C: docs/benchmarks/fewshot.md), so the
tuner fits each C of :data:`C_GRID` and keeps the best on the validation part, for every
configuration alike, ``none`` included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from augkit.errors import InvalidParameterError, MissingDependencyError

CLASSIFIERS = ("logreg", "tfidf")
#: The C values tried per fit (each configuration keeps its best on the validation part).
C_GRID = (1.0, 4.0, 16.0, 64.0)
INSTALL = "pip install 'augkit[tune]'"


class TextClassifier(Protocol):
    """What the tuner trains: prepared on a training set's texts, features computed once
    per text list, then one fit per C."""

    def prepare(self, texts: Sequence[str]) -> None:
        """Learn what :meth:`features` needs from the training texts (a vocabulary)."""

    def features(self, texts: Sequence[str]) -> Any:
        """The classifier's input for ``texts`` (fitted on the training texts first)."""

    def fit(self, features: Any, labels: Sequence[str], weights: Sequence[float], C: float) -> Any:
        """A fitted scikit-learn estimator (its ``predict`` takes :meth:`features`)."""


class _LogisticRegressionHead:
    """The scikit-learn fit both classifiers share: L-BFGS, one BLAS thread (the matrices
    are small, and spinning threads slow a fit 20-fold when another process shares the
    cores)."""

    max_iter = 1000

    def prepare(self, texts) -> None:
        """Nothing to learn by default."""

    def fit(self, features, labels, weights, C, class_weight: str | None = None):
        """A fitted ``LogisticRegression`` (``class_weight``: scikit-learn's, multiplied into
        ``weights``)."""
        import numpy as np
        from sklearn.linear_model import LogisticRegression
        from threadpoolctl import threadpool_limits

        model = LogisticRegression(C=C, class_weight=class_weight, max_iter=self.max_iter)
        with threadpool_limits(1):
            return model.fit(features, np.asarray(labels), sample_weight=np.asarray(weights))


class EmbeddingClassifier(_LogisticRegressionHead):
    """Logistic regression on frozen sentence embeddings (``encoder``: a sentence-transformers
    model id or folder; None is augkit's default encoder)."""

    def __init__(self, encoder: str | None = None, device: str = "cpu"):
        self.encoder = encoder
        self.device = device

    def features(self, texts):
        from augkit.models.encoder import get_encoder

        return get_encoder(self.encoder, self.device).encode(list(texts))


class TfidfClassifier(_LogisticRegressionHead):
    """Logistic regression on TF-IDF word 1-2 grams; the vocabulary is the training texts'
    (:meth:`prepare` with them before :meth:`features`)."""

    def __init__(self):
        self._vectorizer = None

    def prepare(self, texts: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self._vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit(list(texts))

    def features(self, texts):
        if self._vectorizer is None:
            raise RuntimeError("TfidfClassifier.prepare() must see the training texts first")
        return self._vectorizer.transform(list(texts))


def make_classifier(name: str, *, encoder: str | None = None, device: str = "cpu") -> TextClassifier:
    """A classifier by name (:data:`CLASSIFIERS`); scikit-learn must be installed."""
    if name not in CLASSIFIERS:
        raise InvalidParameterError(f"unknown classifier {name!r}; available: {', '.join(CLASSIFIERS)}")
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise MissingDependencyError(f"augkit tune needs scikit-learn: {INSTALL}") from None
    return EmbeddingClassifier(encoder, device) if name == "logreg" else TfidfClassifier()
