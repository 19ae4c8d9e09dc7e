"""Named augmenters, filters, command-line commands, ``augkit train`` targets and tabs of
``augkit serve``'s page, with the plugin that registered each and helpful errors."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from augkit.augment_options import RESERVED_PARAMETERS
from augkit.errors import UnknownMethodError, UsageError
from augkit.steps.augmenter import Augmenter
from augkit.steps.filter import Filter
from augkit.steps.params import describe_parameters, instantiate, unknown_name_message

#: The commands of augkit's own command line (``augkit.cli.main``); a plugin command cannot take
#: these names. ``train`` runs the training targets plugins register
#: (``register_training_targets``), so that several plugins can add one each; ``serve``
#: shows the tabs plugins register (``register_web_tabs``) beside its general page.
BUILTIN_COMMANDS = frozenset({"list", "info", "augment", "evaluate", "train", "tune", "serve"})
#: The tab name of ``augkit serve``'s own page (every method); a plugin tab cannot take it.
BUILTIN_WEB_TABS = frozenset({"augment"})
#: A name: letters, digits, '_' or '-', starting with a letter; dotted segments of the same
#: form give a plugin a namespace of its own (``nlpaug.synonym``, a bridge to a peer library).
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)*$")
#: A command's, training target's or web tab's name: one segment (a word on the command line).
_COMMAND_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
#: What a command or training target registers: ``add_arguments(parser)`` fills its parser,
#: ``run(args)`` executes it and returns the exit code.
AddArguments = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]


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


@dataclass(frozen=True)
class RegisteredCommand:
    """A subcommand of the ``augkit`` command line that a plugin registered, or a target of
    ``augkit train`` (``augkit train NAME ...``).

    ``add_arguments(parser)`` adds the command's arguments to its ``argparse`` parser;
    ``run(args)`` executes it with the parsed arguments and returns the exit code.
    """

    name: str
    add_arguments: AddArguments
    run: Run
    help: str
    plugin: PluginInfo

    @property
    def description(self) -> str:
        return self.help


@dataclass(frozen=True)
class RegisteredWebTab:
    """A tab of ``augkit serve``'s page that a plugin registered: ``build(context)`` adds the
    tab's gradio components (it is called inside the tab; ``context`` is an
    :class:`augkit.plugin.TabContext`); ``title`` is the tab's label."""

    name: str
    build: Callable[[Any], None]
    title: str
    plugin: PluginInfo


