"""Plugins are found through entry points; broken ones are reported and skipped."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pandas as pd
import pluggy
import pytest

import augkit
from augkit.cli.main import main
from augkit.registry import hookspecs
from augkit.registry.discovery import LoadedPlugins, build_registry
from augkit.registry.registered import PluginInfo, Registry


def test_installed_plugin_is_found_through_its_entry_point(installed_test_plugins):
    entry = augkit.get_registry().method("shout")
    assert entry.plugin.distribution == "augkit-shout"
    assert entry.plugin.version == "0.3.1"
    assert entry.description == "Upper-cases the text and adds exclamation marks."


def test_installed_plugin_augments_a_dataframe_with_its_parameters(installed_test_plugins, banking77_10shot):
    frame = banking77_10shot.head(3)
    out = augkit.augment(frame, method="shout", n=2, marks=3)
    augmented = out[out["augkit_method"].notna()]
    assert augmented["text"].tolist() == [t.upper() + "!" * k for t in frame["text"] for k in (3, 4)]
    assert (augmented["augkit_method"] == "shout").all()


def test_broken_plugin_is_reported_and_skipped(installed_test_plugins):
    with pytest.warns(RuntimeWarning, match="broken"):
        augkit.reset_registry()
        registry = augkit.get_registry()
    assert any("'broken'" in p and "a_module_that_does_not_exist" in p for p in registry.problems)
    assert {"eda", "aeda", "shout"} <= set(registry.methods)


def test_cli_list_shows_plugins_with_versions_and_skipped_ones(installed_test_plugins):
    env = {**os.environ, "PYTHONPATH": str(installed_test_plugins)}
    done = subprocess.run([sys.executable, "-m", "augkit.cli", "list"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.strip()}
    assert lines["shout"][1:3] == ["augkit-shout", "0.3.1"]
    assert lines["eda"][1] == "augkit"  # built into augkit's distribution
    assert lines["aeda"][1] == "augkit"
    assert lines["dedup"][1] == "augkit"
    assert lines["COMMAND"] == ["COMMAND", "PLUGIN", "VERSION", "DESCRIPTION"]
    assert lines["shout-file"] == ["shout-file", "augkit-shout", "0.3.1", "shout", "every", "line", "of", "a", "text", "file"]
    assert "skipped: plugin 'broken'" in done.stderr


def test_plugin_command_runs_through_the_cli(installed_test_plugins, banking77_sentences, tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text("\n".join(banking77_sentences[:5]) + "\n", encoding="utf-8")
    assert main(["shout-file", str(source), "-o", str(tmp_path / "out.txt"), "--marks", "2"]) == 0
    shouted = (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()
    assert shouted == [text.upper() + "!!" for text in banking77_sentences[:5]]
    assert main(["shout-file", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "x.txt")]) == 2
    assert "augkit: error: input file" in capsys.readouterr().err
    assert not (tmp_path / "x.txt").exists()


def test_plugin_command_is_in_the_help(installed_test_plugins, capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    help_text = capsys.readouterr().out
    assert re.search(r"^ +shout-file\s+shout every line of a text file$", help_text, re.MULTILINE)  # wrapped or not
    assert re.search(r"^ +augment +augment a CSV", help_text, re.MULTILINE)
    with pytest.raises(SystemExit) as done:
        main(["shout-file", "--help"])
    assert done.value.code == 0
    own_help = capsys.readouterr().out
    assert own_help.startswith("usage: augkit shout-file [-h] -o OUTPUT [--marks MARKS] INPUT")
    assert "exclamation marks per line" in own_help


class NotAnAugmenter:
    name = "plain"


class ReservedParameter(augkit.Augmenter):
    name = "reserved"

    def __init__(self, seed: int = 0):
        self.seed = seed


class BadName(augkit.Augmenter):
    name = "has space"


class TrailingDot(augkit.Augmenter):
    name = "peer."


class First(augkit.Augmenter):
    name = "twin"


class Second(augkit.Augmenter):
    name = "twin"


@pytest.mark.parametrize(
    "cls, message",
    [
        (NotAnAugmenter, "not a subclass of augkit.Augmenter"),
        (ReservedParameter, "reserved parameter name(s) seed"),
        (BadName, "invalid name 'has space'"),
        (TrailingDot, "invalid name 'peer.'"),
    ],
)
def test_invalid_registrations_become_problems_not_crashes(cls, message):
    registry = Registry()
    registry.add_augmenter(cls, plugin=PluginInfo("p", "dist-p", "1"))
    assert cls.name not in registry.methods
    assert message in registry.problems[0]


def test_duplicate_names_keep_the_first_and_report_the_second():
    registry = Registry()
    registry.add_augmenter(First, plugin=PluginInfo("a", "dist-a", "1"))
    registry.add_augmenter(Second, plugin=PluginInfo("b", "dist-b", "1"))
    assert registry.methods["twin"].cls is First
    assert "already registered by plugin 'a'" in registry.problems[0]


def _noop_arguments(parser):
    pass


def _run_ok(args):
    return 0


class CommandPlugin:
    """A plugin registering the commands given, as a third party's module would."""

    def __init__(self, *names):
        self.names = names

    @augkit.hookimpl
    def register_commands(self, register):
        for name in self.names:
            register(name, _noop_arguments, _run_ok, help=f"the {name} command")


