"""Workbooks are checked before openpyxl parses them (issue 12, item 11): a zip that is not a
workbook, one that inflates far beyond its size (a zip bomb), one over the size or cell limits,
and a damaged sheet each give an InputError naming the problem, quickly, never a traceback;
ordinary workbooks read as before."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pandas as pd
import pytest

from augkit.cli.main import main
from augkit.errors import InputError
from augkit.tables.io import read_table
from augkit.tables.xlsx_limits import XlsxLimits, check_workbook
from conftest import banking77_workbook_with_sheet, read_lines

#: Rows of the zip bomb: one BANKING77 row repeated, which inflates to 53 MB, as in the issue.
BOMB_ROWS = 440_000


@pytest.fixture(scope="module")
def banking(shared_data) -> pd.DataFrame:
    folder = shared_data / "banking77" / "jianguoz" / "train"
    return pd.DataFrame({"text": read_lines(folder / "seq.in")[:1500], "label": read_lines(folder / "label")[:1500]})


@pytest.fixture(scope="module")
def zip_bomb(shared_data, tmp_path_factory, banking) -> Path:
    row = (banking["text"][0], banking["label"][0])
    rows = [("text", "label")] + [row] * BOMB_ROWS
    return banking77_workbook_with_sheet(shared_data, tmp_path_factory.mktemp("bomb") / "bomb.xlsx", rows, numbered=False)


def test_a_zip_that_is_not_a_workbook_is_named_as_such(tmp_path, banking):
    path = tmp_path / "faq.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("train.csv", banking.to_csv(index=False))
    with pytest.raises(InputError, match=r"as xlsx: it is a zip archive but not an Excel workbook \(no \[Content_Types\]\.xml\)"):
        read_table(path)


def test_a_zip_bomb_is_refused_from_its_declared_sizes_before_any_parsing(zip_bomb):
    inflated = sum(member.file_size for member in zipfile.ZipFile(zip_bomb).infolist())
    assert zip_bomb.stat().st_size < 300_000 and 50_000_000 < inflated < 60_000_000
    with pytest.raises(InputError, match=r"inflate to 5\d\.\d MB of XML \(\d+ times; real workbooks inflate less than 100 times\), "
                                         r"which looks like a zip bomb; save the sheet as CSV or Parquet"):
        read_table(zip_bomb)


def test_cells_are_counted_exactly_across_the_blocks_of_a_large_sheet(zip_bomb):
    with pytest.raises(InputError, match=rf"holds {2 * (BOMB_ROWS + 1):,} cells, over the limit of 1,000"):
        check_workbook(zip_bomb, XlsxLimits(max_ratio=10_000, max_cells=1000))


def test_an_ordinary_workbook_reads_as_before_and_the_limits_apply_to_it(tmp_path, banking):
    path = tmp_path / "train.xlsx"
    banking.to_excel(path, index=False)
    pd.testing.assert_frame_equal(read_table(path).astype(object), banking.astype(object))
    with pytest.raises(InputError, match=r"holds 3,002 cells, over the limit of 3,000"):
        read_table(path, xlsx_limits=XlsxLimits(max_cells=3000))
    with pytest.raises(InputError, match=r"it inflates to \d+\.\d KB of XML, over the limit of 100\.0 KB"):
        read_table(path, xlsx_limits=XlsxLimits(max_inflated_bytes=100_000))


def test_a_damaged_sheet_is_an_input_error_not_a_traceback(shared_data, tmp_path):
    path = banking77_workbook_with_sheet(shared_data, tmp_path / "damaged.xlsx", [("text", "label"), ("card", "lost")])
    with zipfile.ZipFile(path) as archive:
        parts = {member.filename: archive.read(member) for member in archive.infolist()}
    parts["xl/worksheets/sheet1.xml"] = parts["xl/worksheets/sheet1.xml"][:-40]  # cut short
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    with pytest.raises(InputError, match=r"cannot read '.*damaged\.xlsx' as xlsx: \w+"):
        read_table(path)


def test_the_command_line_refuses_a_zip_bomb_with_exit_2(zip_bomb, tmp_path, capsys):
    assert main(["augment", str(zip_bomb), "-m", "aeda", "-o", str(tmp_path / "out.csv"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "looks like a zip bomb" in err and "Traceback" not in err