@dataclass
class Registry:
    """Every augmenter, filter and command the installed plugins registered."""

    methods: dict[str, Registered] = field(default_factory=dict)
    filters: dict[str, Registered] = field(default_factory=dict)
    commands: dict[str, RegisteredCommand] = field(default_factory=dict)
    training_targets: dict[str, RegisteredCommand] = field(default_factory=dict)
    web_tabs: dict[str, RegisteredWebTab] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def add_augmenter(self, cls: Any, *, plugin: PluginInfo) -> None:
        """``register`` callback of the ``register_augmenters`` hook."""
        self._add(cls, plugin, Augmenter, self.methods, "augmenter")

    def add_filter(self, cls: Any, *, plugin: PluginInfo) -> None:
        """``register`` callback of the ``register_filters`` hook."""
        self._add(cls, plugin, Filter, self.filters, "filter")

    def add_command(self, name: str, add_arguments: AddArguments, run: Run, *, help: str = "", plugin: PluginInfo) -> None:
        """``register`` callback of the ``register_commands`` hook. An invalid, built-in or
        already registered name becomes a problem (reported, the command skipped)."""
        self._add_command(self.commands, "command", BUILTIN_COMMANDS, name, add_arguments, run, help, plugin)

    def add_training_target(
        self, name: str, add_arguments: AddArguments, run: Run, *, help: str = "", plugin: PluginInfo
    ) -> None:
        """``register`` callback of the ``register_training_targets`` hook (``augkit train
        NAME``). An invalid or already registered name becomes a problem (reported, skipped)."""
        self._add_command(self.training_targets, "training target", frozenset(), name, add_arguments, run, help, plugin)

    def add_web_tab(self, name: str, build: Callable[[Any], None], *, title: str = "", plugin: PluginInfo) -> None:
        """``register`` callback of the ``register_web_tabs`` hook. An invalid, built-in or
        already registered name, or a ``build`` that is not callable, becomes a problem."""
        problem = None
        if not isinstance(name, str) or not _COMMAND_NAME.match(name):
            problem = f"web tab has an invalid name {name!r} (letters, digits, '_' or '-')"
        elif name in BUILTIN_WEB_TABS:
            problem = f"web tab name {name!r} is augkit's own page"
        elif not callable(build):
            problem = f"web tab {name!r}: build must be callable, got {build!r}"
        elif name in self.web_tabs:
            problem = f"web tab name {name!r} is already registered by plugin {self.web_tabs[name].plugin.name!r}"
        if problem is not None:
            self.problems.append(f"plugin {plugin.name!r} ({plugin.distribution}): {problem}")
            return
        self.web_tabs[name] = RegisteredWebTab(name, build, str(title or name), plugin)

    def _add_command(self, table, kind, reserved, name, add_arguments, run, help, plugin) -> None:
        problem = _command_problem(kind, reserved, name, add_arguments, run, help)
        if problem is None and name in table:
            other = table[name].plugin
            problem = f"{kind} name {name!r} is already registered by plugin {other.name!r}"
        if problem is not None:
            self.problems.append(f"plugin {plugin.name!r} ({plugin.distribution}): {problem}")
            return
        table[name] = RegisteredCommand(name, add_arguments, run, help, plugin)

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
        """The registered augmenter called ``name``, or an error listing what exists (and
        saying so when ``name`` is a filter, which cannot generate)."""
        if isinstance(name, str) and name not in self.methods and name in self.filters:
            raise UnknownMethodError(f"{name!r} is a filter, not a method: it keeps, drops or ranks what a method "
                                     f"generates; put it after one, e.g. 'eda|{name}'")
        return _lookup(self.methods, name, "method")

    def filter(self, name: str) -> Registered:
        """The registered filter called ``name``, or an error listing what exists (and saying
        so when ``name`` is a method, which cannot filter)."""
        if isinstance(name, str) and name not in self.filters and name in self.methods:
            raise UnknownMethodError(f"{name!r} is a method, not a filter: it generates candidates; put it first, "
                                     f"e.g. '{name}|dedup', or combine methods with '+'")
        return _lookup(self.filters, name, "filter")

    def training_target(self, name: str) -> RegisteredCommand:
        """The ``augkit train`` target called ``name``, or a usage error suggesting close names
        and listing the registered ones."""
        if name in self.training_targets:
            return self.training_targets[name]
        raise UsageError(unknown_name_message("training target", name, list(self.training_targets), listing="available"))

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
    from augkit.registry.known import not_installed_message

    missing = not_installed_message(name, kind)
    if missing is not None:
        raise UnknownMethodError(f"{missing} (installed {kind}s: {', '.join(sorted(table)) or '(none)'})")
    raise UnknownMethodError(unknown_name_message(kind, name, list(table), listing="available"))


def _registration_problem(cls: Any, base: type, kind: str) -> str | None:
    if not (isinstance(cls, type) and issubclass(cls, base)):
        return f"registered {cls!r}, which is not a subclass of augkit.{base.__name__}"
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not _NAME.match(name):
        return f"{kind} {cls.__name__} has an invalid name {name!r} (letters, digits, '_' or '-', dotted segments allowed)"
    try:
        names = {p.name for p in describe_parameters(cls)}
    except (TypeError, ValueError) as error:
        return f"{kind} {name!r}: cannot read constructor parameters ({error})"
    clash = sorted(names & RESERVED_PARAMETERS)
    if clash:
        return (f"{kind} {name!r} uses reserved parameter name(s) {', '.join(clash)}: augkit.augment takes "
                f"{'them' if len(clash) > 1 else 'it'} itself, so no value could reach the {kind}; rename "
                f"{'them' if len(clash) > 1 else 'it'} (augkit.plugin.RESERVED_PARAMETERS lists every reserved name)")
    return None


def _command_problem(kind: str, reserved: frozenset, name: Any, add_arguments: Any, run: Any, help: Any) -> str | None:
    if not isinstance(name, str) or not _COMMAND_NAME.match(name):
        return f"{kind} has an invalid name {name!r} (letters, digits, '_' or '-')"
    if name in reserved:
        return f"{kind} name {name!r} is a built-in command of augkit ({', '.join(sorted(reserved))})"
    for role, function in (("add_arguments", add_arguments), ("run", run)):
        if not callable(function):
            return f"{kind} {name!r}: {role} must be callable, got {function!r}"
    if not isinstance(help, str):
        return f"{kind} {name!r}: help must be a string, got {type(help).__name__}"
    return None
