"""The classifiers ``augkit tune`` trains to judge a configuration: fast on a CPU, seeded.

- ``logreg`` (the default): multinomial logistic regression on frozen sentence embeddings
  from augkit's shared encoder (all-MiniLM-L6-v2 unless ``encoder`` names another). Each
  distinct text is embedded once per process, so the configurations that share augmented
  texts, and every fit of a C grid, cost one embedding.
- ``tfidf``: logistic regression on TF-IDF word 1-2 grams (sublinear tf); no model at all.
- ``finetune``: all-MiniLM-L6-v2 (or ``encoder``) fine-tuned with a linear head
  (:class:`~augkit.tuning.finetune.FineTunedMiniLM`), early-stopped on a held-out part of
  the training rows it is given (:class:`FineTunedJudge`); minutes per fit on a CPU.

All honour a per-row training weight (augmented rows may count less than originals) and train
in two stages when asked (all rows, then the originals alone from there). The logistic
regressions' inverse regularisation strength C matters more than most augmentation does on
normalised embeddings (more rows regularise less at the same C: docs/benchmarks/fewshot.md),
so the tuner fits each C of :data:`C_GRID` and keeps the best on the validation part, for
every configuration alike, ``none`` included.

A judge's :meth:`~Judge.measure` trains on one split's training rows and scores the split's
validation rows: every judge returns a :class:`Measured`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from augkit.errors import InvalidParameterError, MissingDependencyError

CLASSIFIERS = ("logreg", "tfidf", "finetune")
#: The C values tried per fit (each configuration keeps its best on the validation part).
C_GRID = (1.0, 4.0, 16.0, 64.0)
INSTALL = "pip install 'augkit[tune]'"


@dataclass(frozen=True)
class Measured:
    """One configuration's fit, scored on a split's validation rows: accuracy and macro-F1
    (fractions), the C kept (None for a judge without one) and, for a fine-tuned judge, the
    steps run and the step whose weights were kept, per stage."""

    accuracy: float
    macro_f1: float
    C: float | None
    stages: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class TrainingRows:
    """What a judge trains on: texts, labels, a weight per row and which rows are originals
    (the others were augmented from them); ``two_stage``: train on all, then on the
    originals alone."""

    texts: list[str]
    labels: list[str]
    weights: list[float]
    originals: list[bool]
    two_stage: bool = False

    @property
    def originals_last(self) -> list[bool] | None:
        """The mask of the second stage's rows, or None for one stage."""
        return self.originals if self.two_stage else None


class Judge(Protocol):
    """What ``augkit tune`` asks of a judge."""

    #: Whether it needs rows of the training part held out to stop early on
    #: (:func:`augkit.tuning.runner.tune` holds them out before augmenting).
    stops_early: bool

    def measure(self, rows: TrainingRows, valid_texts: Sequence[str], valid_labels: Sequence[str], *,
                stop: tuple[list[str], list[str]] | None = None, seed: int = 0) -> Measured:
        """Train on ``rows`` (early-stopping on ``stop``, held out of the training part) and
        score ``valid_texts``."""


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
    stops_early = False

    def prepare(self, texts) -> None:
        """Nothing to learn by default."""

    def fit(self, features, labels, weights, C, class_weight: str | None = None, originals_last: Sequence[bool] | None = None,
            start: Any = None):
        """A fitted ``LogisticRegression`` (``class_weight``: scikit-learn's, multiplied into
        ``weights``). ``originals_last`` (a mask of the rows that are originals): two stages,
        all rows, then those rows alone, starting from the first stage's coefficients
        (``warm_start``). The loss is convex with one optimum, so the second stage converges
        to the fit on the originals alone, wherever it starts: the first stage only changes
        where L-BFGS starts (and, within its tolerance, where it stops). ``start``: a fitted
        model of the same labels whose coefficients L-BFGS starts from (the selection filters'
        cross-fitting folds start from the fit on all originals: same optimum problem, a few
        rows fewer, far fewer iterations)."""
        import numpy as np
        from sklearn.linear_model import LogisticRegression
        from threadpoolctl import threadpool_limits

        labels, weights = np.asarray(labels), np.asarray(weights)
        model = LogisticRegression(C=C, class_weight=class_weight, max_iter=self.max_iter)
        if start is not None and np.array_equal(start.classes_, np.unique(labels)):
            model.set_params(warm_start=True)
            model.coef_, model.intercept_ = start.coef_.copy(), start.intercept_.copy()
        with threadpool_limits(1):
            model.fit(features, labels, sample_weight=weights)
            if originals_last is not None:
                keep = np.asarray(originals_last, dtype=bool)
                if set(labels[keep].tolist()) != set(labels.tolist()):
                    raise ValueError("two-stage training needs an original of every label the augmented rows carry")
                model.set_params(warm_start=True)
                model.fit(features[keep], labels[keep], sample_weight=weights[keep])
        return model

    def measure(self, rows: TrainingRows, valid_texts, valid_labels, *, stop=None, seed: int = 0) -> Measured:
        """Validation accuracy and macro-F1 at the best C of :data:`C_GRID` (ties: the smaller
        C); the features are computed once for every C."""
        from sklearn.metrics import accuracy_score, f1_score

        self.prepare(rows.texts)
        features, valid_features = self.features(rows.texts), self.features(valid_texts)
        best = None
        for C in C_GRID:
            predicted = self.fit(features, rows.labels, rows.weights, C, originals_last=rows.originals_last).predict(valid_features)
            scores = (accuracy_score(valid_labels, predicted), f1_score(valid_labels, predicted, average="macro", zero_division=0))
            if best is None or scores[0] > best[0]:
                best = (*scores, C)
        return Measured(float(best[0]), float(best[1]), best[2])


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


