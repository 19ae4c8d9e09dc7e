"""Reading and writing tables for the command line: CSV, TSV, JSONL, Parquet and Excel (.xlsx).

CSV and TSV cells are read as the exact strings in the file (no type guessing, no NA
parsing), so labels such as ``007`` or ``NA`` come back out byte for byte; so are the cells
of an Excel sheet (its first sheet), through openpyxl. JSON Lines and Parquet keep their own
types.

Text files (CSV, TSV, JSON Lines) are decoded as UTF-8 unless told otherwise; written ones
are always UTF-8. A CSV/TSV file whose quoting a stray quote broke (a closing quote followed by
more text, rows merged into one cell) is refused unless allowed (:mod:`augkit.tables.csv_quoting`), and a
workbook is checked for size before it is parsed (:mod:`augkit.tables.xlsx_limits`). Reading errors
name the file's line (:mod:`augkit.tables.read_errors`).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

from augkit.errors import InputError
from augkit.files.atomic import atomic_write
from augkit.tables.csv_quoting import QuotingCheck
from augkit.tables.read_errors import (
    check_encoding,
    csv_parser_error,
    decoding_error,
    json_lines_error,
)
from augkit.tables.xlsx_limits import XlsxLimits, check_workbook

#: How CSV, TSV and JSON Lines files are decoded unless the caller says otherwise (output is
#: always written in UTF-8, pandas' default).
DEFAULT_ENCODING = "utf-8"
FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx"}


def table_format(path: str | Path) -> str:
    """The format implied by the file name, or an error listing the supported ones."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zst", ".zip") and len(suffixes) > 1:
        suffixes = suffixes[:-1]  # pandas decompresses data.csv.gz and friends
    fmt = FORMATS.get(suffixes[-1]) if suffixes else None
    if fmt is None:
        raise InputError(f"cannot tell the format of {str(path)!r}; use one of: {', '.join(sorted(FORMATS))}")
    return fmt


def read_table(
    path: str | Path, *, encoding: str = DEFAULT_ENCODING, allow_multiline: bool = False, xlsx_limits: XlsxLimits | None = None
) -> Any:
    """Load ``path`` into a DataFrame according to its extension.

    ``encoding`` decodes CSV, TSV and JSON Lines files (Parquet and Excel carry their own).
    ``allow_multiline`` reads a CSV/TSV file as pandas does even where a stray quote broke its quoting
    (refused by default, naming the lines: see :mod:`augkit.tables.csv_quoting`). ``xlsx_limits`` bounds the workbooks parsed (default:
    :class:`~augkit.tables.xlsx_limits.XlsxLimits`).
    """
    import pandas as pd

    fmt = table_format(path)
    encoding = check_encoding(encoding)
    if not Path(path).exists():
        raise InputError(f"input file {str(path)!r} does not exist")
    try:
        if fmt in ("csv", "tsv"):
            frame = pd.read_csv(
                path, sep="," if fmt == "csv" else "\t", dtype=str, keep_default_na=False, na_filter=False, encoding=encoding
            )
            if not allow_multiline:
                with QuotingCheck(path, fmt, encoding) as check:
                    check.check(frame, first_row=0)
            return frame
        if fmt == "jsonl":
            # pandas 3 converts nothing once dtype=False; pandas 2 also needs convert_dates.
            dates = {} if int(pd.__version__.split(".")[0]) >= 3 else {"convert_dates": False}
            return pd.read_json(path, lines=True, dtype=False, encoding=encoding, **dates)
        if fmt == "xlsx":
            return _read_workbook(path, xlsx_limits)
        _require_parquet_engine()
        return pd.read_parquet(path)
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise InputError(f"input file {str(path)!r} is empty (not even a header line)") from None
    except Exception as error:  # noqa: BLE001 -- any failure to parse is the file's: say so, with its line
        raise reading_error(error, path, fmt, encoding) from None


def reading_error(error: Exception, path: str | Path, fmt: str, encoding: str) -> Exception:
    """What to raise for ``error``, which pandas raised reading ``path`` as ``fmt``: an
    InputError naming the file's line where that can be known, or ``error`` itself when it
    is not about the file (a missing library, an interrupt, running out of memory)."""
    import pandas as pd

    if isinstance(error, UnicodeDecodeError):
        return decoding_error(path, fmt, encoding, error)
    if fmt == "jsonl" and isinstance(error, (ValueError, TypeError)):
        return json_lines_error(path, encoding, error)
    if fmt in ("csv", "tsv") and isinstance(error, pd.errors.ParserError):
        return csv_parser_error(path, fmt, encoding, error)
    if isinstance(error, (pd.errors.ParserError, ValueError, zipfile.BadZipFile, EOFError)):
        return InputError(f"cannot read {str(path)!r} as {fmt}: {error}")
    if isinstance(error, OSError) and not isinstance(error, (FileNotFoundError, PermissionError)):
        return InputError(f"cannot read {str(path)!r} as {fmt}: {error}")  # e.g. gzip's "not a gzipped file"
    return error


def _read_workbook(path: str | Path, limits: XlsxLimits | None) -> Any:
    """The first sheet, once :func:`~augkit.tables.xlsx_limits.check_workbook` passed it; any failure
    of openpyxl on a file that passed is the file's (a renamed zip, a damaged part)."""
    import pandas as pd

    check_workbook(path, limits)
    _require_excel_engine()
    try:
        return pd.read_excel(path, dtype=str, keep_default_na=False, na_filter=False, engine="openpyxl")
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 -- openpyxl raises KeyError, TypeError, XML errors... on damaged parts
        raise InputError(f"cannot read {str(path)!r} as xlsx: {type(error).__name__}: {error}") from None


def write_table(frame: Any, path: str | Path) -> None:
    """Write ``frame`` to ``path`` in the format its extension names (atomically)."""
    fmt = table_format(path)
    target = Path(path)
    with atomic_write(target) as temporary:
        if fmt in ("csv", "tsv"):
            frame.to_csv(temporary, sep="," if fmt == "csv" else "\t", index=False, compression=_compression(target))
        elif fmt == "jsonl":
            frame.to_json(temporary, orient="records", lines=True, force_ascii=False, compression=_compression(target))
        elif fmt == "xlsx":
            _require_excel_engine()
            # Built in memory, then written in one go: openpyxl's zip file, failing on a full
            # disk, fails again when it is collected, printing a traceback of its own.
            workbook = io.BytesIO()
            frame.to_excel(workbook, index=False, engine="openpyxl")
            temporary.write_bytes(workbook.getbuffer())
        else:
            _require_parquet_engine()
            frame.to_parquet(temporary, index=False)


def _compression(target: Path) -> str | None:
    suffix = target.suffix.lower()
    return {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd", ".zip": "zip"}.get(suffix)


def _require_parquet_engine() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InputError("Parquet needs pyarrow: pip install 'augkit[parquet]'") from None


def _require_excel_engine() -> None:
    try:
        import openpyxl  # noqa: F401
    except ImportError:
        raise InputError("Excel files need openpyxl: pip install 'augkit[excel]'") from None
