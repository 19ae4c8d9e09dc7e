"""Refusing CSV/TSV cells that span lines because of broken quoting.

A stray double quote at the start of a CSV field opens a quoted cell that runs to the next
quote, possibly hundreds of lines further on. pandas reads the lines in between as the text of
one cell, silently accepting whatever follows the quote that closes it, and the row count
drops without a word. A quoted cell may hold line breaks by right (RFC 4180; 13 texts of the
official BANKING77 CSVs do), so a cell with a line break is not refused as such: its record is
read again by Python's csv module in strict mode, which rejects exactly what pandas forgave,
a closing quote followed by more text. A record that fails is refused, naming the line it
starts on and the line of that quote. ``allow_multiline=True`` (``--allow-multiline``) skips
the check and reads the file as pandas does.

Finding the cells with a line break costs one scan over each column of a chunk: for
Arrow-backed strings (pandas 3), over the column's UTF-8 data buffer, where a line break can
only be the byte 0x0A or 0x0D; otherwise over the column's texts joined into one string. A file
with such cells is read once more by the csv module (strict, in C), forward, up to the last of
them.

Not caught: two stray quotes of which the second is the last character of a field (``5"``
followed by the separator), which closes the cell as a well-formed one would.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from augkit.errors import InputError
from augkit.read_errors import CsvRecords

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class MultilineCellCheck:
    """Checks the records of one CSV/TSV file that hold line breaks, chunk after chunk, in
    one forward pass over the file; use it as a context manager (it keeps the file open)."""

    def __init__(self, path: str | Path, fmt: str, encoding: str):
        self.path = path
        self.fmt = fmt
        self.encoding = encoding
        self._records: CsvRecords | None = None

    def __enter__(self) -> MultilineCellCheck:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._records is not None:
            self._records.close()

    def check(self, frame: Any, first_row: int) -> None:
        """Raise an InputError if a record of ``frame`` (or the header) has a line break in
        a cell because of broken quoting. ``first_row``: the 0-based data row of the file that
        ``frame``'s first row is, so that chunks read one after the other are located."""
        names = [str(name) for name in frame.columns]
        if any(_LINE_BREAK.search(name) for name in names):
            self._verify(0, names, names)
        flagged = [name for name in frame.columns if _has_line_break(frame[name])]
        if not flagged:
            return
        rows = sorted(set().union(*(_rows_with_line_breaks(frame[name]) for name in flagged)))
        for position, cells in zip(rows, frame.iloc[rows].to_numpy(dtype=object).tolist()):
            self._verify(first_row + position + 1, [cell if isinstance(cell, str) else "" for cell in cells], names)

    def _verify(self, record: int, cells: list[str], names: list[str]) -> None:
        if self._records is None:
            self._records = CsvRecords(self.path, "," if self.fmt == "csv" else "\t", self.encoding, strict=True)
        found = self._records.record(record)
        column = next(name for name, cell in zip(names, cells) if _LINE_BREAK.search(cell))
        spans = 1 + sum(len(_LINE_BREAK.findall(cell)) for cell in cells)
        if found is not None and found.broken is not None:
            raise self._error(found.start, record, column, spans, found.broken[0])
        fields = found.fields if found is not None else []
        if not all(i < len(fields) and fields[i] == cell for i, cell in enumerate(cells) if _LINE_BREAK.search(cell)):
            # The csv module split the file otherwise than pandas: nothing vouches for the cell.
            raise self._error(found.start if found else None, record, column, spans, None)

    def _error(self, line: int | None, record: int, column: str, spans: int, quote_line: int | None) -> InputError:
        where = f"line {line}" if line is not None else ("the header" if record == 0 else f"data row {record - 1} (0-based)")
        lines = f"{spans} lines ({line}-{line + spans - 1})" if line is not None else f"{spans} lines"
        if quote_line is not None:
            cause = (f"the quote that closes its column {column!r} cell, on line {quote_line}, is followed by more text "
                     f"instead of the separator. Usually a stray double quote (\") at the start of a field on line {line} "
                     f"opened a quoted cell that only the quote on line {quote_line} closed, merging the lines between "
                     "into one row")
        else:
            cause = (f"its column {column!r} cell holds a line break that could not be checked against the file's "
                     "quoting; a stray double quote (\") at the start of a field may have merged lines into one row")
        return InputError(
            f"cannot read {str(self.path)!r} as {self.fmt}: the record starting on {where} spans {lines}: {cause}; fix the "
            'quoting there (a quote inside a field is written ""). To read the file as pandas does anyway, pass '
            "--allow-multiline (allow_multiline=True in Python)"
        )


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
