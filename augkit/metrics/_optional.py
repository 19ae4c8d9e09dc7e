"""Import an optional dependency on first use, or say which extra installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

from augkit.errors import MissingDependencyError


def import_optional(module: str, purpose: str, install: str) -> ModuleType:
    """``importlib.import_module(module)``, or a :class:`MissingDependencyError` saying
    what needs it (``purpose``) and the command that installs it (``install``)."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingDependencyError(f"{purpose} needs {module.split('.')[0]}: {install}") from error


METRICS_EXTRA = 'pip install "augkit[metrics]"'
