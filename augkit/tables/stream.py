"""Reading a table in chunks and writing one chunk by chunk, for inputs larger than memory.

CSV, TSV and JSON Lines are read ``chunk_rows`` rows at a time by pandas, Parquet one record
batch at a time by pyarrow; each chunk keeps the row labels the whole table would have
(0, 1, 2, ... across chunks), so provenance is the same as for an in-memory run. Excel files
cannot be streamed and are read whole.

Chunk files are written in the output's format without a header (CSV/TSV); :func:`assemble`
joins them into the output, writing the header once and checking every chunk's bytes against
the digest recorded when it was written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from augkit.errors import AugkitError, InputError
from augkit.files.atomic import READ_BLOCK, atomic_write, file_digest
from augkit.tables.csv_quoting import QuotingCheck
from augkit.tables.io import DEFAULT_ENCODING, read_table, reading_error, table_format
from augkit.tables.read_errors import check_encoding
from augkit.tables.xlsx_limits import XlsxLimits

STREAMABLE = ("csv", "tsv", "jsonl", "parquet")


def iter_table_chunks(
    path: str | Path, chunk_rows: int, *, encoding: str = DEFAULT_ENCODING, allow_multiline: bool = False,
    xlsx_limits: XlsxLimits | None = None,
) -> Iterator[Any]:
    """DataFrames of at most ``chunk_rows`` rows, in order, indexed by their row number in
    the whole table; cells read exactly as :func:`augkit.tables.io.read_table` reads them, with
    the same options and the same errors (a CSV/TSV record whose quoting a stray quote broke
    stops the reading at the chunk that holds it, naming the file's lines)."""
    import pandas as pd

    fmt = table_format(path)
    encoding = check_encoding(encoding)
    if not Path(path).exists():
        raise InputError(f"input file {str(path)!r} does not exist")
    if fmt not in STREAMABLE:
        yield read_table(path, encoding=encoding, allow_multiline=allow_multiline, xlsx_limits=xlsx_limits)
        return
    try:
        if fmt == "parquet":
            yield from _parquet_chunks(path, chunk_rows)
            return
        if fmt in ("csv", "tsv"):
            reader = pd.read_csv(path, sep="," if fmt == "csv" else "\t", dtype=str, keep_default_na=False,
                                 na_filter=False, chunksize=chunk_rows, encoding=encoding)
        else:
            dates = {} if int(pd.__version__.split(".")[0]) >= 3 else {"convert_dates": False}
            reader = pd.read_json(path, lines=True, dtype=False, chunksize=chunk_rows, encoding=encoding, **dates)
        with reader, QuotingCheck(path, fmt, encoding) as quoting:
            start = 0
            for chunk in reader:
                chunk.index = pd.RangeIndex(start, start + len(chunk))
                if fmt != "jsonl" and not allow_multiline:
                    quoting.check(chunk, first_row=start)
                start += len(chunk)
                yield chunk
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise InputError(f"input file {str(path)!r} is empty (not even a header line)") from None
    except Exception as error:  # noqa: BLE001 -- reading_error keeps what is not about the file
        raise reading_error(error, path, fmt, encoding) from None


def count_rows(path: str | Path) -> int | None:
    """The number of rows of a table for a progress bar, cheaply: Parquet's metadata, or
    the line count of a text format (header excluded; approximate when cells hold line
    breaks). None when it cannot be told without reading the table."""
    fmt = table_format(path)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    if fmt not in ("csv", "tsv", "jsonl") or str(path).lower().endswith((".gz", ".bz2", ".xz", ".zst", ".zip")):
        return None
    lines = 0
    last = b"\n"
    with open(path, "rb") as source:
        while block := source.read(READ_BLOCK):
            lines += block.count(b"\n")
            last = block[-1:]
    lines += last != b"\n"  # a last line without a line break
    return max(lines - (1 if fmt in ("csv", "tsv") else 0), 0)


def _parquet_chunks(path: str | Path, chunk_rows: int) -> Iterator[Any]:
    import pandas as pd
    import pyarrow.parquet as pq

    start = 0
    parquet = pq.ParquetFile(path)
    for batch in parquet.iter_batches(batch_size=chunk_rows):
        chunk = batch.to_pandas()
        chunk.index = pd.RangeIndex(start, start + len(chunk))
        start += len(chunk)
        yield chunk
    if start == 0:  # no rows: one empty chunk, so the columns are still known
        yield parquet.schema_arrow.empty_table().to_pandas()


def write_chunk(frame: Any, path: Path, fmt: str) -> None:
    """Write one chunk of output to ``path`` (CSV/TSV without a header); the job writes it
    through :func:`augkit.files.atomic.atomic_write`."""
    if fmt in ("csv", "tsv"):
        frame.to_csv(path, sep="," if fmt == "csv" else "\t", index=False, header=False)
    elif fmt == "jsonl":
        frame.to_json(path, orient="records", lines=True, force_ascii=False)
    else:
        frame.to_parquet(path, index=False)


def read_chunk(path: Path, fmt: str, columns: Sequence[str]) -> Any:
    """A chunk :func:`write_chunk` wrote (its ``columns`` given, CSV/TSV having no header),
    its cells read back as the input is read (CSV/TSV cells as strings, nothing taken for
    missing): what a resumed job's steps remember of the chunks done before it stopped."""
    import pandas as pd

    if fmt != "parquet" and path.stat().st_size == 0:  # a chunk without rows
        return pd.DataFrame(columns=list(columns))
    if fmt in ("csv", "tsv"):
        return pd.read_csv(path, sep="," if fmt == "csv" else "\t", header=None, names=list(columns), dtype=str,
                           keep_default_na=False, na_filter=False, encoding="utf-8")
    if fmt == "jsonl":
        dates = {} if int(pd.__version__.split(".")[0]) >= 3 else {"convert_dates": False}
        return pd.read_json(path, lines=True, dtype=False, encoding="utf-8", **dates)
    return pd.read_parquet(path)


def header_line(columns: Sequence[str], fmt: str) -> str:
    """The CSV/TSV header line pandas writes for ``columns``."""
    import pandas as pd

    return pd.DataFrame(columns=list(columns)).to_csv(sep="," if fmt == "csv" else "\t", index=False)


class AssemblyError(AugkitError):
    """A chunk's bytes, or the assembled output, differ from what the job recorded."""


def assemble(chunks: Sequence[tuple[Path, Mapping[str, Any]]], columns: Sequence[str], output: Path, fmt: str) -> None:
    """Join the chunk files, in order, into ``output``, atomically. Each chunk comes with
    what was recorded when it was written (``bytes``, ``digest``, ``rows``); the bytes
    copied are checked against it, and so is the assembled file's size (or, for Parquet, its
    row count), before it replaces ``output``."""
    with atomic_write(output) as partial:
        if fmt == "parquet":
            _assemble_parquet(chunks, partial)
            return
        expected = 0
        with open(partial, "wb") as sink:
            if fmt in ("csv", "tsv"):
                header = header_line(columns, fmt).encode("utf-8")
                sink.write(header)
                expected += len(header)
            for path, recorded in chunks:
                _copy_verified(path, recorded, sink)
                expected += recorded["bytes"]
        written = partial.stat().st_size
        if written != expected:
            raise AssemblyError(f"the assembled output has {written} bytes, the chunks recorded {expected}; "
                                f"the output was not replaced")


def _copy_verified(path: Path, recorded: Mapping[str, Any], sink: Any) -> None:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as source:
        while block := source.read(READ_BLOCK):
            digest.update(block)
            sink.write(block)
    if digest.hexdigest() != recorded["digest"]:
        raise AssemblyError(f"{path} changed after it was verified (its digest differs from the recorded one); "
                            "the output was not replaced: run the same command with --resume to redo it")


def _assemble_parquet(chunks: Sequence[tuple[Path, Mapping[str, Any]]], target: Path) -> None:
    import pyarrow.parquet as pq

    for path, recorded in chunks:
        if file_digest(path) != recorded["digest"]:
            raise AssemblyError(f"{path} changed after it was verified; the output was not replaced: "
                                "run the same command with --resume to redo it")
    schema = _common_schema([pq.read_schema(path) for path, _ in chunks])
    with pq.ParquetWriter(target, schema) as writer:
        for path, _ in chunks:
            writer.write_table(pq.read_table(path).cast(schema))
    written = pq.ParquetFile(target).metadata.num_rows
    expected = sum(recorded["rows"] for _, recorded in chunks)
    if written != expected:
        raise AssemblyError(f"the assembled output has {written} rows, the chunks recorded {expected}; "
                            "the output was not replaced")


def _common_schema(schemas: Sequence[Any]) -> Any:
    """The first chunk's schema, except that a column of nulls there (a chunk whose texts, or
    labels, were all missing) takes the type a later chunk gives it."""
    import pyarrow as pa

    first = schemas[0]
    fields = []
    for field in first:
        if pa.types.is_null(field.type):
            later = (schema.field(field.name).type for schema in schemas[1:] if field.name in schema.names)
            field = field.with_type(next((kind for kind in later if not pa.types.is_null(kind)), field.type))
        fields.append(field)
    return pa.schema(fields, metadata=first.metadata)
