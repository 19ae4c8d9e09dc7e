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
        if entry.plugin.distribution in {"augkit-eda", "augkit-aeda", "augkit-backtranslation"}:
            assert (REPO / "docs" / "methods" / f"{name}.md").is_file(), name


def _slug(heading: str) -> str:
    """GitHub's anchor for a markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_relative_links_in_the_docs_point_to_existing_files_and_headings():
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://|mailto:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.relative_to(REPO)}: {target} (no such file)")
            elif anchor and file.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), re.MULTILINE)
                if anchor not in {_slug(h) for h in headings}:
                    broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)
