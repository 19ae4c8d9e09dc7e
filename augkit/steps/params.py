"""Constructor parameters as the whole configuration (scikit-learn style).

An augmenter's or filter's knobs are the keyword arguments of its ``__init__``. This module
reads them from the signature (with defaults and type annotations) and their descriptions
from the docstring, checks caller-supplied parameters against them, and converts command
line strings (``-p alpha_sr=0.2``) to the declared types.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import math
import re
import typing
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from augkit.errors import InvalidParameterError, UnknownParameterError
from augkit.steps.renamed import with_current_names

#: Marker for a parameter without a default value.
REQUIRED = inspect.Parameter.empty


@dataclass(frozen=True)
class Parameter:
    """One constructor keyword argument of an augmenter or filter."""

    name: str
    default: Any
    annotation: str
    doc: str

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


def describe_parameters(cls: type) -> tuple[Parameter, ...]:
    """The keyword parameters of ``cls.__init__`` with defaults, types and docs.

    >>> class Shout:
    ...     '''Parameters
    ...     ----------
    ...     marks : int
    ...         How many exclamation marks.
    ...     '''
    ...     def __init__(self, marks: int = 1): ...
    >>> describe_parameters(Shout)[0]
    Parameter(name='marks', default=1, annotation='int', doc='How many exclamation marks.')
    """
    init = cls.__init__
    if init is object.__init__:
        return ()
    described = _DESCRIBED.get(cls)
    if described is not None and described[0] is init and described[1] == cls.__doc__:
        return described[2]
    params = _read_parameters(cls, init)
    _DESCRIBED[cls] = (init, cls.__doc__, params)
    return params


#: What :func:`describe_parameters` read of a class, with the ``__init__`` and docstring it
#: read it from: ``augkit.augment`` describes its steps' parameters four times per call
#: (about a millisecond each for a bridged nlpaug method), and a class rarely changes.
_DESCRIBED: weakref.WeakKeyDictionary[type, tuple[Any, str | None, tuple[Parameter, ...]]] = weakref.WeakKeyDictionary()


def _read_parameters(cls: type, init: Any) -> tuple[Parameter, ...]:
    signature = inspect.signature(init)
    hints = _type_hints(init)
    docs = {**parse_docstring_parameters(cls.__doc__), **parse_docstring_parameters(init.__doc__)}
    params = []
    for name, param in signature.parameters.items():
        if name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(name, param.annotation)
        params.append(
            Parameter(
                name=name,
                default=param.default,
                annotation=_annotation_text(annotation),
                doc=docs.get(name, ""),
            )
        )
    return tuple(params)


def describe_any_keyword(cls: type) -> Parameter | None:
    """The ``**kwargs`` parameter of ``cls.__init__`` (named ``**name``, no default), with
    its docstring entry (``**weights : float``), or None when it takes none.

    A ranker takes its weights this way, one keyword per score name:
    ``RankFilter(semantic=4.0)``."""
    init = cls.__init__
    if init is object.__init__:
        return None
    for name, param in inspect.signature(init).parameters.items():
        if param.kind is param.VAR_KEYWORD:
            docs = {**parse_docstring_parameters(cls.__doc__), **parse_docstring_parameters(init.__doc__)}
            annotation = _type_hints(init).get(name, param.annotation)
            return Parameter(name=f"**{name}", default=REQUIRED, annotation=_annotation_text(annotation),
                             doc=docs.get(f"**{name}", ""))
    return None


def accepts_any_keyword(cls: type) -> bool:
    """True when ``cls.__init__`` takes ``**kwargs`` and so accepts every name."""
    signature = inspect.signature(cls.__init__)
    return any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())


def check_parameters(cls: type, owner: str, params: Mapping[str, Any]) -> None:
    """Fail with the list of valid names when ``params`` holds a name ``cls`` does not take."""
    if accepts_any_keyword(cls):
        return
    valid = [p.name for p in describe_parameters(cls)]
    for name in params:
        if name not in valid:
            raise UnknownParameterError(unknown_name_message("parameter", name, valid, owner=owner))


#: Words read as a bool parameter's value, in pipeline strings and on the command line.
TRUE_WORDS, FALSE_WORDS = frozenset({"1", "true", "yes", "on"}), frozenset({"0", "false", "no", "off"})


def checked_values(cls: type, owner: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with the values of parameters declared ``bool``, ``int`` or ``float``
    checked: a bool parameter takes True/False or one of the words true/false, yes/no,
    on/off, 1/0 (a pipeline string's bare word); anything else, and a string or bool for a
    number, is refused (``bool("no")`` would silently read as True)."""
    declared = {p.name: p.annotation for p in describe_parameters(cls)}
    checked = dict(params)
    for name, value in params.items():
        kind = declared.get(name)
        if kind == "bool" and not isinstance(value, bool):
            word = value.strip().lower() if isinstance(value, str) else None
            if word not in TRUE_WORDS | FALSE_WORDS:
                raise InvalidParameterError(f"{owner}: {name} must be True or False, got {value!r}")
            checked[name] = word in TRUE_WORDS
        elif kind in ("int", "float") and (isinstance(value, (bool, str)) or not isinstance(value, (int, float))):
            raise InvalidParameterError(f"{owner}: {name} must be a number ({kind}), got {value!r}")
        elif kind == "int" and isinstance(value, float) and not value.is_integer():
            raise InvalidParameterError(f"{owner}: {name} must be a whole number, got {value!r}")
    return checked


