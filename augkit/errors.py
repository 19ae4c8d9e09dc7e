"""Errors augkit raises on purpose, each naming what is wrong and what would be right.

All derive from :class:`AugkitError`; each also derives from the built-in exception a
Python user would expect (``LookupError`` for unknown names, ``TypeError`` for unknown
keyword arguments, ``ValueError`` for bad values), so existing ``except`` clauses work.
"""

from __future__ import annotations


class AugkitError(Exception):
    """Base class of every error augkit raises deliberately."""


class UsageError(AugkitError):
    """The caller asked for something that cannot work; the command line exits with 2."""


class UnknownMethodError(UsageError, LookupError):
    """A method (or filter) name that no installed plugin registered."""


class UnknownParameterError(UsageError, TypeError):
    """A keyword argument that the augmenter's or filter's constructor does not take."""


class InvalidParameterError(UsageError, ValueError):
    """A parameter value outside what the augmenter or filter accepts."""


class PipelineSpecError(UsageError, ValueError):
    """A pipeline string such as ``"eda+aeda|dedup"`` that does not parse."""


class InputError(UsageError, ValueError):
    """Input data augkit cannot use as given: a missing column, a non-string text, ..."""


class AugmenterOutputError(AugkitError, TypeError):
    """A plugin's augmenter or filter returned something outside its contract.

    ``kind`` says what was wrong in a few words that are the same for every row it happens
    on (``augmenter 'x' returned NoneType``), so that a run's report can count such rows
    under one reason; the message adds the row and the value returned.
    """

    def __init__(self, message: str, *, kind: str | None = None):
        super().__init__(message)
        self.kind = kind or message


class MissingDependencyError(UsageError, ImportError):
    """An optional dependency (an extra such as ``augkit[quality]``) is not installed."""


class ModelNotAvailableError(UsageError, OSError):
    """A model that is neither a local directory nor available offline in the cache; the
    message names the model and the ways to provide it."""


class AugmentationFailedError(AugkitError, RuntimeError):
    """An augmenter or filter failed on one row (raised, or returned something outside its
    contract) while ``strict`` was set; without it, the row is kept unaugmented and the failure
    counted in the report. The original error is the ``__cause__``."""


class NothingAugmentedError(AugmentationFailedError):
    """Every row a run asked to augment failed (an augmenter or filter raised, returned
    something outside its contract, ran past ``row_timeout``, or could not produce: an
    unusable reply, a request that failed), so nothing was augmented; raised with or without
    ``strict``, as scikit-learn's ``cross_validate`` raises when all its fits fail and only
    warns when some do. ``report`` holds the run's :class:`~augkit.reporting.report.AugmentationReport`,
    whose ``failures`` count the reasons; the command line exits with 1 and writes no output."""

    def __init__(self, message: str, *, report=None):
        super().__init__(message)
        self.report = report
