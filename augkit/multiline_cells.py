"""Refusing CSV/TSV cells that span lines, unless the caller allows them.

A stray double quote at the start of a CSV field opens a quoted cell that runs to the next
quote, possibly hundreds of lines further on: pandas reads the lines in between as the text of
one cell and the row count silently drops. A parsed cell holding a line break (``\\n`` or
``\\r``) is what such a merge leaves behind; it is also what a real quoted line break looks
like, so a caller whose files have those says so (``allow_multiline=True``,
``--allow-multiline``) and is not checked.

The check costs one scan over the characters of each column of a chunk: for Arrow-backed
strings (pandas 3), over the column's UTF-8 data buffer, where a line break can only be the
byte 0x0A or 0x0D; otherwise over the column's texts joined into one string.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from augkit.errors import InputError
from augkit.read_errors import csv_record_start

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def refuse_multiline_cells(frame: Any, *, path: str | Path, fmt: str, encoding: str, first_row: int) -> None:
    """Raise an InputError if a cell of ``frame`` (read from the CSV/TSV file
    ``path``) or a column name holds a line break, naming the physical line its record starts on.

    ``first_row`` is the 0-based data row of the file that ``frame``'s first row is, so that
    chunks read one after the other are located in the whole file.
    """
    header = [str(name) for name in frame.columns if _LINE_BREAK.search(str(name))]
    if header:
        raise _multiline_error(path, fmt, encoding, record=0, column=header[0], spans=1 + len(_LINE_BREAK.findall(header[0])))
    flagged = [name for name in frame.columns if _has_line_break(frame[name])]
    if not flagged:
        return
    position = min(_first_line_break(frame[name]) for name in flagged)
    cells = [frame[name].iloc[position] for name in frame.columns]
    texts = [(name, cell) for name, cell in zip(frame.columns, cells) if isinstance(cell, str)]
    column = next(name for name, cell in texts if _LINE_BREAK.search(cell))
    spans = 1 + sum(len(_LINE_BREAK.findall(cell)) for _, cell in texts)
    raise _multiline_error(path, fmt, encoding, record=first_row + position + 1, column=column, spans=spans)


def _multiline_error(path: str | Path, fmt: str, encoding: str, *, record: int, column: Any, spans: int) -> InputError:
    line = csv_record_start(path, "," if fmt == "csv" else "\t", encoding, record)
    if line is None:  # the file could not be read again that far: name the row instead
        row = "the header" if record == 0 else f"data row {record - 1} (0-based)"
        where, lines, merged = row, f"spans {spans} lines", row
    else:
        where, lines, merged = f"line {line}", f"spans {spans} lines ({line}-{line + spans - 1})", f"line {line}"
    return InputError(
        f"cannot read {str(path)!r} as {fmt}: the record starting on {where} has a line break inside its column {str(column)!r} "
        f"cell and {lines}. Usually a stray double quote (\") at the start of a field on {merged} opened a quoted cell "
        "that only the next quote closed, merging the lines between into one row; fix the quoting there (a quote "
        'inside a field is written ""). If the file really has line breaks inside quoted cells, pass --allow-multiline '
        "(allow_multiline=True in Python)"
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


def _first_line_break(column: Any) -> int:
    import numpy as np

    found = column.astype(object).map(lambda cell: isinstance(cell, str) and _LINE_BREAK.search(cell) is not None)
    return int(np.flatnonzero(found.to_numpy(dtype=bool))[0])
