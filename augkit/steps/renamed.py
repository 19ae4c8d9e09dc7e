"""Old names that keep working for a release, each with one warning naming the new one: a step's
renamed parameters (``renamed_parameters``), a function's keywords, a command's flags and a module's
classes. The warning points at the caller's line, not into augkit."""

from __future__ import annotations

import argparse
import functools
import os
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from augkit.errors import InvalidParameterError


class RenamedWarning(FutureWarning):
    """An old name was used (a parameter, a flag, a class) that still works until the release
    the naming table of docs/plugin-authors.md names; the message says the new name. The
    command line prints it as one ``augkit: warning:`` line."""


def with_current_names(cls: type, owner: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with every old parameter name the class declares renamed
    (``renamed_parameters = {"old": "new"}``) replaced by its new name, with a
    ``FutureWarning`` saying so; giving both the old and the new name is an error."""
    return current_names(getattr(cls, "renamed_parameters", None) or {}, owner, params)


def current_names(renamed: Mapping[str, str], owner: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with each old name of ``renamed`` (``{"old": "new"}``) replaced by its new
    name, with one ``FutureWarning`` per old name ("``owner``: parameter 'k' is now called
    'num_return'", pointing at the first line outside augkit: the caller's, whether it built
    the step itself or through ``augkit.augment``); giving both names is an error. The one
    rule behind renamed parameters of classes, functions (:func:`renamed_keywords`) and
    command-line flags (:class:`RenamedFlag`)."""
    current = dict(params)
    for old, new in renamed.items():
        if old not in current:
            continue
        if new in current:
            raise InvalidParameterError(f"{owner}: parameter {old!r} is now called {new!r}; give only {new!r}")
        warnings.warn(f"{owner}: parameter {old!r} is now called {new!r}", RenamedWarning, stacklevel=_outside_augkit())
        current[new] = current.pop(old)
    return current


#: augkit's own folder (this module's room's parent): a warning about the caller's input points
#: past its frames.
_AUGKIT_FOLDER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _outside_augkit() -> int:
    """The ``stacklevel`` of the first frame outside augkit, for a warning given by this
    function's caller."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_AUGKIT_FOLDER):
        frame, level = frame.f_back, level + 1
    return level


def renamed_keywords(renamed: Mapping[str, str], owner: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator: the function also takes the old keyword names of ``renamed``, each with a
    ``FutureWarning`` naming the new one (:func:`current_names`); its signature shows only the
    new names.

    >>> @renamed_keywords({"max_length": "max_new_tokens"}, "paraphrase")
    ... def paraphrase(text, *, max_new_tokens=8):
    ...     return max_new_tokens
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     paraphrase("hi", max_length=4), str(caught[0].message)
    (4, "paraphrase: parameter 'max_length' is now called 'max_new_tokens'")
    """

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def accepting_old_names(*args: Any, **kwargs: Any) -> Any:
            return function(*args, **current_names(renamed, owner, kwargs))

        return accepting_old_names

    return decorate


def renamed_module_names(module: str, renamed: Mapping[str, str], namespace: Mapping[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` under which the old names of ``renamed`` (``{"Erap": "ERAP"}``)
    still import the new objects of ``namespace`` (the module's ``globals()``), each with a
    ``FutureWarning`` "augkit_erap.Erap is now called ERAP"; any other missing name is an
    ``AttributeError`` as usual. ``__getattr__ = renamed_module_names(__name__, {...}, globals())``."""

    def __getattr__(name: str) -> Any:
        if name in renamed:
            warnings.warn(f"{module}.{name} is now called {renamed[name]}", RenamedWarning, stacklevel=2)
            return namespace[renamed[name]]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


class RenamedFlag(argparse.Action):
    """An argparse action for a command-line flag's old spelling: stores the value under the
    new flag's ``dest`` with a ``FutureWarning`` naming the new flag, and stays out of
    ``--help``. ``parser.add_argument("--max-length", dest="max_new_tokens", type=int,
    action=RenamedFlag, new_flag="--max-new-tokens", help=argparse.SUPPRESS)``."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, new_flag: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.new_flag = new_flag

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        warnings.warn(f"{parser.prog}: {option_string} is now called {self.new_flag}", RenamedWarning, stacklevel=2)
        setattr(namespace, self.dest, values)
