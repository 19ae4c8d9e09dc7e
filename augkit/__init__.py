"""augkit: text data augmentation for labelled datasets.

>>> import augkit
>>> augkit.augment(["I lost my card"], "aeda", n=2, seed=0)   # doctest: +SKIP

Importing augkit is light: pandas, datasets and model libraries load only when used.
"""

from augkit._version import __version__
from augkit.api import augment, augment_with_report
from augkit.errors import (
    AugkitError,
    AugmentationFailedError,
    AugmenterOutputError,
    InputError,
    InvalidParameterError,
    ModelNotAvailableError,
    NothingAugmentedError,
    PipelineSpecError,
    UnknownMethodError,
    UnknownParameterError,
    UsageError,
)
from augkit.filters import (
    BatchContext,
    DatasetContext,
    ExactDuplicateFilter,
    Filter,
    Scorer,
)
from augkit.models.needs import ModelNeed
from augkit.pipeline.compose import Chain, Interleave
from augkit.pipeline.pipeline import Pipeline
from augkit.pipeline.time_limit import TimeLimitExceeded
from augkit.registry.discovery import get_registry, reset_registry
from augkit.registry.hookspecs import hookimpl
from augkit.reporting.report import AugmentationReport
from augkit.steps.augmenter import Augmenter
from augkit.steps.candidate import Candidate
from augkit.steps.generated_row import GeneratedRow
from augkit.tuning import tune

__all__ = [
    "AugkitError",
    "AugmentationFailedError",
    "AugmentationReport",
    "Augmenter",
    "AugmenterOutputError",
    "BatchContext",
    "Candidate",
    "Chain",
    "DatasetContext",
    "ExactDuplicateFilter",
    "Filter",
    "GeneratedRow",
    "InputError",
    "InvalidParameterError",
    "ModelNeed",
    "ModelNotAvailableError",
    "NothingAugmentedError",
    "Pipeline",
    "PipelineSpecError",
    "Scorer",
    "TimeLimitExceeded",
    "Interleave",
    "UnknownMethodError",
    "UnknownParameterError",
    "UsageError",
    "__version__",
    "augment",
    "augment_with_report",
    "get_registry",
    "hookimpl",
    "tune",
    "reset_registry",
]
