"""Plugins, the built-in ones included, use only ``augkit`` and ``augkit.plugin``: every other
``augkit.*`` module is private (issue 14, section 5). Each module of the plugin packages under
plugins/ is parsed, and any import or attribute use of a private augkit module is named with
its file and line."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import augkit
import augkit.plugin

REPO = Path(__file__).resolve().parents[2]
PLUGIN_MODULES = sorted(REPO.glob("plugins/*/augkit_*/**/*.py"))
#: The modules a plugin may import: the package and the plugin authors' module.
PUBLIC_MODULES = frozenset({"augkit", "augkit.plugin"})


def private_uses(path: Path, root: Path = REPO) -> list[str]:
    """``file:line: what`` for every use of a private augkit module in ``path``: ``import
    augkit.x``, ``from augkit.x import y``, ``from augkit import x`` and ``augkit.x`` where x
    is not in ``augkit.__all__``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    public_names = set(augkit.__all__) | {"plugin"}
    where = path.relative_to(root)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{where}:{node.lineno}: import {alias.name}" for alias in node.names
                      if alias.name.startswith("augkit.") and alias.name not in PUBLIC_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("augkit.") and node.module not in PUBLIC_MODULES:
                found.append(f"{where}:{node.lineno}: from {node.module} import ...")
            elif node.module == "augkit":
                found += [f"{where}:{node.lineno}: from augkit import {alias.name}" for alias in node.names
                          if alias.name not in public_names]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "augkit"
              and node.attr not in public_names):
            found.append(f"{where}:{node.lineno}: augkit.{node.attr}")
    return found


def test_the_plugins_are_found():
    packages = {path.relative_to(REPO).parts[1] for path in PLUGIN_MODULES}
    assert {"augkit-eda", "augkit-aeda", "augkit-backtranslation", "augkit-faq"} <= packages


@pytest.mark.parametrize("path", PLUGIN_MODULES, ids=lambda p: str(p.relative_to(REPO / "plugins")))
def test_plugin_modules_import_only_augkit_and_augkit_plugin(path):
    uses = private_uses(path)
    assert not uses, "private augkit modules used (import them from augkit.plugin):\n" + "\n".join(uses)


def test_the_check_names_file_and_line_of_a_private_import(tmp_path):
    module = tmp_path / "sneaky.py"
    module.write_text(
        "import augkit\nfrom augkit.plugin import Candidate\nfrom augkit.text import split_words\n"
        "import augkit.models\nfrom augkit import Augmenter, cli\nx = augkit.filters.SemanticFilter\n",
        encoding="utf-8",
    )
    assert private_uses(module, tmp_path) == [
        "sneaky.py:3: from augkit.text import ...",
        "sneaky.py:4: import augkit.models",
        "sneaky.py:5: from augkit import cli",
        "sneaky.py:6: augkit.filters",
    ]


PLUGIN_GUIDE = REPO / "docs" / "plugin-authors.md"
#: augkit's own rooms a plugin must never reach, even through augkit.plugin: they sit above it.
COMMAND_LINE_AND_WEB = ("augkit.cli", "augkit.web")


def documented_plugin_names(guide: str) -> set[str]:
    """The names the plugin guide documents for ``augkit.plugin``: every `name` in the second
    (*names*) column of the table in its section "The plugin module"."""
    section = guide.split("\n## The plugin module", 1)[1].split("\n### ", 1)[0]
    names = set()
    for line in section.splitlines():
        cells = line.split("|")
        if line.startswith("| ") and len(cells) > 3 and cells[1].strip() != "group":
            names |= set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[2]))
    return names


def home_module(name: str) -> str:
    """The module ``augkit.plugin.<name>`` comes from: its lazy source, else the module that
    defines the object (a constant imported eagerly: the module it was imported from)."""
    lazy = augkit.plugin._LAZY.get(name)
    if lazy is not None:
        return getattr(getattr(importlib.import_module(lazy), name), "__module__", None) or lazy
    value = getattr(augkit.plugin, name)
    return getattr(value, "__module__", None) or "augkit.plugin"


def test_augkit_plugin_holds_exactly_what_the_plugin_guide_documents():
    documented = documented_plugin_names(PLUGIN_GUIDE.read_text(encoding="utf-8"))
    exported = set(augkit.plugin.__all__)
    assert len(augkit.plugin.__all__) == len(exported), "a name is listed twice in augkit.plugin.__all__"
    assert not exported - documented, f"in augkit.plugin but not in docs/plugin-authors.md: {sorted(exported - documented)}"
    assert not documented - exported, f"in docs/plugin-authors.md but not in augkit.plugin: {sorted(documented - exported)}"
    assert all(hasattr(augkit.plugin, name) for name in exported)


def test_the_guide_table_reader_finds_a_name_missing_either_way(tmp_path):
    guide = PLUGIN_GUIDE.read_text(encoding="utf-8")
    assert "Augmenter" in documented_plugin_names(guide)
    assert "key" not in documented_plugin_names(guide)  # a method named in the "what for" column
    assert "Augmenter" not in documented_plugin_names(guide.replace("`Augmenter`, `Filter`", "`Filter`", 1))


def test_no_name_of_augkit_plugin_comes_from_the_command_line():
    from_cli = {name: home_module(name) for name in augkit.plugin.__all__ if home_module(name).startswith("augkit.cli")}
    assert not from_cli, f"augkit.plugin re-exports the command line's own names: {from_cli}"
    assert not any(module.startswith(COMMAND_LINE_AND_WEB[0]) for module in augkit.plugin._LAZY.values())


def test_no_name_of_augkit_plugin_comes_from_the_web_page():
    from_web = {name: home_module(name) for name in augkit.plugin.__all__ if home_module(name).startswith("augkit.web")}
    assert not from_web, f"augkit.plugin re-exports the web page's own names: {from_web}"
    assert not any(module.startswith(COMMAND_LINE_AND_WEB[1]) for module in augkit.plugin._LAZY.values())
