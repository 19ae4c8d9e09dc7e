"""Refusing CSV/TSV files whose quoting a stray quote broke, naming the lines.

A double quote at the start of a field opens a quoted cell. pandas reads what it cannot
parse by the rules without a word: a closing quote followed by more text
(``"book a "table" now,BookRestaurant``) reads as ``book a table" now``, and an opening quote
whose closing one is lines further on turns the lines between into the text of one cell, so
the row count drops. The strict reading of Python's csv module (in C) refuses exactly what
pandas forgives, so every record is read again by it, forward, alongside pandas' chunks, and
the first one it refuses stops the reading, naming its lines. ``allow_multiline=True``
(``--allow-multiline``) skips these checks and reads the file as pandas does.

A stray quote can also pair with one that closes a field cleanly, 5 or 900 lines further on
(the second quote last in its field, before the separator): then the quoting is well-formed
and only the content tells. A quoted cell may hold line breaks by right (RFC 4180; 13 texts of
the official BANKING77 CSVs do), but not whole rows: a cell whose inner lines (those between
its first and its last) all read as rows of the file, with as many fields as the header, is
refused as merged rows. The cell's own first and last lines are left out of the comparison, so
two lines merged (a closing quote on the very next line) read like a text with one line break
and are not caught; nor are merged rows in a file of one column, whose rows are plain lines.

Finding the cells with a line break costs one scan over each column of a chunk: for
Arrow-backed strings (pandas 3), over the column's UTF-8 data buffer, where a line break can
only be the byte 0x0A or 0x0D; otherwise over the column's texts joined into one string.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from augkit.errors import InputError
from augkit.tables.read_errors import CsvRecords, physical_line

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: Characters of a line shown in a message.
_SHOWN = 80
_QUOTE_RULE = 'a quote inside a field is written "" and the field quoted as a whole: "book a ""table"" now"'
_ANYWAY = "pass --allow-multiline (allow_multiline=True in Python)"
_HOW_TO_FIX = f"{_QUOTE_RULE}. To read the file as pandas does anyway, {_ANYWAY}"


class QuotingCheck:
    """Checks the records of one CSV/TSV file, chunk after chunk, in one forward pass over
    the file; use it as a context manager (it keeps the file open)."""

    def __init__(self, path: str | Path, fmt: str, encoding: str):
        self.path = path
        self.fmt = fmt
        self.encoding = encoding
        self._records: CsvRecords | None = None

    def __enter__(self) -> QuotingCheck:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._records is not None:
            self._records.close()

    def check(self, frame: Any, first_row: int) -> None:
        """Raise an InputError if a record of ``frame`` (or the header) breaks the quoting
        rules or holds merged rows. ``first_row``: the 0-based data row of the file that
        ``frame``'s first row is, so that chunks read one after the other are located."""
        if self._records is None:
            self._records = CsvRecords(self.path, "," if self.fmt == "csv" else "\t", self.encoding, strict=True)
        names = [str(name) for name in frame.columns]
        if first_row == 0:
            self._verify(0, names, names)
        flagged = [name for name in frame.columns if _has_line_break(frame[name])]
        rows = sorted(set().union(*(_rows_with_line_breaks(frame[name]) for name in flagged))) if flagged else []
        values = _ColumnValues(frame)
        for position, cells in zip(rows, frame.iloc[rows].to_numpy(dtype=object).tolist()):
            self._verify(first_row + position + 1, [cell if isinstance(cell, str) else "" for cell in cells], names, values)
        if len(frame):  # the records without a line break: their quoting
            self._verify(first_row + len(frame), None, names)

    def _verify(self, record: int, cells: list[str] | None, names: list[str], values: _ColumnValues | None = None) -> None:
        """Read up to ``record``, refusing a record with broken quoting on the way; with its
        ``cells`` as pandas read them, also compare them with the csv module's reading, and
        look for whole rows inside them (``values``: the chunk's values by column)."""
        found = self._records.record(record)
        if found is not None and found.broken is not None:
            raise self._broken(found.start, found.broken[0])
        if cells is None or not any(_LINE_BREAK.search(cell) for cell in cells):
            return
        column = next(name for name, cell in zip(names, cells) if _LINE_BREAK.search(cell))
        fields = found.fields if found is not None else []
        if not all(i < len(fields) and fields[i] == cell for i, cell in enumerate(cells) if _LINE_BREAK.search(cell)):
            # The csv module split the file otherwise than pandas: nothing vouches for the cell.
            raise self._unchecked(found.start if found else None, record, column, cells)
        for name, cell in zip(names, cells):
            merged = _inner_rows(cell, name, names, self._records.sep, values) if values is not None else None
            if merged is not None:
                raise self._merged(found.start, found.end, name, *merged, len(names))

    def _broken(self, start: int, quote_line: int) -> InputError:
        shown = physical_line(self.path, self.encoding, start)
        if quote_line == start:
            return InputError(
                f"cannot read {str(self.path)!r} as {self.fmt}: line {start} breaks the quoting: a quoted field's closing "
                f"quote is followed by more text ({_shown(shown)}), which pandas would read without those quotes, not as "
                f"written; usually a stray double quote (\") at the start of a field. Fix it: {_HOW_TO_FIX}"
            )
        return InputError(
            f"cannot read {str(self.path)!r} as {self.fmt}: the record starting on line {start} spans "
            f"{quote_line - start + 1} lines ({start}-{quote_line}): the quote that closes one of its cells, on line "
            f"{quote_line}, is followed by more text instead of the separator. Usually a stray double quote (\") at the "
            f"start of a field on line {start} ({_shown(shown)}) opened a quoted cell that only the quote on line "
            f"{quote_line} closed, merging the lines between into one row. Fix the quoting there: {_HOW_TO_FIX}"
        )

    def _merged(self, start: int, end: int, column: str, rows: int, known: str, width: int) -> InputError:
        return InputError(
            f"cannot read {str(self.path)!r} as {self.fmt}: the record starting on line {start} spans "
            f"{end - start + 1} lines ({start}-{end}), and its column {column!r} cell holds "
            + (f"{rows} whole rows: each of lines {start + 1}-{end - 1} reads" if rows > 1 else f"1 whole row: line {start + 1} reads")
            + f" as a row of {width} fields whose {known!r} value is one the file holds in that column. Usually a stray double quote (\") at the start "
            f"of a field on line {start} ({_shown(physical_line(self.path, self.encoding, start))}) opened a quoted cell "
            f"that the quote ending a field on line {end} closed, merging the rows between into one. Fix the quoting on "
            f"line {start}: {_QUOTE_RULE}. If that cell really holds such lines, or to read the file as pandas does "
            f"anyway, {_ANYWAY}"
        )

    def _unchecked(self, line: int | None, record: int, column: str, cells: list[str]) -> InputError:
        where = f"line {line}" if line is not None else ("the header" if record == 0 else f"data row {record - 1} (0-based)")
        spans = 1 + sum(len(_LINE_BREAK.findall(cell)) for cell in cells)
        lines = f"{spans} lines ({line}-{line + spans - 1})" if line is not None else f"{spans} lines"
        return InputError(
            f"cannot read {str(self.path)!r} as {self.fmt}: the record starting on {where} spans {lines}: its column "
            f"{column!r} cell holds a line break that could not be checked against the file's quoting; a stray double "
            f"quote (\") at the start of a field may have merged lines into one row. Fix the quoting there: {_HOW_TO_FIX}"
        )


