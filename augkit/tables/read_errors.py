"""Where reading a table file went wrong, in the file's own terms: its physical lines.

pandas reports positions inside its own buffers ("position 544" of a JSON chunk, "byte 3" of
a decoding block, "line 7" counted in records rather than lines), which say little about a
file read in chunks. The helpers here read the file again from its start to find the physical
line (1-based, the header being line 1) of a CSV/TSV record, of the first JSON line that does
not parse, of the first bytes that do not decode. They run only once something went wrong,
so reading a good file costs nothing more.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

from augkit.errors import InputError

#: The csv module refuses fields over 131,072 characters by default; a record that swallowed
#: thousands of lines is bigger, and finding where it starts is the point.
_CSV_FIELD_LIMIT = 2**31 - 1
#: Characters of an offending line shown in a message.
_SHOWN = 60
_ENCODING_HINT = "pass the file's encoding, e.g. --encoding latin-1 or --encoding cp1252 (encoding='latin-1' in Python)"


def check_encoding(encoding: str) -> str:
    """The canonical name of ``encoding`` (``"latin1"`` -> ``"iso8859-1"``), or an InputError."""
    try:
        return codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise InputError(f"unknown encoding {encoding!r}; use a Python codec name such as utf-8, latin-1 or cp1252") from None


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


class CsvRecord(NamedTuple):
    """One record of a CSV/TSV file: the physical lines it starts and ends on, its fields, and,
    read strictly, where it breaks the quoting rules (line, message) instead of fields."""

    start: int
    end: int
    fields: list[str]
    broken: tuple[int, str] | None = None


class CsvRecords:
    """The records of a CSV/TSV file, read forward once by Python's csv module, blank lines
    skipped as pandas skips them (``count_blank=True`` counts them as records, as pandas'
    tokenizer does in its own messages). ``strict=True`` reports a record whose quoting breaks
    the CSV rules pandas forgives (a closing quote followed by more text) instead of parsing it:
    reading stops there. Close when done."""

    def __init__(self, path: str | Path, sep: str, encoding: str, *, count_blank: bool = False, strict: bool = False):
        self.sep = sep
        self._count_blank = count_blank
        self._strict = strict
        self._stream = open_text(path, encoding)
        self._reader = csv.reader(self._stream, delimiter=sep, strict=strict)
        self._index = -1  # the record last read; 0 is the header
        self._end = 0  # the physical line it ended on
        self._last: CsvRecord | None = None

    def record(self, wanted: int) -> CsvRecord | None:
        """Record ``wanted``, at or after the last one asked for; None when the file has fewer
        records or cannot be parsed that far (when it ends inside that record's quotes: the
        record with its start line and no fields). Read strictly, the first record up to
        ``wanted`` whose quoting is broken comes back instead (its ``broken`` set), and no
        record after it can be asked for."""
        if self._last is not None and self._last.broken is not None:
            return self._last
        # The loop runs once per record of the file: it keeps to what it must (a record's
        # tuple is made only for the one wanted), so reading every record strictly costs
        # little more than the csv module's own parsing.
        reader, count_blank, index, end = self._reader, self._count_blank, self._index, self._end
        try:
            with _large_csv_fields():
                while index < wanted:
                    start = end + 1
                    try:
                        fields = next(reader)
                    except StopIteration:
                        return None
                    except csv.Error as error:
                        end = reader.line_num
                        if not self._strict or end < start:  # the end of the file inside a quoted cell
                            return CsvRecord(start, start, []) if index + 1 == wanted else None
                        index += 1
                        self._last = CsvRecord(start, end, [], (end, str(error)))
                        return self._last
                    end = reader.line_num
                    if not count_blank and (not fields or (len(fields) == 1 and not fields[0].strip())):
                        continue  # a blank line, which pandas skips (skip_blank_lines)
                    index += 1
                    if index == wanted:
                        self._last = CsvRecord(start, end, fields)
        finally:
            self._index, self._end = index, end
        return self._last if index == wanted else None

    def close(self) -> None:
        self._stream.close()


def csv_record_start(path: str | Path, sep: str, encoding: str, record: int, *, count_blank: bool = False) -> int | None:
    """The physical line on which CSV/TSV record ``record`` starts (0 is the header), counted
    as :class:`CsvRecords` counts; None when the file has fewer records or cannot be read
    that far."""
    try:
        records = CsvRecords(path, sep, encoding, count_blank=count_blank)
        try:
            found = records.record(record)
        finally:
            records.close()
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return None if found is None else found.start


def physical_line(path: str | Path, encoding: str, number: int) -> str | None:
    """Line ``number`` (1-based) of the file as written, to show in a message; None when the
    file cannot be read that far."""
    try:
        with open_text(path, encoding) as stream:
            for current, line in enumerate(stream, 1):
                if current == number:
                    return line
    except (OSError, UnicodeDecodeError, ValueError):
        return None
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


def first_undecodable_bytes(path: str | Path, encoding: str) -> tuple[int | None, int, bytes, str] | None:
    """Where the (decompressed) file first fails to decode as ``encoding``: the line (None for
    encodings in which a line break is not the byte ``\\n``, such as UTF-16), the byte offset,
    the offending bytes and the line shown with them escaped. None if it all decodes."""
    decoder = codecs.getincrementaldecoder(encoding)()
    encoder = codecs.getincrementalencoder(encoding)()
    encoder.encode("a")  # past any byte-order mark (utf-8-sig, utf-16)
    by_line = encoder.encode("\n") == b"\n"
    offset = 0
    with open_binary(path) as stream:
        blocks = iter(stream) if by_line else iter(lambda: stream.read(1 << 20), b"")
        for number, block in enumerate(blocks, 1):
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(block)
            except UnicodeDecodeError as error:
                start = offset - pending + error.start
                shown = _around(block, error.start - pending, encoding) if by_line else ""
                return (number if by_line else None), start, error.object[error.start:error.end], shown
            offset += len(block)
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as error:
            return None, offset - len(error.object) + error.start, error.object[error.start:error.end], ""
    return None


def _around(line: bytes, position: int, encoding: str) -> str:
    """The text of ``line`` either side of byte ``position``, undecodable bytes escaped."""
    half = _SHOWN // 2
    before = line[:position].decode(encoding, errors="backslashreplace")
    after = line[position:].decode(encoding, errors="backslashreplace").rstrip("\r\n")
    return ("..." if len(before) > half else "") + before[-half:] + after[:half] + ("..." if len(after) > half else "")


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


def decoding_error(path: str | Path, fmt: str, encoding: str, error: UnicodeDecodeError) -> InputError:
    """The InputError for a file that does not decode as ``encoding``, naming the line (or the
    byte offset) and saying to pass the right encoding."""
    try:
        found = first_undecodable_bytes(path, encoding)
    except OSError:
        found = None
    if found is None:
        where = f"byte {error.start} of a block ({error.reason})"
        shown = ""
    else:
        line, offset, raw, text = found
        where = (f"line {line} (byte {offset})" if line is not None else f"byte {offset}") + f" has {raw.hex(' ')}"
        shown = f": '{text}'" if text else ""
    return InputError(
        f"cannot read {str(path)!r} as {fmt}: it is not {encoding} text: {where}, which {encoding} cannot decode{shown}; "
        f"{_ENCODING_HINT}"
    )


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
