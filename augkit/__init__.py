"""augkit: text data augmentation for labelled datasets.

>>> import augkit
>>> augkit.augment(["I lost my card"], "aeda", n=2, seed=0)   # doctest: +SKIP

Importing augkit is light: pandas, datasets and model libraries load only when used.
"""

from augkit._version import __version__
from augkit.api import augment, augment_with_report
from augkit.augmenter import Augmenter
from augkit.candidate import Candidate
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
from augkit.filters import BatchContext, DatasetContext, ExactDuplicateFilter, Filter, Scorer
from augkit.generated_row import GeneratedRow
from augkit.hookspecs import hookimpl
from augkit.model_needs import ModelNeed
from augkit.pipeline import Chain, Interleave, Pipeline, Union
from augkit.plugins import get_registry, reset_registry
from augkit.report import AugmentationReport
from augkit.time_limit import TimeLimitExceeded
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
    "Union",
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