#: ``augkit tune``'s fine-tuning settings (:class:`~augkit.tuning.finetune.FineTunedMiniLM`'s
#: parameters): a ceiling of 1,000 steps per stage, scored on the held-out rows every 25 steps,
#: stopped after 4 checks (100 steps) without improvement; the rest are the benchmark's.
FINETUNE_SETTINGS = {"steps": 1000, "eval_every": 25, "patience": 4, "batch_size": 16, "max_length": 64,
                     "lr": 5e-5, "head_lr": 1e-3, "warmup": 0.1}


class FineTunedJudge:
    """A fine-tuned encoder (:class:`~augkit.tuning.finetune.FineTunedMiniLM`, ``settings``
    as :data:`FINETUNE_SETTINGS`), early-stopped on ``stop``: rows held out of the split's
    training part, never its validation part. Seeded by the split's seed."""

    stops_early = True

    def __init__(self, encoder: str | None = None, settings: dict | None = None):
        self.encoder = encoder
        self.settings = {**FINETUNE_SETTINGS, **(settings or {})}

    def measure(self, rows: TrainingRows, valid_texts, valid_labels, *, stop=None, seed: int = 0) -> Measured:
        from sklearn.metrics import accuracy_score, f1_score

        from augkit.tuning.finetune import FineTunedMiniLM

        if stop is None:
            raise ValueError("the fine-tuned judge early-stops on rows held out of the training part: pass stop=")
        model = FineTunedMiniLM(seed=seed, model_path=self.encoder, **self.settings)
        model.fit(rows.texts, rows.labels, rows.weights, validation=stop, originals_last=rows.originals_last)
        predicted = model.predict(list(valid_texts))
        return Measured(float(accuracy_score(valid_labels, predicted)),
                        float(f1_score(valid_labels, predicted, average="macro", zero_division=0)), None,
                        tuple(tuple(stage) for stage in model.stage_steps_))


def make_classifier(name: str, *, encoder: str | None = None, device: str = "cpu") -> Judge:
    """A judge by name (:data:`CLASSIFIERS`); scikit-learn must be installed."""
    if name not in CLASSIFIERS:
        raise InvalidParameterError(f"unknown classifier {name!r}; available: {', '.join(CLASSIFIERS)}")
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise MissingDependencyError(f"augkit tune needs scikit-learn: {INSTALL}") from None
    if name == "finetune":
        return FineTunedJudge(encoder)
    return EmbeddingClassifier(encoder, device) if name == "logreg" else TfidfClassifier()
