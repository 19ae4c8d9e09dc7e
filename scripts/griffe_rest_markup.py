"""A griffe extension (mkdocs.yml, mkdocstrings' ``extensions``): augkit's docstrings, written
for ``help()`` and reStructuredText readers, shown as Markdown in the API reference.

The docstrings are prose with three pieces of reST that Markdown reads differently:

- Sphinx roles, ``:func:`split_words```: Markdown would show the role's name as text. Each
  becomes a code span of its target (``~a.b.C`` shows ``C``, as Sphinx does).
- doctest blocks (``>>>`` lines and their output, up to a blank line): Markdown would read
  ``>`` as a quotation and ``[a]`` on two lines as a link reference. Each becomes a fenced
  ``pycon`` block, without its ``# doctest:`` directives.
- definition lists (a term, its text indented under it: ``augkit.plugin``'s map of its
  names): Markdown would run them into one paragraph. Each becomes a Markdown definition
  list (the ``def_list`` extension). Only in a docstring without numpydoc sections, whose
  ``name : type`` entries are laid out the same way and are griffe's to read.

``double backticks`` need nothing: they are a Markdown code span too.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: A doctest directive, ``# doctest: +SKIP``: for the test runner, not the reader.
DOCTEST_DIRECTIVE = re.compile(r"\s*#\s*doctest:.*$")
#: The dashed line under a numpydoc section's title (``Parameters``, ``----------``).
NUMPYDOC_UNDERLINE = re.compile(r"^\s*-{3,}\s*$", re.MULTILINE)
#: A Sphinx role with its target: ``:class:`~augkit.plugin.Filter```, ``:py:func:`f```.
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|data|mod|exc|obj|const):`([!~]?)([^`]+)`")


def role_as_code(match: re.Match[str]) -> str:
    prefix, target = match.groups()
    return f"`{target.rsplit('.', 1)[-1] if prefix == '~' else target}`"


def fence_doctests(text: str) -> str:
    """``text`` with each doctest block fenced as ``pycon``, at the block's own indentation."""
    lines, out, fence = text.split("\n"), [], None
    for line in lines:
        if fence is None and line.lstrip().startswith(">>>"):
            fence = line[: len(line) - len(line.lstrip())]
            if out and out[-1].strip():
                out.append("")  # a fence may not interrupt a paragraph
            out.append(f"{fence}```pycon")
        elif fence is not None and not line.strip():
            out.append(f"{fence}```")
            fence = None
        out.append(DOCTEST_DIRECTIVE.sub("", line) if fence is not None else line)
    if fence is not None:
        out.append(f"{fence}```")
    return "\n".join(out)


def definition_lists(text: str) -> str:
    """``text`` with each reST definition (a line at the margin, after a blank line or a
    definition, with text indented under it) as a Markdown one: the term, then ``:   ``."""
    lines, out = text.split("\n"), []
    for i, line in enumerate(lines):
        if out and out[-1] is None:  # the first line of a definition, its term just written
            out[-1] = f":   {line[4:]}"
            continue
        previous = lines[i - 1] if i else ""
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if (line.strip() and not line[0].isspace()
                and (not previous.strip() or previous[0].isspace())
                and following.startswith("    ") and following.strip()
                and not following.lstrip().startswith((">>>", "```"))):
            if out and out[-1].strip():
                out.append("")  # a term after a definition: a new item, not a lazy line
            out += [line, None]
        else:
            out.append(line)
    return "\n".join(out)


def as_markdown(docstring: str) -> str:
    text = fence_doctests(ROLE.sub(role_as_code, docstring))
    return text if NUMPYDOC_UNDERLINE.search(text) else definition_lists(text)


class RestMarkup(griffe.Extension):
    """Rewrites every docstring of the loaded packages with :func:`as_markdown`."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        self.on_object(obj=pkg, loader=loader)  # a package gets no on_object of its own

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = as_markdown(obj.docstring.value)
