"""Asking for a method or filter of augkit's own plugins that is not installed says which
distribution provides it and the extra that installs it; ``augkit list --all`` lists them."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import augkit
from augkit.errors import UnknownMethodError
from augkit.registry.known import KNOWN_STEPS
from augkit.registry.registered import Registry
from augkit.testing import run_command_captured
from conftest import is_repository_plugin, registered_built_in_methods

REPO = Path(__file__).resolve().parents[2]


def test_the_table_is_what_the_repositorys_plugins_register():
    registry = augkit.get_registry()
    from_plugins = {name: ("method", entry.plugin.distribution) for name, entry in registry.methods.items()
                    if is_repository_plugin(entry.plugin)}
    from_plugins |= {name: ("filter", entry.plugin.distribution) for name, entry in registry.filters.items()
                     if is_repository_plugin(entry.plugin)}
    assert {name: (known.kind, known.distribution) for name, known in KNOWN_STEPS.items()} == from_plugins
    assert {name for name, known in KNOWN_STEPS.items() if known.kind == "method"} == registered_built_in_methods()


def test_each_extra_installs_its_distribution():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    entry_points = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]["augkit"]
    for name, known in KNOWN_STEPS.items():
        if known.extra is None:  # built in: augkit's own entry points register it
            assert known.distribution == "augkit" and entry_points.get(name) == f"augkit_{name}", name
            continue
        assert any(requirement.startswith(known.distribution + ">=") for requirement in extras[known.extra]), known


@pytest.mark.parametrize("name", sorted(KNOWN_STEPS))
def test_a_missing_built_in_step_names_its_distribution_and_extra(name):
    known = KNOWN_STEPS[name]
    empty = Registry()
    lookup = empty.method if known.kind == "method" else empty.filter
    with pytest.raises(UnknownMethodError) as caught:
        lookup(name)
    if known.extra is None:
        assert str(caught.value).startswith(
            f"{known.kind} {name!r} is built into augkit, but is not registered (a damaged install): "
            "pip install --force-reinstall augkit")
    else:
        assert str(caught.value).startswith(
            f"{known.kind} {name!r} is provided by {known.distribution}, which is not installed: "
            f"pip install 'augkit[{known.extra}]'")


def test_an_unknown_name_still_suggests_close_ones():
    with pytest.raises(UnknownMethodError, match=r"did you mean 'eda'"):
        augkit.get_registry().method("edaa")


def test_list_all_shows_what_is_not_installed(monkeypatch):
    import augkit.registry.discovery as discovery

    installed = run_command_captured(["list", "--all"])
    assert installed.returncode == 0
    not_installed = installed.stdout.split("NOT INSTALLED", 1)[1]
    assert "pip install" not in not_installed  # every plugin of the repository is installed here
    registry = augkit.get_registry()
    without = Registry(methods={k: v for k, v in registry.methods.items() if v.plugin.distribution != "augkit-paramac"},
                       filters=dict(registry.filters))
    monkeypatch.setattr(discovery, "get_registry", lambda: without)
    shown = run_command_captured(["list", "--all"])
    rows = [line.split() for line in shown.stdout.split("NOT INSTALLED", 1)[1].splitlines() if line.strip()]
    assert ["paramac", "method", "augkit-paramac", "pip", "install", "'augkit[paramac]'"] in rows
    assert len([row for row in rows if "pip" in row]) == 1
