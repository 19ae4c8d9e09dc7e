"""One version for the project: augkit's and every plugin's; ``augkit --version`` shows them;
the typed public API is marked (PEP 561) and the changelog starts at that version."""

from __future__ import annotations

import importlib.resources
import tomllib
from pathlib import Path

import augkit
from augkit.testing import run_command_captured
from conftest import plugin_distribution_folders

REPO = Path(__file__).resolve().parents[2]


def _project(pyproject: Path) -> dict:
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))


def test_every_plugin_has_augkits_version():
    plugins = plugin_distribution_folders()
    assert len(plugins) >= 8  # the distributions; EDA and AEDA are built into augkit's
    for folder in plugins:
        assert _project(folder / "pyproject.toml")["project"]["version"] == augkit.__version__, folder


def test_version_shows_augkit_and_each_installed_plugin():
    shown = run_command_captured(["--version"])
    assert shown.returncode == 0
    lines = shown.stdout.splitlines()
    assert lines[0] == f"augkit {augkit.__version__}"
    registry = augkit.get_registry()
    for entry in registry.methods.values():
        plugin = entry.plugin
        if plugin.distribution != "augkit":  # a test's own plugin (augkit-shout) shows its own version
            assert any(line.startswith(f"  {plugin.distribution} {plugin.version} (") for line in lines[1:]), plugin
    ours = {folder.name for folder in plugin_distribution_folders()}
    assert ours <= {line.split()[0] for line in lines[1:]}
    assert "  augkit-paramac 0.1.0 (paramac)" in lines


def test_the_public_api_is_marked_typed_and_shipped():
    assert (importlib.resources.files("augkit") / "py.typed").is_file()
    assert "py.typed" in _project(REPO / "pyproject.toml")["tool"]["setuptools"]["package-data"]["augkit"]


def test_the_changelog_starts_at_the_current_version():
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {augkit.__version__}" in changelog
