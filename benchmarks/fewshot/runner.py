"""The benchmark loop: for each dataset, K, seed and method, sample, augment, train, test.

Every method of a (dataset, K, seed) trains on augmentations of the same K-shot sample, so
gains over ``none`` are paired differences. The test split (and the valid split when it is
used) is embedded once per dataset and process and kept (``pin_embeddings``); the shared
encoder embeds each other distinct text once (candidates a filtered pipeline shares with the
plain method are embedded for the first and looked up for the second).
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from benchmarks.fewshot.classifiers import classifier_class, pin_embeddings
from benchmarks.fewshot.data import FewShotDataset, sample_k_shot
from benchmarks.fewshot.methods import Method, TrainingSet

logger = logging.getLogger("benchmarks.fewshot")


@dataclass
class RunSettings:
    """What one benchmark invocation runs.

    ``classifier_grid`` holds one or more parameter sets of the classifier; with more than one,
    each run fits every set and keeps the one with the best accuracy on the valid split
    (never the test split; ties go to the earlier set), recorded in the row's ``params``.
    """

    shots: Sequence[int]
    seeds: Sequence[int]
    n: int
    methods: Sequence[Method]
    classifier: str = "logreg"
    classifier_grid: Sequence[dict[str, Any]] = field(default_factory=lambda: [{}])
    evaluate_valid: bool = False


def run_benchmark(
    datasets: Sequence[FewShotDataset],
    settings: RunSettings,
    on_row: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Run every (dataset, K, seed, method) and return one row per run (see :func:`run_one`).
    ``on_row`` is called after each run, e.g. to save progress."""
    rows = []
    for dataset in datasets:
        needs_valid = settings.evaluate_valid or len(settings.classifier_grid) > 1
        if needs_valid and dataset.valid is None:
            raise ValueError(f"{dataset.name} has no valid split, needed to choose among classifier settings")
        if settings.classifier == "logreg":
            pin_evaluation_splits(dataset, needs_valid)
        for shots in settings.shots:
            for seed in settings.seeds:
                sample = sample_k_shot(dataset.train, shots, seed)
                if sample.short_classes:
                    logger.warning(
                        "%s, K=%d: %d classes have fewer than K training examples; all of theirs are used (%s)",
                        dataset.name, shots, len(sample.short_classes),
                        ", ".join(f"{label}: {count}" for label, count in sorted(sample.short_classes.items())[:5]),
                    )
                for method in settings.methods:
                    row = run_one(dataset, sample.frame, shots, seed, method, settings, needs_valid)
                    rows.append(row)
                    if on_row is not None:
                        on_row(row)
    return rows


def pin_evaluation_splits(dataset: FewShotDataset, needs_valid: bool) -> None:
    """Embed the test split (and valid when it is used) once for the frozen-encoder classifier."""
    start = time.perf_counter()
    pin_embeddings(dataset.test["text"].tolist())
    if needs_valid:
        pin_embeddings(dataset.valid["text"].tolist())
    logger.info("%s: embedded the evaluation splits in %.1f s", dataset.name, time.perf_counter() - start)


def run_one(dataset, sample, shots, seed, method: Method, settings: RunSettings, needs_valid: bool) -> dict:
    """Augment ``sample`` with ``method``, train, and score on the test split (see :func:`evaluate`)."""
    start = time.perf_counter()
    training = method.training_set(sample, settings.n, seed)
    return evaluate(dataset, training, shots, seed, method.label, settings.classifier, settings.classifier_grid,
                    needs_valid, augment_seconds=time.perf_counter() - start)


