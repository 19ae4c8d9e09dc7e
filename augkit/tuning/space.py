"""What ``augkit tune`` tries: configurations of (pipeline, n, training weight, training).

A configuration augments the training part with ``pipeline`` (any method or pipeline string
``augkit augment -m`` takes), ``n`` augmentations per row, and trains with each augmented
row weighted ``weight`` (originals weigh 1), either on all rows at once (``joint``) or on all
rows and then on the originals alone (``two-stage``: "augmented first, originals last"). The
default space is small on purpose: the two baselines of the seeds (EDA, AEDA), each alone,
behind the label-safety filters and behind the selection filters trained on the originals
(``pvi``, ICDA's pointwise V-information; ``consistency``), at two strengths and two
weights, trained jointly; 28 configurations, each judged against ``none`` on the same split.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from augkit.errors import InvalidParameterError

NONE = "none"
DEFAULT_PIPELINES = ("eda", "aeda", "eda|semantic|label_integrity", "aeda|semantic|label_integrity",
                     "eda|pvi", "aeda|pvi", "eda|consistency")
#: Added to the default pipelines where its masked LM loads without a download
#: (:func:`default_pipelines`): issue 38's contextual substitution.
MODEL_PIPELINES = ("contextual",)
DEFAULT_N = (2, 4)
DEFAULT_WEIGHTS = (0.3, 1.0)
#: How a configuration trains: ``joint`` (originals and augmented rows together) or
#: ``two-stage`` (all rows, then the originals alone, starting from the first stage's model).
JOINT, TWO_STAGE = "joint", "two-stage"
TRAININGS = (JOINT, TWO_STAGE)
#: Joint only: with the logistic-regression judges a second stage on the originals converges
#: to the originals-only fit (a convex loss has one optimum, wherever it starts), so two-stage
#: measures as ``none`` does; it is an axis for the fine-tuned judge (docs/tune.md).
DEFAULT_TRAININGS = (JOINT,)


@dataclass(frozen=True)
class Configuration:
    """One point of the search space; ``pipeline`` None is no augmentation."""

    pipeline: str | None
    n: int = 0
    weight: float = 1.0
    training: str = JOINT

    @property
    def label(self) -> str:
        """``none``, or ``PIPELINE n=N weight=W`` (``... two-stage`` for two-stage training):
        how tables and the job's records name it."""
        if self.pipeline is None:
            return NONE
        return f"{self.pipeline} n={self.n} weight={self.weight:g}" + ("" if self.training == JOINT else f" {self.training}")

    @property
    def two_stage(self) -> bool:
        return self.pipeline is not None and self.training == TWO_STAGE


BASELINE = Configuration(None)


def default_pipelines() -> tuple[str, ...]:
    """:data:`DEFAULT_PIPELINES`, plus each of :data:`MODEL_PIPELINES` that is
    :func:`methods_at_hand`: a search never starts a download of its own."""
    return DEFAULT_PIPELINES + methods_at_hand(MODEL_PIPELINES)


def methods_at_hand(methods: Iterable[str]) -> tuple[str, ...]:
    """The ``methods`` whose plugin is installed and whose every model, with its default
    parameters, loads without a download (:func:`augkit.models.model_at_hand`: a folder,
    ``$AUGKIT_MODEL_DIR`` or the Hugging Face cache); for defaults that add a model-backed
    method only where it can run (``augkit tune``, the few-shot benchmark)."""
    from augkit.models import model_at_hand
    from augkit.registry.discovery import get_registry

    registry = get_registry()
    found = []
    for method in methods:
        if method not in registry.methods:
            continue
        needs = registry.create_augmenter(method, {}).required_models()
        if all(need.model is None or model_at_hand(need.model) for need in needs):
            found.append(method)
    return tuple(found)


def search_space(pipelines: Iterable[str] = DEFAULT_PIPELINES, ns: Iterable[int] = DEFAULT_N,
                 weights: Iterable[float] = DEFAULT_WEIGHTS, trainings: Iterable[str] = DEFAULT_TRAININGS) -> list[Configuration]:
    """Every (pipeline, n, weight, training) combination, checked: each pipeline builds (an
    unknown method, filter or parameter fails here, before any run), ``n`` >= 1,
    ``0 < weight``, each training one of :data:`TRAININGS`."""
    from augkit.pipeline.pipeline import Pipeline
    from augkit.steps.params import unknown_name_message

    pipelines, ns, weights = _distinct(pipelines, "pipeline"), _distinct(ns, "n"), _distinct(weights, "weight")
    trainings = _distinct(trainings, "training")
    for training in trainings:
        if training not in TRAININGS:
            raise InvalidParameterError(unknown_name_message("training", training, list(TRAININGS)))
    for pipeline in pipelines:
        if pipeline.strip().lower() == NONE:
            raise InvalidParameterError("'none' is always tried (it is what every configuration is compared with); "
                                        "list only augmentation pipelines")
        Pipeline.from_string(pipeline)
    for n in ns:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InvalidParameterError(f"n must be a whole number >= 1, got {n!r}")
    for weight in weights:
        if not weight > 0:
            raise InvalidParameterError(f"a training weight must be > 0, got {weight!r}")
    return [Configuration(p, n, float(w), t) for p, n, w, t in itertools.product(pipelines, ns, weights, trainings)]


def _distinct(values: Iterable, name: str) -> list:
    values = list(dict.fromkeys(values))
    if not values:
        raise InvalidParameterError(f"the search space needs at least one {name}")
    return values


def pipelines_of(configurations: Sequence[Configuration]) -> list[tuple[str, int]]:
    """The distinct (pipeline, n) augmentations the configurations need, in order: each is
    run once per split and shared by its weights and trainings."""
    return list(dict.fromkeys((c.pipeline, c.n) for c in configurations if c.pipeline is not None))
