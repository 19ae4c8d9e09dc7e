"""Sections of a docs page that a benchmark script writes between its own markers, so that
several scripts can share one page (docs/benchmarks/label-safety.md is written by three)."""

from __future__ import annotations

from pathlib import Path


def markers(name: str, script: str) -> tuple[str, str]:
    """The begin and end markers of the section ``name`` that ``script`` writes."""
    return f"<!-- {name}: begin (written by python -m {script}) -->", f"<!-- {name}: end -->"


def write_marked_section(page: Path, begin: str, end: str, section: str) -> None:
    """Put ``section`` between ``begin`` and ``end`` in ``page`` (at its end the first time)."""
    text = page.read_text(encoding="utf-8")
    block = f"{begin}\n{section}{end}\n"
    if begin in text:
        before, rest = text.split(begin, 1)
        text = before + block + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + block
    page.write_text(text, encoding="utf-8")
