"""Plugins, the built-in ones included, use only ``augkit`` and ``augkit.plugin``: every other
``augkit.*`` module is private (issue 14, section 5). Each module of the plugin packages under
plugins/ is parsed, and any import or attribute use of a private augkit module is named with
its file and line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import augkit

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