def evaluate(
    dataset: FewShotDataset,
    training: TrainingSet,
    shots: int,
    seed: int,
    method_label: str,
    classifier_name: str,
    grid: Sequence[dict[str, Any]],
    needs_valid: bool,
    augment_seconds: float = 0.0,
    heldout: pd.DataFrame | None = None,
) -> dict:
    """Train ``classifier_name`` on ``training`` with each parameter set of ``grid``, keep the
    best on the valid split (when there are several or ``needs_valid``), score on test.
    ``heldout`` (``text``, ``label``: the K-shot sample's own held-out rows) goes to a
    classifier that stops early on it (its ``fit`` takes ``validation``).

    The row: dataset, classifier, shots, seed, method, accuracy, macro_f1 (on test, as
    fractions), train_examples, augmented_examples, seconds (augmentation, training and
    prediction), augment_seconds, params (the classifier settings used) and, when the valid
    split is used, valid_accuracy and valid_macro_f1.
    """
    start = time.perf_counter()
    best = None
    head_params = getattr(classifier_class(classifier_name), "HEAD_PARAMS", ())
    trained: dict[tuple, Any] = {}  # one trained body per setting of the other parameters
    for params in grid:
        body_key = tuple(sorted((key, repr(value)) for key, value in params.items() if key not in head_params))
        if body_key in trained:
            classifier = trained[body_key].with_head(**{key: params[key] for key in head_params if key in params})
        else:
            classifier = _classifier(classifier_name, params, seed)
            fit(classifier, training, heldout)
            trained[body_key] = classifier
        valid = score(dataset.valid, classifier) if needs_valid else None
        if valid is not None and len(grid) > 1:
            logger.debug("%s %s: valid accuracy %.4f with %s", dataset.name, classifier_name, valid[0], params)
        if best is None or (valid is not None and valid[0] > best[2][0]):
            best = (params, classifier, valid)
    params, classifier, valid = best
    accuracy, macro_f1 = score(dataset.test, classifier)
    seconds = augment_seconds + time.perf_counter() - start
    row = {
        "dataset": dataset.name,
        "classifier": classifier_name,
        "shots": shots,
        "seed": seed,
        "method": method_label,
        "accuracy": round(accuracy, 6),
        "macro_f1": round(macro_f1, 6),
        "train_examples": len(training.texts),
        "augmented_examples": training.augmented,
        "seconds": round(seconds, 2),
        "augment_seconds": round(augment_seconds, 2),
        "params": " ".join(f"{key}={value}" for key, value in params.items()),
    }
    if hasattr(classifier, "steps_run_"):  # trained with early stopping or two stages
        row["steps"] = classifier.steps_run_
        row["kept_steps"] = "+".join(str(kept) for _, kept in classifier.stage_steps_)
        row["train_seconds"] = round(classifier.train_seconds_, 1)
    if heldout is not None:
        row["heldout_examples"] = len(heldout)
    if valid is not None:
        row["valid_accuracy"], row["valid_macro_f1"] = round(valid[0], 6), round(valid[1], 6)
    logger.info(
        "%s %s K=%d seed=%d %-40s acc %.4f  macro-F1 %.4f  rows %5d  %.1f s",
        dataset.name, classifier_name, shots, seed, method_label, accuracy, macro_f1, len(training.texts), seconds,
    )
    return row


def takes_pairs(classifier_name: str) -> bool:
    """Whether the classifier can take augmentation as positive pairs (its ``fit`` has
    ``paraphrase_of``), which ``@into=pairs`` methods need."""
    return _fit_takes_pairs(classifier_class(classifier_name))


def _fit_takes_pairs(cls: type) -> bool:
    return "paraphrase_of" in inspect.signature(cls.fit).parameters


def fit(classifier, training: TrainingSet, heldout: pd.DataFrame | None = None):
    """``classifier.fit`` on a training set; ``into=pairs`` passes ``paraphrase_of``,
    ``two_stage`` the mask of the originals (``originals_last``), and ``heldout`` goes as
    ``validation`` to a classifier that stops early."""
    accepts = inspect.signature(type(classifier).fit).parameters
    extra: dict[str, Any] = {}
    if heldout is not None and "validation" in accepts:
        extra["validation"] = (heldout["text"].tolist(), heldout["label"].tolist())
    if training.two_stage:
        if "originals_last" not in accepts:
            raise ValueError(f"{type(classifier).__name__} does not train in two stages; @two_stage=1 needs finetune")
        extra["originals_last"] = training.paraphrase_of < 0
    if training.into == "pairs":
        if not _fit_takes_pairs(type(classifier)):
            raise ValueError(f"{type(classifier).__name__} does not train on pairs; @into=pairs needs e.g. setfit")
        return classifier.fit(training.texts, training.labels, training.weights, paraphrase_of=training.paraphrase_of, **extra)
    return classifier.fit(training.texts, training.labels, training.weights, **extra)


def score(split, classifier) -> tuple[float, float]:
    """Accuracy and macro-F1 of ``classifier`` on a split."""
    from sklearn.metrics import accuracy_score, f1_score

    truth = split["label"].tolist()
    predicted = classifier.predict(split["text"].tolist())
    return accuracy_score(truth, predicted), f1_score(truth, predicted, average="macro", zero_division=0)


def _classifier(name: str, params: dict[str, Any], seed: int):
    """A fresh classifier; one whose constructor takes ``seed`` gets the run's seed."""
    cls = classifier_class(name)
    if "seed" in inspect.signature(cls).parameters:
        params = {"seed": seed, **params}
    return cls(**params)
