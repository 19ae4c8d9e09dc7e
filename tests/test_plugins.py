"""Plugins are found through entry points; broken ones are reported and skipped."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

import augkit
from augkit.registry import PluginInfo, Registry


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
    assert lines["eda"][1] == "augkit-eda"
    assert lines["aeda"][1] == "augkit-aeda"
    assert lines["dedup"][1] == "augkit"
    assert "skipped: plugin 'broken'" in done.stderr


class NotAnAugmenter:
    name = "plain"


class ReservedParameter(augkit.Augmenter):
    name = "reserved"

    def __init__(self, seed: int = 0):
        self.seed = seed


class BadName(augkit.Augmenter):
    name = "has space"


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


def test_unknown_method_suggests_close_names_and_lists_all():
    with pytest.raises(augkit.UnknownMethodError) as caught:
        augkit.augment(pd.DataFrame({"text": ["a b"]}), method="edaa")
    message = str(caught.value)
    assert "unknown method 'edaa'; did you mean 'eda'" in message
    assert "available: aeda, eda" in message
