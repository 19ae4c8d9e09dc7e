"""Where reading a table file went wrong, in the file's own terms: its physical lines.

pandas reports positions inside its own buffers ("position 544" of a JSON chunk, "line 7"
counted in records rather than lines), which say little about a file read in chunks. The
helpers here read the file again from its start to find the physical line (1-based, the
header being line 1) of a CSV/TSV record or of the first JSON line that does not parse. They
run only once something went wrong, so reading a good file costs nothing more.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from augkit.errors import InputError

#: The csv module refuses fields over 131,072 characters by default; a record that swallowed
#: thousands of lines is bigger, and finding where it starts is the point.
_CSV_FIELD_LIMIT = 2**31 - 1
#: Characters of an offending line shown in a message.
_SHOWN = 60


def open_binary(path: str | Path) -> IO[bytes]:
    """The file's bytes, decompressed as pandas decompresses them (by the name's last suffix)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".gz":
        import gzip

        return gzip.open(path, "rb")
    if suffix == ".bz2":
        import bz2

        return bz2.open(path, "rb")
    if suffix == ".xz":
        import lzma

        return lzma.open(path, "rb")
    if suffix == ".zst":
        import zstandard

        return zstandard.open(path, "rb")
    if suffix == ".zip":
        import zipfile

        archive = zipfile.ZipFile(path)
        return archive.open(next(name for name in archive.namelist() if not name.endswith("/")))
    return open(path, "rb")


def open_text(path: str | Path, encoding: str, newline: str | None = "") -> IO[str]:
    """The file as text; ``newline=""`` splits lines at ``\\n``, ``\\r\\n`` and ``\\r`` and keeps
    them, as pandas' CSV parser and the csv module see them."""
    return io.TextIOWrapper(open_binary(path), encoding=encoding, newline=newline)


@contextlib.contextmanager
def _large_csv_fields() -> Iterator[None]:
    previous = csv.field_size_limit()
    csv.field_size_limit(_CSV_FIELD_LIMIT)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _blank(fields: list[str]) -> bool:
    """A line pandas skips: empty or only spaces (``skip_blank_lines``)."""
    return not fields or (len(fields) == 1 and not fields[0].strip())


def csv_record_start(path: str | Path, sep: str, encoding: str, record: int, *, count_blank: bool = False) -> int | None:
    """The physical line on which CSV/TSV record ``record`` starts (0 is the header).

    Records are counted as pandas counts data rows, skipping blank lines; ``count_blank=True``
    counts blank lines too, as pandas' tokenizer does in its own messages ("in line 7",
    "starting at row 6"). None when the file has fewer records or cannot be read that far.
    """
    try:
        with _large_csv_fields(), open_text(path, encoding) as stream:
            reader = csv.reader(stream, delimiter=sep)
            index, end = 0, 0
            while True:
                start = end + 1
                try:
                    fields = next(reader)
                except StopIteration:
                    return None
                except csv.Error:  # e.g. the file ends inside a quoted cell: this record starts here
                    return start if index == record else None
                end = reader.line_num
                if not count_blank and _blank(fields):
                    continue
                if index == record:
                    return start
                index += 1
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def first_bad_json_line(path: str | Path, encoding: str) -> tuple[int, str] | None:
    """The first line (1-based) of a JSON Lines file that is not a JSON object, and why;
    None when every line parses (blank lines are skipped, as pandas skips them)."""
    with open_text(path, encoding, newline="\n") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line, strict=False)
            except json.JSONDecodeError as error:
                return number, f"{error.msg} (column {error.colno})"
            if not isinstance(value, dict):
                return number, f"expected a JSON object {{...}}, found {_json_kind(value)} ({_shown(line.strip())})"
    return None


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


def json_lines_error(path: str | Path, encoding: str, error: Exception) -> InputError:
    """The InputError for a JSON Lines file pandas could not parse: the file's line and why."""
    try:
        found = first_bad_json_line(path, encoding)
    except (OSError, UnicodeDecodeError):
        found = None
    if found is None:
        return InputError(f"cannot read {str(path)!r} as jsonl: {error}")
    line, reason = found
    return InputError(f"cannot read {str(path)!r} as jsonl: line {line}: {reason}; each line must hold one JSON object")


_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_UNCLOSED = re.compile(r"EOF inside string starting at row (\d+)")


def csv_parser_error(path: str | Path, fmt: str, encoding: str, error: Exception) -> InputError:
    """The InputError for pandas' CSV/TSV tokenizer error, with its record count turned into the
    file's physical line (they differ once a cell spans lines)."""
    sep = "," if fmt == "csv" else "\t"
    message = str(error).strip()
    fields = _FIELDS.search(message)
    unclosed = _UNCLOSED.search(message)
    if fields:
        line = csv_record_start(path, sep, encoding, int(fields.group(2)) - 1, count_blank=True)
        if line is not None:
            return InputError(
                f"cannot read {str(path)!r} as {fmt}: line {line} has {fields.group(3)} fields, the header has "
                f"{fields.group(1)}; quote a field that holds the separator ({sep!r})"
            )
    if unclosed:
        line = csv_record_start(path, sep, encoding, int(unclosed.group(1)), count_blank=True)
        if line is not None:
            return InputError(
                f"cannot read {str(path)!r} as {fmt}: the record starting on line {line} opens a quoted cell (\") that "
                'never closes: the file ends inside it; fix the quoting on that line (a quote inside a field is written "")'
            )
    return InputError(f"cannot read {str(path)!r} as {fmt}: {message}")
