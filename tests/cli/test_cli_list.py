"""``augkit list`` describes every method and filter by the whole first sentence of its
docstring, in plain text, wrapped to the terminal (issue 35, section 4)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import augkit
from augkit.terminal.plain_text import first_sentence, plain_text

REGISTRY = augkit.get_registry()
STEPS = [*(("method", name) for name in sorted(REGISTRY.methods)), *(("filter", name) for name in sorted(REGISTRY.filters))]


@pytest.mark.parametrize(("kind", "name"), STEPS, ids=[f"{kind}:{name}" for kind, name in STEPS])
def test_every_method_and_filter_is_described_by_its_whole_first_sentence_in_plain_text(kind, name):
    entry = (REGISTRY.methods if kind == "method" else REGISTRY.filters)[name]
    description = entry.description
    paragraph = " ".join(re.split(r"\n\s*\n", entry.cls.__doc__.strip())[0].split())
    assert description and description[-1] in ".?!", description
    for markup in ("`", ":func:", ":class:", ":meth:", "**"):
        assert markup not in description, description
    # the sentence is whole: the paragraph, markup aside, goes on with a new sentence or ends
    rest = plain_text(paragraph)[len(description):]
    assert plain_text(paragraph).startswith(description)
    assert rest == "" or re.match(r" [A-Z0-9(\"']", rest), rest[:40]


def test_a_sentence_ends_at_its_period_not_at_an_abbreviation_or_a_line_break():
    assert first_sentence("Keeps the best ``k``\n    (Liu et al. 2022), e.g. the top\n    two. Then more.") == (
        "Keeps the best k (Liu et al. 2022), e.g. the top two.")
    assert first_sentence("Uses :func:`~augkit.metrics.bertscore` and :class:`augkit.Pipeline`.") == (
        "Uses bertscore and augkit.Pipeline.")
    assert first_sentence("No period at all\nacross two lines") == "No period at all across two lines"
    assert first_sentence(None) == ""


def _listed(columns: str | None) -> list[str]:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    if columns:
        env["COLUMNS"] = columns
    done = subprocess.run([sys.executable, "-m", "augkit.cli", "list"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_piped_list_gives_one_line_per_row_with_its_whole_description():
    lines = _listed(None)
    for table, title in ((REGISTRY.methods, "METHOD"), (REGISTRY.filters, "FILTER")):
        section = _section(lines, title)
        for name, entry in table.items():
            row = [line for line in section if line.split(" ", 1)[0] == name]
            assert len(row) == 1 and row[0].endswith(f"  {entry.description}"), (name, row)


@pytest.mark.parametrize("columns", [80, 100, 200])
def test_a_terminal_gets_every_line_within_its_width_and_every_description_whole(columns):
    """Wide: descriptions wrap in their column; narrow: under their row, indented."""
    lines = _listed(str(columns))
    assert max(map(len, lines)) <= columns
    for table, title in ((REGISTRY.methods, "METHOD"), (REGISTRY.filters, "FILTER")):
        shown = _descriptions(_section(lines, title))
        assert shown == {name: entry.description for name, entry in table.items()}


def _section(lines: list[str], title: str) -> list[str]:
    """The lines of one table of ``augkit list``: its header to the blank line after it."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{title} "))
    end = lines.index("", start)
    return lines[start:end]


def _descriptions(lines: list[str]) -> dict[str, str]:
    """Each row's description as ``augkit list`` laid it out: the text under the DESCRIPTION
    header on the row's lines, or the indented lines under the row when the header has none."""
    found: dict[str, list[str]] = {}
    column, current = None, None
    for line in lines:
        if line.startswith(("METHOD ", "FILTER ")):
            column = line.find("DESCRIPTION") if "DESCRIPTION" in line else None
            current = None
        elif line.startswith("    ") and not line.startswith("     ") and column is None and current:
            found[current].append(line.strip())
        elif line.strip() and not line.startswith(" "):
            current = line.split(" ", 1)[0]
            found[current] = [line[column:].strip()] if column is not None else []
        elif line.strip() and column is not None and current:
            found[current].append(line[column:].strip())
    return {name: " ".join(part for part in parts if part) for name, parts in found.items()}
