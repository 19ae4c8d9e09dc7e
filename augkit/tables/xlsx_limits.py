"""Checking an .xlsx workbook before openpyxl parses it: is it a workbook at all, and is it
small enough once inflated.

An .xlsx file is a zip of XML parts, and XML compresses extremely well: a 206 KB upload that
inflates to 53 MB of sheet XML keeps openpyxl busy for about 40 s (about 50 µs per cell on a
loaded 2-core machine). Three checks run first, each cheap next to the parse:

1. the zip members' declared uncompressed sizes (Python's zipfile never inflates a member past
   its declared size, so the declaration bounds what openpyxl can be made to read): their sum
   at most ``max_inflated_bytes``, and at most ``max_ratio`` times the file's own size;
2. the zip holds ``[Content_Types].xml`` and ``xl/workbook.xml`` (otherwise it is some other
   zip renamed);
3. one streaming pass over the worksheets and the shared-strings table counts their cells and
   strings (a regular-expression scan of the inflated XML, about a second per 100 MB): each at
   most ``max_cells``.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from augkit.errors import InputError

#: Workbooks measured in writing this: BANKING77 and FAQ texts inflate 3x-7x, a sheet of
#: 100,000 identical rows 13x. Zip bombs inflate hundreds to millions of times.
DEFAULT_MAX_RATIO = 100
#: Below this inflated size the ratio is not checked: tiny workbooks are all overhead.
RATIO_FLOOR_BYTES = 10_000_000
#: About 10 million cells (Excel's 1,048,576 rows by 10 columns) of short texts.
DEFAULT_MAX_INFLATED_BYTES = 1_000_000_000
#: Excel's row limit (1,048,576) by about 10 columns; openpyxl needs minutes for that many.
DEFAULT_MAX_CELLS = 10_000_000
#: Bytes read from a member at a time while counting its cells.
_BLOCK = 1 << 20
#: Longest opening tag counted (``<prefix:c `` with a namespace prefix of a few letters).
_LONGEST_TAG = 32
_CELL = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c[\s/>]")
_SHARED_STRING = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?si[\s/>]")
_REQUIRED = ("[Content_Types].xml", "xl/workbook.xml")


@dataclass(frozen=True)
class XlsxLimits:
    """How large a workbook :func:`augkit.tables.io.read_table` parses; see the module docstring."""

    max_inflated_bytes: int = DEFAULT_MAX_INFLATED_BYTES
    max_cells: int = DEFAULT_MAX_CELLS
    max_ratio: float = DEFAULT_MAX_RATIO


def check_workbook(path: str | Path, limits: XlsxLimits | None = None) -> None:
    """Raise an InputError unless ``path`` is an .xlsx workbook within ``limits`` (defaults:
    :class:`XlsxLimits`), naming the limit it exceeds and what to do instead."""
    limits = limits or XlsxLimits()
    name = str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            inflated = sum(member.file_size for member in members)
            size = max(Path(path).stat().st_size, 1)
            if inflated > limits.max_inflated_bytes:
                raise InputError(
                    f"cannot read {name!r} as xlsx: it inflates to {_size(inflated)} of XML, over the limit of "
                    f"{_size(limits.max_inflated_bytes)}; save the sheet as CSV or Parquet, which are read in chunks"
                )
            if inflated > RATIO_FLOOR_BYTES and inflated > limits.max_ratio * size:
                raise InputError(
                    f"cannot read {name!r} as xlsx: its {_size(size)} inflate to {_size(inflated)} of XML "
                    f"({inflated / size:.0f} times; real workbooks inflate less than {limits.max_ratio:g} times), "
                    "which looks like a zip bomb; save the sheet as CSV or Parquet"
                )
            names = {member.filename for member in members}
            missing = [part for part in _REQUIRED if part not in names]
            if missing:
                raise InputError(
                    f"cannot read {name!r} as xlsx: it is a zip archive but not an Excel workbook (no {missing[0]}); "
                    "save it from Excel or LibreOffice as .xlsx, or give it the extension of what it holds"
                )
            cells, strings = _count_cells(archive, members)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError, EOFError) as error:
        raise InputError(f"cannot read {name!r} as xlsx: {error}") from None
    largest = max(cells, strings)
    if largest > limits.max_cells:
        what = "cells" if cells >= strings else "shared strings"
        raise InputError(
            f"cannot read {name!r} as xlsx: it holds {largest:,} {what}, over the limit of {limits.max_cells:,}; "
            "save the sheet as CSV or Parquet, which are read in chunks"
        )


def _count_cells(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo]) -> tuple[int, int]:
    """Cells in every worksheet, and entries in the shared-strings table."""
    cells = strings = 0
    for member in members:
        lowered = member.filename.lower()
        if lowered.startswith("xl/worksheets/") and lowered.endswith(".xml"):
            cells += _count_tags(archive, member, _CELL)
        elif lowered.endswith("sharedstrings.xml"):
            strings += _count_tags(archive, member, _SHARED_STRING)
    return cells, strings


def _count_tags(archive: zipfile.ZipFile, member: zipfile.ZipInfo, tag: re.Pattern[bytes]) -> int:
    """Opening ``tag`` elements in ``member``, read a block at a time; the text after a block's
    last ``<`` (at most a tag's length) is carried into the next block, so no tag is cut."""
    count = 0
    carried = b""
    with archive.open(member) as stream:
        while block := stream.read(_BLOCK):
            text = carried + block
            cut = text.rfind(b"<")
            if cut == -1 or len(text) - cut > _LONGEST_TAG:
                cut = len(text)
            count += sum(1 for _ in tag.finditer(text, 0, cut))
            carried = text[cut:]
    return count + sum(1 for _ in tag.finditer(carried))


def _size(size: int) -> str:
    return f"{size / 1e6:,.1f} MB" if size >= 1_000_000 else f"{size / 1e3:,.1f} KB"
