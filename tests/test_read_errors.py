"""Files that do not read: the error names the file's own line (1-based, whatever the chunk
size) and says what to do. JSON Lines that do not parse (issue 12, item 9), read whole and
streamed, through the command line and Python."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from augkit.cli import main
from augkit.errors import InputError
from augkit.table_io import read_table
from augkit.table_stream import iter_table_chunks
from conftest import read_lines


def _augment(*arguments) -> int:
    return main(["augment", *map(str, arguments), "--no-progress"])


@pytest.fixture(scope="module")
def banking_rows(shared_data) -> list[dict]:
    folder = shared_data / "banking77" / "jianguoz" / "train"
    return [{"text": t, "label": l} for t, l in zip(read_lines(folder / "seq.in")[:3000], read_lines(folder / "label")[:3000])]


def _jsonl(path: Path, rows: list[dict], *, broken: dict[int, str] | None = None, blank_after: int | None = None) -> None:
    """``rows`` as JSON Lines; ``broken`` replaces the line of row i (0-based) with a given text."""
    lines = [json.dumps(row) for row in rows]
    for row, text in (broken or {}).items():
        lines[row] = text
    if blank_after is not None:
        lines.insert(blank_after + 1, "")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("chunk_rows", [100, 50_000])
def test_a_jsonl_line_that_does_not_parse_is_named_by_its_line_in_the_file(tmp_path, banking_rows, chunk_rows):
    path = tmp_path / "train.jsonl"
    row = banking_rows[1233]
    _jsonl(path, banking_rows, broken={1233: f'{{"text": "{row["text"]}, "label": "{row["label"]}"}}'})
    expected = r"line 1234: Expecting ',' delimiter \(column \d+\); each line must hold one JSON object"
    with pytest.raises(InputError, match=expected):
        list(iter_table_chunks(path, chunk_rows))
    with pytest.raises(InputError, match=expected):
        read_table(path)


def test_jsonl_line_numbers_count_blank_lines_and_a_line_that_is_not_an_object_is_refused(tmp_path, banking_rows, capsys):
    path = tmp_path / "train.jsonl"
    _jsonl(path, banking_rows[:500], broken={420: json.dumps([banking_rows[420]["text"], banking_rows[420]["label"]])}, blank_after=10)
    with pytest.raises(InputError, match=r"line 422: expected a JSON object \{\.\.\.\}, found a list"):
        list(iter_table_chunks(path, 64))
    assert _augment(path, "-m", "aeda", "--chunk-rows", 64, "-o", tmp_path / "out.jsonl") == 2
    err = capsys.readouterr().err
    assert "line 422: expected a JSON object" in err and "Traceback" not in err
    assert not list(tmp_path.glob(".*augkit-job"))
