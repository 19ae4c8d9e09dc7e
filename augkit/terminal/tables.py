"""Tables for the terminal (``augkit list``): aligned columns, the last one (a description)
wrapped to the terminal's width, and a comma-separated column wrapped at its commas."""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Sequence

#: Narrowest the last column gets beside the others: a sentence in a narrower column breaks
#: every few words, so it goes under its row instead, indented by :data:`UNDER_INDENT` and
#: wrapped to the whole width.
MIN_DESCRIPTION_WIDTH = 40
UNDER_INDENT = "    "
#: Spaces between columns.
GAP = "  "


def output_width() -> int | None:
    """The width to wrap standard output to: ``$COLUMNS`` when set, the terminal's when
    standard output is one, otherwise None (piped or redirected: one line per row, as ``ls``
    does, so that ``grep`` sees whole rows)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def table_lines(rows: Sequence[Sequence[str]], width: int | None = None, *, list_columns: dict[int, int] | None = None) -> list[str]:
    """``rows`` (the header first) as aligned lines. With ``width``, each column of
    ``list_columns`` (position -> most characters) wraps after its commas, and the last column
    (a description) wraps at words to what the others leave of the width; when that is under
    :data:`MIN_DESCRIPTION_WIDTH`, it goes under its row instead, indented, across the whole
    width. A wrapped row takes several lines, its other cells blank on the added ones."""
    list_columns = _fitted(rows, width, list_columns or {}) if width is not None else {}
    cells = [[_split(str(cell), position, list_columns) for position, cell in enumerate(row)] for row in rows]
    widths = [max(len(line) for row in cells for line in row[position]) for position in range(len(rows[0]) - 1)]
    room = None if width is None else width - sum(widths) - len(GAP) * len(widths)
    under = room is not None and room < MIN_DESCRIPTION_WIDTH
    lines = []
    for index, row in enumerate(cells):
        text = row[-1][0]
        beside = [] if under else (_wrapped(text, room) or [""]) if room is not None else [text]
        for depth in range(max(len(beside), *(len(cell) for cell in row[:-1]))):
            parts = [(cell[depth] if depth < len(cell) else "").ljust(widths[position]) for position, cell in enumerate(row[:-1])]
            lines.append(GAP.join([*parts, beside[depth] if depth < len(beside) else ""]).rstrip())
        if under and index:  # the header's last cell names what the indented lines are
            lines += [UNDER_INDENT + line for line in _wrapped(text, width - len(UNDER_INDENT))]
    return lines


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width``, broken between words only (a hyphenated word or
    an identifier stays whole, so a copied line finds it)."""
    return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)


def _fitted(rows: Sequence[Sequence[str]], width: int, list_columns: dict[int, int]) -> dict[int, int]:
    """Each list column's most characters, narrowed to what the other columns (but the last)
    leave of ``width``, and never under its longest item and its comma."""
    fixed = sum(max(len(str(row[position])) for row in rows) for position in range(len(rows[0]) - 1)
                if position not in list_columns)
    left = width - fixed - len(GAP) * (len(rows[0]) - 1)
    fitted = {}
    for position, limit in list_columns.items():
        longest = max(len(item) + 1 for row in rows for item in str(row[position]).split(","))
        fitted[position] = max(longest, min(limit, left // len(list_columns)))
    return fitted


def _split(cell: str, position: int, list_columns: dict[int, int]) -> list[str]:
    """A cell's lines: a list column's items packed after their commas within its width."""
    limit = list_columns.get(position)
    if limit is None or len(cell) <= limit:
        return [cell]
    lines = [""]
    for item in cell.split(","):
        piece = item if not lines[-1] else f",{item}"
        if lines[-1] and len(lines[-1]) + len(piece) + 1 > limit:  # +1: the comma that ends the line
            lines[-1] += ","
            lines.append(item)
        else:
            lines[-1] += piece
    return lines