def registry_of(**plugins) -> Registry:
    """Build a registry through pluggy's real hook calls from in-memory plugins."""
    manager = pluggy.PluginManager("augkit")
    manager.add_hookspecs(hookspecs)
    for name, plugin in plugins.items():
        manager.register(plugin, name=name)
    infos = {name: PluginInfo(name, f"dist-{name}", "1.0") for name in plugins}
    return build_registry(LoadedPlugins(manager, infos, []))


def test_plugin_commands_are_registered_with_their_plugin():
    registry = registry_of(first=CommandPlugin("parabank", "faq"))
    assert sorted(registry.commands) == ["faq", "parabank"]
    command = registry.commands["parabank"]
    assert (command.plugin.distribution, command.help, command.run) == ("dist-first", "the parabank command", _run_ok)
    assert registry.problems == []


@pytest.mark.parametrize("builtin", ["list", "info", "augment", "evaluate", "train", "tune", "serve"])
def test_command_named_like_a_builtin_is_reported_and_skipped(builtin):
    registry = registry_of(rogue=CommandPlugin(builtin, "fine"))
    assert list(registry.commands) == ["fine"]
    assert registry.problems == [
        f"plugin 'rogue' (dist-rogue): command name {builtin!r} is a built-in command of augkit (augment, evaluate, info, list, serve, train, tune)"
    ]


def test_same_command_name_twice_keeps_the_first_and_reports_the_second():
    registry = registry_of(a=CommandPlugin("parabank"), b=CommandPlugin("parabank", "faq"))
    assert registry.commands["parabank"].plugin.name == "a"
    assert sorted(registry.commands) == ["faq", "parabank"]
    assert registry.problems == ["plugin 'b' (dist-b): command name 'parabank' is already registered by plugin 'a'"]
    again = registry_of(solo=CommandPlugin("parabank", "parabank"))
    assert list(again.commands) == ["parabank"]
    assert "already registered by plugin 'solo'" in again.problems[0]


class TabPlugin:
    """Registers web tabs of augkit serve's page by name."""

    def __init__(self, *names):
        self.names = names

    @augkit.hookimpl
    def register_web_tabs(self, register):
        for name in self.names:
            register(name, _noop_arguments, title=f"the {name} page")


def test_web_tabs_are_registered_with_their_plugin_and_bad_ones_reported():
    registry = registry_of(first=TabPlugin("faq", "augment", "has space"), second=TabPlugin("faq", "glossary"))
    assert sorted(registry.web_tabs) == ["faq", "glossary"]
    assert (registry.web_tabs["faq"].plugin.name, registry.web_tabs["faq"].title) == ("first", "the faq page")
    assert registry.problems == [
        "plugin 'first' (dist-first): web tab name 'augment' is augkit's own page",
        "plugin 'first' (dist-first): web tab has an invalid name 'has space' (letters, digits, '_' or '-')",
        "plugin 'second' (dist-second): web tab name 'faq' is already registered by plugin 'first'",
    ]


@pytest.mark.parametrize(
    "name, add_arguments, run, message",
    [
        ("has space", _noop_arguments, _run_ok, "invalid name 'has space'"),
        ("-x", _noop_arguments, _run_ok, "invalid name '-x'"),
        ("peer.cmd", _noop_arguments, _run_ok, "invalid name 'peer.cmd'"),  # a method may have dots, a command not
        (None, _noop_arguments, _run_ok, "invalid name None"),
        ("ok", "not callable", _run_ok, "add_arguments must be callable"),
        ("ok", _noop_arguments, None, "run must be callable"),
    ],
)
def test_invalid_command_registrations_become_problems(name, add_arguments, run, message):
    registry = Registry()
    registry.add_command(name, add_arguments, run, help="h", plugin=PluginInfo("p", "dist-p", "1"))
    assert registry.commands == {}
    assert message in registry.problems[0]


def test_unknown_method_suggests_close_names_and_lists_all():
    with pytest.raises(augkit.UnknownMethodError) as caught:
        augkit.augment(pd.DataFrame({"text": ["a b"]}), method="edaa")
    message = str(caught.value)
    assert "unknown method 'edaa'; did you mean 'eda'" in message
    assert "available: aeda, backtranslation, contextual, eda" in message


def test_a_filter_named_as_a_method_and_a_method_named_as_a_filter_are_told_apart(banking77_sentences):
    frame = pd.DataFrame({"text": banking77_sentences[:3]})
    with pytest.raises(augkit.UnknownMethodError, match=r"'dedup' is a filter, not a method: .* e.g. 'eda\|dedup'"):
        augkit.augment(frame, method="dedup")
    with pytest.raises(augkit.UnknownMethodError, match=r"'aeda' is a method, not a filter: .* e.g. 'aeda\|dedup'"):
        augkit.augment(frame, method="eda|aeda")