class _ColumnValues:
    """The distinct values of each column of a chunk, gathered only when asked for."""

    def __init__(self, frame: Any):
        self._frame = frame
        self._values: dict[int, set] = {}

    def of(self, position: int) -> set:
        if position not in self._values:
            self._values[position] = set(self._frame.iloc[:, position].tolist())
        return self._values[position]


def _inner_rows(cell: str, own: str, names: list[str], sep: str, values: _ColumnValues) -> tuple[int, str] | None:
    """How many whole rows ``cell`` (of column ``own``) holds, and the column that tells: when
    each of its inner lines (between its first and its last) that is not blank reads as a row
    with as many fields as the header, whose value in some column is, on every such line, a
    value that column holds in other rows (a label, a category; the other columns are tried
    first). Text that merely has the separators of a row (a list of "Chrome, PC: Ctrl+V"
    lines) has no such column. None otherwise."""
    width = len(names)
    if width < 2:
        return None  # in a file of one column, any line reads as a row
    inner = [line for line in _LINE_BREAK.split(cell)[1:-1] if line.strip()]
    if not inner:
        return None
    rows = list(csv.reader(inner, delimiter=sep))
    if any(len(fields) != width for fields in rows):
        return None
    for position, name in sorted(enumerate(names), key=lambda column: column[1] == own):
        known = values.of(position)
        if all(fields[position] in known for fields in rows):
            return len(rows), name
    return None


def _shown(line: str | None) -> str:
    if line is None:
        return "the line could not be read again"
    line = line.rstrip("\r\n")
    return repr(line if len(line) <= _SHOWN else line[:_SHOWN] + "...")


def _has_line_break(column: Any) -> bool:
    import pandas as pd

    dtype = column.dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        import pyarrow as pa

        return _arrow_has_line_break(pa.array(column.array))
    values = column.to_numpy(dtype=object)
    try:
        joined = "".join(values)
    except TypeError:  # missing cells among the texts
        joined = "".join(value for value in values if isinstance(value, str))
    return "\n" in joined or "\r" in joined


def _arrow_has_line_break(array: Any) -> bool:
    import numpy as np
    import pyarrow as pa

    for chunk in array.chunks if isinstance(array, pa.ChunkedArray) else [array]:
        if len(chunk) == 0:
            continue
        if chunk.type not in (pa.string(), pa.large_string()):
            texts = [text for text in chunk.to_pylist() if text is not None]
            if any("\n" in text or "\r" in text for text in texts):
                return True
            continue
        _, offsets, data = chunk.buffers()
        if data is None:  # only empty or missing cells
            continue
        bounds = np.frombuffer(offsets, dtype=np.int64 if chunk.type == pa.large_string() else np.int32)
        raw = memoryview(data)[bounds[chunk.offset] : bounds[chunk.offset + len(chunk)]].tobytes()
        if b"\n" in raw or b"\r" in raw:
            return True
    return False


def _rows_with_line_breaks(column: Any) -> set[int]:
    import numpy as np

    found = column.str.contains(r"[\r\n]", regex=True)
    return set(np.flatnonzero(found.to_numpy(dtype=bool, na_value=False)).tolist())
