"""The result of ``augkit evaluate``: one row per method, printable as aligned text and
writable as CSV or Markdown."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from augkit.errors import UsageError
from augkit.files.atomic import atomic_write

OUTPUT_FORMATS = {".csv": "csv", ".md": "markdown", ".markdown": "markdown"}


def output_format(path: str | Path) -> str:
    """``"csv"`` or ``"markdown"`` from the file name, or a :class:`UsageError` naming the
    extensions that work."""
    fmt = OUTPUT_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise UsageError(f"cannot tell the table format of {str(path)!r}; use one of: {', '.join(OUTPUT_FORMATS)}")
    return fmt


@dataclass
class EvaluationTable:
    """Metric values per augmentation method.

    ``rows`` hold one dict per method with a value (or None: not computable) for each of
    ``columns``; ``notes`` say what was skipped or how a column was aggregated.
    """

    columns: list[str]
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    def to_text(self) -> str:
        """Aligned columns for a terminal: text left, numbers right, 3 decimals."""
        cells = [self.columns] + [[_format(row.get(c)) for c in self.columns] for row in self.rows]
        widths = [max(len(line[i]) for line in cells) for i in range(len(self.columns))]
        lines = []
        for line in cells:
            parts = [line[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(line[1:], widths[1:])]
            lines.append("  ".join(parts).rstrip())
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A GitHub-flavoured Markdown table (numbers right-aligned, 3 decimals)."""
        lines = ["| " + " | ".join(self.columns) + " |", "|" + "|".join([":---"] + ["---:"] * (len(self.columns) - 1)) + "|"]
        for row in self.rows:
            lines.append("| " + " | ".join(_format(row.get(c)).replace("|", "\\|") for c in self.columns) + " |")
        return "\n".join(lines)

    def write(self, path: str | Path) -> None:
        """Write to ``path``: CSV (full precision, empty cells for missing values) or
        Markdown, by the extension (.csv, .md)."""
        fmt = output_format(path)
        with atomic_write(path) as partial:
            if fmt == "markdown":
                partial.write_text(self.to_markdown() + "\n", encoding="utf-8")
                return
            with partial.open("w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(self.columns)
                for row in self.rows:
                    writer.writerow(["" if row.get(c) is None else row[c] for c in self.columns])


def _format(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.3f}"
    return str(value)
