"""The upload rules every tab of ``augkit serve`` shares: sizes in human units, the upload
limit, the limits an uploaded workbook is parsed under, where a built file goes, and
messages with the server's paths cut to file names.

One place for them, so that the general page and a plugin's tab (the FAQ page) refuse the
same files with the same words.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from augkit.errors import InputError, UsageError
from augkit.tables.xlsx_limits import XlsxLimits

DEFAULT_MAX_FILE_SIZE = "20MB"
#: An uploaded workbook may inflate to this many times the upload limit: text workbooks
#: inflate 3-7 times, a sheet of identical rows 13 times (measured; see augkit.tables.xlsx_limits).
UPLOAD_INFLATION = 20
#: Most cells of an uploaded workbook: openpyxl parses about 20,000 a second on a loaded
#: 2-core machine, so about 10 s; a table of 50,000 rows in 4 columns.
UPLOAD_MAX_CELLS = 200_000
#: The upload formats the page accepts (the file picker's filter).
UPLOAD_FILE_TYPES = [".csv", ".tsv", ".jsonl", ".parquet", ".xlsx"]
_UNITS = {"": 1, "B": 1, "KB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000, "KIB": 1024, "MIB": 1024**2, "GIB": 1024**3}
#: Download formats, by upload suffix; anything else is written as CSV.
_WRITABLE = (".csv", ".tsv", ".jsonl", ".parquet", ".xlsx")


def parse_size(text: str | int) -> int:
    """Bytes in a size such as ``"20MB"``, ``"500 KB"``, ``"1MiB"`` or ``1048576``.

    >>> parse_size("20MB")
    20000000
    """
    if isinstance(text, int) and not isinstance(text, bool):
        size = text
    else:
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
        unit = match.group(2).upper() if match else None
        if not match or unit not in _UNITS:
            raise UsageError(f"cannot read {text!r} as a size; write e.g. 20MB, 500KB or 1048576")
        size = int(float(match.group(1)) * _UNITS[unit])
    if size <= 0:
        raise UsageError(f"a size limit must be positive, got {text!r}")
    return size


def format_size(size: int) -> str:
    """``25300000`` -> ``"25.3 MB"``."""
    for unit, factor in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}".replace(".0 ", " ")
    return f"{size} bytes"


def check_upload_size(path: str | Path, limit: int) -> None:
    """Refuse a file over ``limit`` bytes, saying both sizes."""
    size = Path(path).stat().st_size
    if size > limit:
        raise InputError(f"the file is {format_size(size)}; the limit is {format_size(limit)} (augkit serve --max-file-size)")


def upload_xlsx_limits(max_file_size: int) -> XlsxLimits:
    """How large an uploaded workbook may be once inflated, for an upload limit of
    ``max_file_size`` bytes: :data:`UPLOAD_INFLATION` times it, :data:`UPLOAD_MAX_CELLS`
    cells, and no more than 100 times its own size (``augkit.tables.xlsx_limits``)."""
    return XlsxLimits(max_inflated_bytes=UPLOAD_INFLATION * max_file_size, max_cells=UPLOAD_MAX_CELLS)


def read_upload(path: str | Path, max_file_size: int) -> Any:
    """The uploaded table as a DataFrame, after the size check and under the workbook limits."""
    from augkit.tables.io import read_table

    check_upload_size(path, max_file_size)
    return read_table(path, xlsx_limits=upload_xlsx_limits(max_file_size))


def without_server_path(error: BaseException | str, path: str | Path | None) -> str:
    """The message with the upload's server-side path (and its folder) cut to the file name."""
    message = str(error)
    if path:
        message = message.replace(str(path), Path(path).name).replace(str(Path(path).parent) + "/", "")
    return message


def download_path(upload_name: str, folder: Path, tag: str = "augmented") -> Path:
    """Where a built file goes: ``<name>-<tag><suffix>`` inside ``folder``, in the upload's
    format when it can be written, else CSV."""
    name = Path(upload_name).name
    suffix = next((s for s in _WRITABLE if name.lower().endswith(s)), None)
    stem = name[: -len(suffix)] if suffix else Path(name).stem
    return folder / f"{stem or 'table'}-{tag}{suffix or '.csv'}"
