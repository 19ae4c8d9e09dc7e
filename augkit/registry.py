"""Named augmenters and filters, with the plugin that registered each and helpful errors."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from augkit.augmenter import Augmenter
from augkit.errors import UnknownMethodError
from augkit.filters.base import Filter
from augkit.params import describe_parameters, instantiate, unknown_name_message

#: Keyword arguments of :func:`augkit.augment` itself; a plugin parameter of the same name
#: could never be passed, so such a plugin class is refused at registration.
RESERVED_PARAMETERS = frozenset(
    {"data", "method", "n", "seed", "text_column", "label_column", "keep_original",
     "progress", "batch_size", "coerce", "workers"}
)
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@dataclass(frozen=True)
class PluginInfo:
    """The entry point name of a plugin and the distribution that ships it."""

    name: str
    distribution: str
    version: str


@dataclass(frozen=True)
class Registered:
    """A registered augmenter or filter class and where it came from."""

    name: str
    cls: type
    plugin: PluginInfo

    @property
    def description(self) -> str:
        return self.cls.description()


@dataclass
class Registry:
    """Every augmenter and filter the installed plugins registered."""

    methods: dict[str, Registered] = field(default_factory=dict)
    filters: dict[str, Registered] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def add_augmenter(self, cls: Any, *, plugin: PluginInfo) -> None:
        """``register`` callback of the ``register_augmenters`` hook."""
        self._add(cls, plugin, Augmenter, self.methods, "augmenter")

    def add_filter(self, cls: Any, *, plugin: PluginInfo) -> None:
        """``register`` callback of the ``register_filters`` hook."""
        self._add(cls, plugin, Filter, self.filters, "filter")

    def _add(self, cls, plugin, base, table, kind) -> None:
        problem = _registration_problem(cls, base, kind)
        if problem is None and cls.name in table:
            other = table[cls.name].plugin
            problem = f"{kind} name {cls.name!r} is already registered by plugin {other.name!r}"
        if problem is not None:
            self.problems.append(f"plugin {plugin.name!r} ({plugin.distribution}): {problem}")
            return
        table[cls.name] = Registered(cls.name, cls, plugin)

    def method(self, name: str) -> Registered:
        """The registered augmenter called ``name``, or an error listing what exists."""
        return _lookup(self.methods, name, "method")

    def filter(self, name: str) -> Registered:
        """The registered filter called ``name``, or an error listing what exists."""
        return _lookup(self.filters, name, "filter")

    def create_augmenter(self, name: str, params: Mapping[str, Any] | None = None) -> Augmenter:
        entry = self.method(name)
        return instantiate(entry.cls, name, params or {})

    def create_filter(self, name: str, params: Mapping[str, Any] | None = None) -> Filter:
        entry = self.filter(name)
        return instantiate(entry.cls, name, params or {})


def _lookup(table: Mapping[str, Registered], name: str, kind: str) -> Registered:
    if not isinstance(name, str):
        raise UnknownMethodError(f"{kind} must be a name (str), got {type(name).__name__}")
    if name in table:
        return table[name]
    raise UnknownMethodError(unknown_name_message(kind, name, list(table), listing="available"))


def _registration_problem(cls: Any, base: type, kind: str) -> str | None:
    if not (isinstance(cls, type) and issubclass(cls, base)):
        return f"registered {cls!r}, which is not a subclass of augkit.{base.__name__}"
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not _NAME.match(name):
        return f"{kind} {cls.__name__} has an invalid name {name!r} (letters, digits, '_' or '-')"
    try:
        names = {p.name for p in describe_parameters(cls)}
    except (TypeError, ValueError) as error:
        return f"{kind} {name!r}: cannot read constructor parameters ({error})"
    clash = sorted(names & RESERVED_PARAMETERS)
    if clash:
        return f"{kind} {name!r} uses reserved parameter name(s) {', '.join(clash)}"
    return None
