"""What :func:`augkit.augment` takes besides the data and the method, defined once:
:class:`AugmentOptions`, its names, order, types and defaults.

Everything else derives from it: ``augment_with_report``'s signature, the engine's
:class:`~augkit.engine.run_options.RunOptions`, ``augkit augment``'s
:class:`~augkit.jobs.file_job.FileJob` and its flags' defaults, and
:data:`RESERVED_PARAMETERS`, the names a plugin's constructor may not take.

Why here, on the ground floor (docs/architecture.md): the registry refuses a plugin that
uses one of these names, and the registry sits below ``api.py`` and ``engine/``; a module
that imports nothing of augkit is one every room may import, so the registry reads the
names from the definition itself instead of being handed a copy.

``augment``'s own ``def`` still spells every option, so that editors and ``help()`` show
them; :func:`spells_augment_options` checks that spelling against this definition when
``augkit.api`` is imported, so the two cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

#: Texts per pipeline batch: large enough that model-backed filters embed a few hundred
#: candidates per call, small enough for a responsive progress bar.
DEFAULT_BATCH_SIZE = 256
#: The column a table's texts are read from when ``text_column`` is None.
DEFAULT_TEXT_COLUMN = "text"
#: ``augment``'s parameters before its options: what to augment and with what.
LEADING_PARAMETERS = ("data", "method")
#: The options ``augment`` also takes by position (``augment(texts, "eda", 4, 0)``); the
#: others are keyword-only.
POSITIONAL_OPTIONS = ("n", "seed")


@dataclass(frozen=True)
class AugmentOptions:
    """The keyword options of one :func:`augkit.augment` call, as the caller gave them
    (unchecked: :meth:`augkit.engine.run_options.RunOptions.checked` checks the engine's
    share). ``augment``'s docstring says what each one does."""

    n: int = 1
    seed: int | None = None
    text_column: str | None = None
    label_column: str | None = None
    context_columns: Mapping[str, str] | Sequence[str] | None = None
    keep_original: bool = True
    progress: bool | None = None
    batch_size: int = DEFAULT_BATCH_SIZE
    coerce: bool = False
    workers: int = 1
    strict: bool = False
    row_timeout: float | None = None
    trace: bool = False
    protect: Sequence[str] | str | None = None
    protect_column: str | None = None
    protect_codes: bool = True

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> AugmentOptions:
        """The options among ``values`` (a call's arguments, ``locals()``, a bound signature);
        every other key is ignored, a missing one takes its default."""
        return cls(**{name: values[name] for name in OPTION_NAMES if name in values})

    def replace(self, **changes: Any) -> AugmentOptions:
        return dataclasses.replace(self, **changes)


#: The options' names, in ``augment``'s order.
OPTION_NAMES = tuple(option.name for option in dataclasses.fields(AugmentOptions))
#: The defaults, as a caller who gives nothing gets them.
DEFAULT_OPTIONS = AugmentOptions()
#: Keyword arguments of :func:`augkit.augment` itself; a plugin parameter of the same name
#: could never be passed, so such a plugin class is refused at registration.
RESERVED_PARAMETERS = frozenset((*LEADING_PARAMETERS, *OPTION_NAMES))


def options_signature() -> list[inspect.Parameter]:
    """``augment``'s parameters as this module defines them: the leading ones, the options
    (``n`` and ``seed`` also by position, the rest by keyword only) with their defaults and
    annotations, then ``**params`` for the method."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    leading = [inspect.Parameter(name, positional) for name in LEADING_PARAMETERS]
    options = [
        inspect.Parameter(option.name, positional if option.name in POSITIONAL_OPTIONS else inspect.Parameter.KEYWORD_ONLY,
                          default=option.default, annotation=option.type)
        for option in dataclasses.fields(AugmentOptions)
    ]
    return [*leading, *options, inspect.Parameter("params", inspect.Parameter.VAR_KEYWORD, annotation="Any")]


Function = TypeVar("Function", bound=Callable[..., Any])


def spells_augment_options(function: Function) -> Function:
    """``function`` unchanged, once its ``def`` is checked to spell exactly the parameters of
    :func:`options_signature` (names, order, kind, default, annotation; the annotations of
    ``data`` and ``method`` are its own); a ``TypeError`` naming the first difference
    otherwise, raised when the module defining ``function`` is imported."""
    spelled = list(inspect.signature(function).parameters.values())
    defined = options_signature()
    for have, want in zip(spelled, defined):
        if want.name in LEADING_PARAMETERS:
            have = have.replace(annotation=inspect.Parameter.empty)
        if have != want:
            raise TypeError(f"{function.__qualname__} spells the parameter {have} where augkit.augment_options "
                            f"defines {want}: change AugmentOptions or the def so that they agree")
    if len(spelled) != len(defined):
        raise TypeError(f"{function.__qualname__} has {len(spelled)} parameters, augkit.augment_options defines "
                        f"{len(defined)}: {', '.join(p.name for p in defined)}")
    return function
