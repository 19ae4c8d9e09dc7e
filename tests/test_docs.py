"""The README's example output is what augkit really prints, and the docs name every built-in."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import augkit

REPO = Path(__file__).resolve().parents[1]


def test_readme_example_output_is_current():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^(augkit\.augment\(\[.*\)\)?)\n# (\[\[.*\]\])$", readme, re.MULTILINE)
    assert match, "README lost its list example"
    call = ast.parse(match.group(1), mode="eval").body
    texts = ast.literal_eval(call.args[0])
    method = ast.literal_eval(call.args[1])
    keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    assert augkit.augment(texts, method, **keywords) == ast.literal_eval(match.group(2))


def test_readme_opens_with_the_two_commands():
    first_lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()[:4]
    assert first_lines[0] == "```sh"
    assert first_lines[1].startswith("make demo") and first_lines[2].startswith("make test")
    assert "make test" in (REPO / ".ci" / "run").read_text()


def test_every_builtin_method_has_a_page():
    for name, entry in augkit.get_registry().methods.items():
        if entry.plugin.distribution in {"augkit-eda", "augkit-aeda"}:
            assert (REPO / "docs" / "methods" / f"{name}.md").is_file(), name