def instantiate(cls: type, owner: str, params: Mapping[str, Any]) -> Any:
    """Build ``cls(**params)`` after checking the names and the kinds of the values declared
    bool, int or float; bad values surface as :class:`InvalidParameterError` naming the owner."""
    params = with_current_names(cls, owner, params)
    check_parameters(cls, owner, params)
    params = checked_values(cls, owner, params)
    try:
        return cls(**params)
    except (ValueError, TypeError) as error:
        message = str(error)
        # an augmenter's or filter's own message often names it already ("edit_ratio: min must ...")
        named = message if message.startswith(f"{owner}:") else f"{owner}: {message}"
        raise InvalidParameterError(named) from error


#: How alike a name must be to a valid one to be offered as "did you mean" (difflib's ratio;
#: 0.6 is difflib's own default, which offers 'alpha_sr' for 'alpha' and nothing for 'xyz').
CLOSE_NAME_CUTOFF = 0.6


def did_you_mean(name: str, choices: Iterable[str], *, n: int = 1, kind: str = "") -> str:
    """``"; did you mean 'eda'?"`` naming the choices closest to ``name`` (at most ``n``, joined
    by "or"; ``kind`` names what they are: ``"; did you mean parameter 'k'?"``), or ``""`` when
    none is close. Every "did you mean" in augkit and its plugins is this one, so they all
    suggest alike; append it to the message that names what was wrong.

    >>> "unknown method 'edaa'" + did_you_mean("edaa", ["eda", "aeda", "faq"])
    "unknown method 'edaa'; did you mean 'eda'?"
    >>> did_you_mean("xyz", ["eda"])
    ''
    """
    close = difflib.get_close_matches(name, list(choices), n=n, cutoff=CLOSE_NAME_CUTOFF)
    if not close:
        return ""
    return f"; did you mean {kind + ' ' if kind else ''}" + " or ".join(repr(c) for c in close) + "?"


def unknown_name_message(
    kind: str, name: str, valid: list[str], *, owner: str | None = None, listing: str | None = None
) -> str:
    """``unknown parameter 'alpha' for 'eda'; did you mean 'alpha_sr'? valid parameters: ...``."""
    where = f" for {owner!r}" if owner else ""
    message = f"unknown {kind} {name!r}{where}" + (did_you_mean(name, valid, n=3) or ";")
    listed = ", ".join(sorted(valid)) if valid else "(none)"
    return f"{message} {listing or 'valid ' + kind + 's'}: {listed}"


def check_int(name: str, value: Any, minimum: int) -> int:
    """``value`` itself if it is an int (not a bool) of at least ``minimum``; else a clear error."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        kind = "non-negative" if minimum == 0 else "positive" if minimum == 1 else f">= {minimum}"
        raise InvalidParameterError(f"{name} must be a {kind} int, got {value!r}")
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` itself if it is True or False; else a clear error."""
    if not isinstance(value, bool):
        raise InvalidParameterError(f"{name} must be True or False, got {value!r}")
    return value


