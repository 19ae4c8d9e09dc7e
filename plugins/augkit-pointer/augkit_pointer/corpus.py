"""The sentences ``augkit train pointer`` trains on: a text file of one sentence per line (any
name, e.g. BANKING77's ``seq.in``) or one column of a table (.csv, .tsv, .jsonl, .parquet,
.xlsx: augkit reads it as ``augkit augment`` does).

Blank lines and cells are left out and counted; ``limit`` keeps the first sentences.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from augkit.plugin import InputError, UsageError, unknown_name_message


@dataclass(frozen=True)
class CorpusRead:
    """The sentences read, in file order, and how many blank lines or cells were left out."""

    sentences: list[str]
    blank: int


def read_corpus(
    path: str | os.PathLike, *, text_column: str = "text", limit: int | None = None, encoding: str = "utf-8"
) -> CorpusRead:
    """The sentences of ``path``: its ``text_column`` when it is a table (by its extension),
    else its lines."""
    from augkit.plugin import read_table, table_format

    source = Path(path)
    if not source.is_file():
        raise InputError(f"corpus file {str(source)!r} does not exist" if not source.exists()
                         else f"corpus {str(source)!r} is not a file")
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    try:
        table_format(source)
        is_table = True
    except InputError:  # not a table extension: a text file of one sentence per line
        is_table = False
    if is_table:
        frame = read_table(source, encoding=encoding)
        if text_column not in frame.columns:
            raise InputError(f"{source}: " + unknown_name_message("column", text_column, [str(c) for c in frame.columns],
                                                                  listing="its columns are"))
        cells: list[Any] = frame[text_column].tolist()
    else:
        try:
            cells = source.read_text(encoding=encoding).splitlines()
        except UnicodeDecodeError as error:
            raise InputError(f"corpus {str(source)!r} is not {encoding} text ({error.reason} at byte {error.start}); "
                             "give its encoding with --encoding") from None
    sentences = [cell.strip() for cell in cells if isinstance(cell, str) and cell.strip()]
    blank = len(cells) - len(sentences)
    if limit is not None:
        sentences = sentences[:limit]
    if not sentences:
        where = f"column {text_column!r} of {source}" if is_table else str(source)
        raise InputError(f"no sentences to train on: {where} has no non-blank {'cell' if is_table else 'line'}")
    return CorpusRead(sentences, blank)
