"""The documentation site (mkdocs.yml) builds with ``--strict``, its API reference lists every
public name, and a broken link fails the build naming the link."""

from __future__ import annotations

import html
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

#: Each module the API reference documents, and its page in the built site. The names to find
#: are the module's own ``__all__``, read when the test runs.
REFERENCE_PAGES = {
    "augkit": "reference/augkit/index.html",
    "augkit.plugin": "reference/plugin/index.html",
    **{
        f"augkit_{name}": "reference/plugins/index.html"
        for name in ("eda", "aeda", "backtranslation", "faq", "paramac", "pointer", "contextual", "erap", "llm",
                     "nlpaug")
    },
}

pytestmark = pytest.mark.slow  # a build reads every page and docstring: 15 to 20 s


def build_site(config: Path, site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of ``config`` into ``site``, run from ``site``'s folder so that
    nothing can land in the repository by a relative path."""
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # mkdocs-material's banner about mkdocs 2
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          cwd=site.parent, capture_output=True, text=True, env=environment, timeout=600)


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("docs") / "site"
    had_site_folder = (REPO / "site").exists()
    done = build_site(REPO / "mkdocs.yml", site)
    assert done.returncode == 0, done.stderr
    assert (REPO / "site").exists() == had_site_folder, "the build wrote site/ into the repository"
    return site


def anchors(page: Path) -> set[str]:
    return {html.unescape(anchor) for anchor in re.findall(r'\bid="([^"]+)"', page.read_text(encoding="utf-8"))}


def test_the_site_builds_strictly_with_the_readme_as_its_home_page(built_site):
    home = (built_site / "index.html").read_text(encoding="utf-8")
    assert "Text data augmentation for labelled datasets" in home
    # README's links are written from the repository's root (docs/user-guide.md#...)
    assert 'href="user-guide/#the-trace-what-became-of-every-candidate"' in home
    assert 'href="docs/' not in home


@pytest.mark.parametrize("module", REFERENCE_PAGES)
def test_the_api_reference_lists_every_name_in_the_modules_all(built_site, module):
    names = importlib.import_module(module).__all__
    found = anchors(built_site / REFERENCE_PAGES[module])
    missing = [name for name in names if f"{module}.{name}" not in found]
    assert not missing, f"{module}: not in the API reference: {missing}"


def test_a_broken_link_fails_the_strict_build_naming_it(tmp_path):
    """A copy of the repository whose EDA page links to a file, a page and a heading that do
    not exist. Only docs/ is copied; everything else is linked (the build only reads it)."""
    copy = tmp_path / "repo"
    copy.mkdir()
    for entry in REPO.iterdir():
        if entry.name == "docs":
            shutil.copytree(entry, copy / "docs")
        elif entry.name != "site":
            (copy / entry.name).symlink_to(entry)
    broken = ["../../benchmarks/no_such_benchmark.py", "../no-such-page.md", "../models.md#no-such-heading"]
    with open(copy / "docs" / "methods" / "eda.md", "a", encoding="utf-8") as page:
        page.write("\n" + " ".join(f"[broken]({link})" for link in broken) + "\n")

    done = build_site(copy / "mkdocs.yml", tmp_path / "site")

    assert done.returncode != 0
    for link in broken:
        assert f"'{link}'" in done.stderr, link