def check_texts(name: str, texts: Sequence[str]) -> list[str]:
    """``texts`` as a list, after checking it is a sequence of ``str`` (not one ``str``, which
    would be read letter by letter): a plugin's input check for a list of texts, as the
    metrics check theirs. Fails naming ``name`` and the position of the first bad item."""
    if isinstance(texts, str):
        raise InvalidParameterError(f"{name} must be a list of str, not a single str; wrap it in a list")
    try:
        items = list(texts)
    except TypeError:
        raise InvalidParameterError(f"{name} must be a list of str, got {type(texts).__name__}") from None
    for position, text in enumerate(items):
        if not isinstance(text, str):
            raise InvalidParameterError(f"{name}[{position}] is {type(text).__name__}, expected str")
    return items


def check_seconds(name: str, value: Any) -> float | None:
    """``value`` as a float if it is a positive, finite number of seconds, None if None; else a
    clear error."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise InvalidParameterError(f"{name} must be a positive, finite number of seconds, or None for no limit; got {value!r}")
    return float(value)


def parse_cli_value(parameter: Parameter | None, raw: str) -> Any:
    """Convert ``raw`` (from ``-p key=value``) to the parameter's declared type.

    Uses the annotation when it names a simple type (bool, int, float, str), else the
    default's type, else a Python literal (numbers, lists, ``None``), else the string.
    """
    target = _simple_type(parameter)
    if target is bool:
        lowered = raw.strip().lower()
        if lowered in TRUE_WORDS:
            return True
        if lowered in FALSE_WORDS:
            return False
        raise InvalidParameterError(f"parameter {parameter.name!r} expects true or false, got {raw!r}")
    if target in (int, float):
        try:
            return target(raw)
        except ValueError:
            raise InvalidParameterError(
                f"parameter {parameter.name!r} expects {target.__name__}, got {raw!r}"
            ) from None
    if target is str:
        return raw
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw


def _simple_type(parameter: Parameter | None) -> type | None:
    if parameter is None:
        return None
    names = {"bool": bool, "int": int, "float": float, "str": str}
    if parameter.annotation in names:
        return names[parameter.annotation]
    default = parameter.default
    if default is not REQUIRED and type(default) in (bool, int, float, str):
        return type(default)
    return None


def _type_hints(function: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function)
    except Exception:  # unresolvable forward references: fall back to the raw annotations
        return {}


def _annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, type):
        return annotation.__name__
    return re.sub(r"\b(typing|collections\.abc)\.", "", str(annotation))


_SECTION = re.compile(r"^\s*(Parameters|Args|Arguments)\s*:?\s*$")
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
# A name may start with ``**`` (a ``**kwargs`` entry, such as a ranker's ``**weights``).
_NUMPY_ENTRY = re.compile(r"^(?P<indent>\s*)(?P<name>(?:\*\*)?\w+)\s*:\s*(?P<type>.*)$")
_GOOGLE_ENTRY = re.compile(r"^(?P<indent>\s*)(?P<name>(?:\*\*)?\w+)\s*(\([^)]*\))?\s*:\s*(?P<doc>.*)$")


def parse_docstring_parameters(docstring: str | None) -> dict[str, str]:
    """Descriptions of parameters from a numpy-style ``Parameters`` section or a
    Google-style ``Args:`` section, joined into one line each."""
    if not docstring:
        return {}
    lines = inspect.cleandoc(docstring).splitlines()
    for start, line in enumerate(lines):
        if _SECTION.match(line):
            break
    else:
        return {}
    body = lines[start + 1 :]
    numpy_style = bool(body) and bool(_UNDERLINE.match(body[0]))
    if numpy_style:
        body = body[1:]
    docs: dict[str, list[str]] = {}
    current: str | None = None
    entry_indent: int | None = None
    for line in body:
        if not line.strip():
            if numpy_style and current is None:
                continue
            continue
        indent = len(line) - len(line.lstrip())
        if entry_indent is not None and indent < entry_indent:
            break  # dedent: the section ended
        if numpy_style and _UNDERLINE.match(line):
            break  # the next numpy section's underline: drop its header line
        pattern = _NUMPY_ENTRY if numpy_style else _GOOGLE_ENTRY
        match = pattern.match(line)
        if match and (entry_indent is None or indent == entry_indent):
            entry_indent = indent
            current = match.group("name")
            docs[current] = [] if numpy_style else [match.group("doc").strip()]
        elif current is not None:
            docs[current].append(line.strip())
    if numpy_style:
        # A following section header ("Returns", "Examples") may have been read as text.
        for name, parts in docs.items():
            while parts and parts[-1] in {"Returns", "Examples", "Notes", "Raises", "See Also"}:
                parts.pop()
    return {name: " ".join(p for p in parts if p) for name, parts in docs.items()}
