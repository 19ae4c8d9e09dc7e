"""CSV/TSV quoting broken by a stray quote: no row swallowed, no text changed silently.

A ``"`` at the start of a field opens a quoted cell that runs to the next quote, possibly a
hundred lines later; pandas reads the lines in between as the text of one cell and the row
count silently drops (issue 12, item 4). The streamed and the whole-file readers stop at a
record whose quoting is broken (a closing quote followed by more text: in one line, issue 35's
``"book a "table" now``, or across lines), and at a cell that holds whole rows though its
quotes pair up cleanly (issue 35, section 5: a closing quote 5 or 900 lines on, in a 200k-row
file), naming the lines, unless told to read as pandas does; well-formed quoted line breaks,
such as the official BANKING77 CSVs hold, read back exactly.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from augkit.cli.main import main
from augkit.errors import InputError
from augkit.tables.io import read_table
from augkit.tables.stream import iter_table_chunks
from conftest import read_lines

ROWS = 3000


@pytest.fixture(scope="module")
def banking_frame(shared_data) -> pd.DataFrame:
    """BANKING77 training rows whose texts need no quoting in CSV or TSV (no comma, quote or
    tab), as in the issue's file: so nothing between two stray quotes closes the first one."""
    folder = shared_data / "banking77" / "jianguoz" / "train"
    frame = pd.DataFrame({"text": read_lines(folder / "seq.in"), "label": read_lines(folder / "label")})
    plain = frame[~frame["text"].str.contains('[,"\t]')]
    return plain.head(ROWS).reset_index(drop=True)


def _line_of_row(row: int) -> int:
    """The physical line (1-based, the header is line 1) of data row ``row`` (0-based) in a
    file pandas wrote without blank lines or line breaks inside cells."""
    return row + 2


def _write_with_stray_quotes(frame: pd.DataFrame, path: Path, rows: tuple[int, ...], sep: str = ",", blank_after: int | None = None) -> None:
    """``frame`` as CSV/TSV with a ``"`` put before the first field of each of ``rows``, as a
    hand edit or a broken export leaves it; ``blank_after`` inserts a blank line after that row."""
    lines = frame.to_csv(sep=sep, index=False).splitlines()
    for row in rows:
        line = lines[row + 1]
        assert not line.startswith('"') and '"' not in line, "pick rows whose text needs no quoting"
        lines[row + 1] = '"' + line
    if blank_after is not None:
        lines.insert(blank_after + 2, "")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(("rows", "chunk_rows"), [((7, 107), 50_000), ((7, 107), 5), ((1207, 1307), 100)])
@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_stray_quotes_stop_both_readers_naming_the_line_the_merged_record_starts_on(tmp_path, banking_frame, rows, chunk_rows, suffix):
    path = tmp_path / f"train{suffix}"
    _write_with_stray_quotes(banking_frame, path, rows, sep="," if suffix == ".csv" else "\t")
    line = _line_of_row(rows[0])
    expected = (rf"record starting on line {line} spans 101 lines \({line}-{line + 100}\): the quote that closes one of its "
                rf"cells, on line {line + 100}, is followed by more text.*allow_multiline=True")
    with pytest.raises(InputError, match=expected) as streamed:
        for _ in iter_table_chunks(path, chunk_rows):
            pass
    with pytest.raises(InputError, match=expected):
        read_table(path)
    assert "a stray double quote" in str(streamed.value)
    merged = read_table(path, allow_multiline=True)  # as pandas reads it: the silent loss
    assert len(merged) == len(banking_frame) - 100


def test_the_line_number_counts_blank_lines_and_earlier_chunks(tmp_path, banking_frame):
    path = tmp_path / "train.csv"
    _write_with_stray_quotes(banking_frame, path, (1207, 1307), blank_after=400)
    with pytest.raises(InputError, match=rf"line {_line_of_row(1207) + 1}\b"):
        list(iter_table_chunks(path, 64))


def test_the_official_banking77_csvs_and_their_quoted_line_breaks_read_as_before(shared_data):
    """polyai's test.csv holds three texts that begin with a quoted line break, train.csv ten."""
    for split, rows, multiline in (("test", 3080, 3), ("train", 10003, 10)):
        path = shared_data / "banking77" / "polyai" / f"{split}.csv"
        frame = read_table(path)
        assert len(frame) == rows and frame["text"].str.contains("\n").sum() == multiline
        assert pd.concat(iter_table_chunks(path, 500)).equals(frame)


@pytest.mark.parametrize("chunk_rows", [5, 50_000])
def test_the_command_line_exits_2_naming_the_line_and_keeps_no_job(tmp_path, banking_frame, chunk_rows, capsys):
    path = tmp_path / "train.csv"
    _write_with_stray_quotes(banking_frame, path, (7, 107))
    out = tmp_path / "out.csv"
    code = main(["augment", str(path), "-m", "aeda", "--seed", "0", "--chunk-rows", str(chunk_rows), "-o", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"line {_line_of_row(7)}" in err and "--allow-multiline" in err and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".*augkit-job"))


def test_the_in_memory_path_refuses_too(tmp_path, banking_frame, capsys):
    path = tmp_path / "train.csv"
    _write_with_stray_quotes(banking_frame.head(300), path, (7, 107))
    code = main(["augment", str(path), "-m", "aeda", "--seed", "0", "-o", str(tmp_path / "out.xlsx"), "--no-progress"])
    assert code == 2 and f"line {_line_of_row(7)}" in capsys.readouterr().err


@pytest.fixture
def multiline_csv(tmp_path, banking_frame) -> tuple[Path, pd.DataFrame]:
    """300 BANKING77 rows, three of whose texts are two texts joined by a real line break."""
    frame = banking_frame.head(300).copy()
    texts = frame["text"].tolist()
    frame.loc[3, "text"] = texts[3] + "\n" + texts[4]
    frame.loc[150, "text"] = texts[150] + "\r\n" + texts[151]
    frame.loc[299, "text"] = texts[298] + "\n\n" + texts[299]
    path = tmp_path / "multiline.csv"
    frame.to_csv(path, index=False)
    return path, frame


@pytest.mark.parametrize("allow_multiline", [False, True])
def test_true_quoted_line_breaks_read_exactly(multiline_csv, allow_multiline):
    path, frame = multiline_csv
    pd.testing.assert_frame_equal(read_table(path, allow_multiline=allow_multiline).astype(object), frame.astype(object))
    chunks = list(iter_table_chunks(path, 7, allow_multiline=allow_multiline))
    pd.testing.assert_frame_equal(pd.concat(chunks).astype(object), frame.astype(object))


@pytest.mark.parametrize("flag", [[], ["--allow-multiline"]])
def test_quoted_line_breaks_round_trip_exactly_through_the_command_line(tmp_path, multiline_csv, flag, capsys):
    path, frame = multiline_csv
    outputs = []
    for chunk_rows in (7, 300):
        out = tmp_path / f"out-{chunk_rows}.csv"
        code = main(["augment", str(path), "-m", "aeda", "-n", "1", "--seed", "0", "--chunk-rows", str(chunk_rows),
                     *flag, "-o", str(out), "--no-progress"])
        assert code == 0, capsys.readouterr().err
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    written = read_table(tmp_path / "out-7.csv")
    originals = written[written["augkit_method"] == ""]
    assert originals["text"].tolist() == frame["text"].tolist()
    assert originals["label"].tolist() == frame["label"].tolist()


def test_pandas_own_quoting_errors_name_the_physical_line_too(tmp_path, banking_frame):
    """pandas counts lines in records ("Expected 2 fields in line 7"): after a multi-line cell
    or a blank line, that is not the file's line. The messages give the file's line."""
    texts = banking_frame["text"].tolist()
    rows = [f"{texts[0]},a", "", f'"{texts[1]}\n{texts[2]}",b', f"{texts[3]},c,extra", f"{texts[4]},d"]
    path = tmp_path / "fields.csv"
    path.write_text("text,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 6 has 3 fields, the header has 2"):
        read_table(path, allow_multiline=True)
    with pytest.raises(InputError, match=r"line 6 has 3 fields"):
        list(iter_table_chunks(path, 1, allow_multiline=True))

    rows[3] = f'"{texts[3]},c'  # one unbalanced quote: the file ends inside the cell it opens
    path.write_text("text,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"record starting on line 6 opens a quoted cell .* never closes"):
        read_table(path, allow_multiline=True)


def test_evaluate_refuses_a_stray_quote_too_unless_told_to_read_as_pandas_does(tmp_path, banking_frame, capsys):
    path = tmp_path / "train.csv"
    _write_with_stray_quotes(banking_frame.head(300), path, (7, 107))
    out = tmp_path / "out.csv"
    assert main(["augment", str(path), "-m", "aeda", "--seed", "0", "--allow-multiline", "-o", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(path), str(out), "--no-semantic", "--metrics", "bleu"]) == 2
    assert "--allow-multiline" in capsys.readouterr().err
    assert main(["evaluate", str(path), str(out), "--no-semantic", "--metrics", "bleu", "--allow-multiline"]) == 0


# A stray quote inside one line (issue 35) -------------------------------------------------

#: How a hand edit leaves a stray quote in one line; pandas reads each without a word, as shown
#: (for the words "w1 w2 w3 w4").
ONE_LINE_FAULTS = {
    '"{0} {1} "{2}" {3}': 'w1 w2 w3" w4',   # the "book a "table" now"
    '"{0} {1} "{2} {3}': "w1 w2 w3 w4",     # a quote dropped without a trace
    '"{0} {1}"{2} {3}': "w1 w2w3 w4",       # a closing quote followed by more text
}


@pytest.mark.parametrize("fault", ONE_LINE_FAULTS)
def test_a_stray_quote_inside_one_line_stops_both_readers_naming_the_line(tmp_path, banking_frame, fault, capsys):
    frame = banking_frame.head(300)
    row = next(i for i, text in enumerate(frame["text"]) if len(text.split()) >= 4 and i > 40)
    words = frame["text"][row].split()
    broken = fault.format(*words[:3], " ".join(words[3:]))
    lines = frame.to_csv(index=False).splitlines()
    lines[row + 1] = f"{broken},{frame['label'][row]}"
    path = tmp_path / "train.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    line = _line_of_row(row)
    expected = rf"line {line} breaks the quoting: a quoted field's closing quote is followed by more text \('{re.escape(broken)},"
    for read in (lambda: list(iter_table_chunks(path, 7)), lambda: read_table(path)):
        with pytest.raises(InputError, match=expected):
            read()
    assert main(["augment", str(path), "-m", "aeda", "--seed", "0", "-o", str(tmp_path / "out.csv"), "--no-progress"]) == 2
    assert f"line {line} breaks the quoting" in capsys.readouterr().err
    as_pandas = read_table(path, allow_multiline=True)["text"][row]  # what the run would have augmented: not as written
    assert as_pandas == ONE_LINE_FAULTS[fault].replace("w1 w2", " ".join(words[:2])).replace("w3", words[2]).replace(
        "w4", " ".join(words[3:])) != broken


# Rows merged between two clean quotes, in a 200k-row file (issue 35, section 5) -----------

BIG_ROWS = 200_000


@pytest.fixture(scope="module")
def big_csv_lines(shared_data) -> list[str]:
    """200,000 rows of BANKING77 training texts that need no quoting (repeated to size), as
    the lines of a CSV file pandas writes: header, then row r on line r + 2."""
    folder = shared_data / "banking77" / "jianguoz" / "train"
    frame = pd.DataFrame({"text": read_lines(folder / "seq.in"), "label": read_lines(folder / "label")})
    plain = frame[~frame["text"].str.contains('[,"\t]')]
    copies = -(-BIG_ROWS // len(plain))
    return pd.concat([plain] * copies, ignore_index=True).head(BIG_ROWS).to_csv(index=False).splitlines()


def _write_merged(lines: list[str], path: Path, first: int, last: int) -> None:
    """The file with a quote opening row ``first``'s text and one closing row ``last``'s text,
    before its separator: both quotes well-formed, the rows between merged into one cell."""
    lines = list(lines)
    lines[first + 1] = '"' + lines[first + 1]
    text, label = lines[last + 1].rsplit(",", 1)
    lines[last + 1] = f'{text}",{label}'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("distance", [5, 900])
@pytest.mark.parametrize("first", [123_456, 49_998])  # inside the third chunk; across the first chunks' boundary
def test_rows_merged_between_two_clean_quotes_stop_streamed_and_whole_reads(tmp_path, big_csv_lines, distance, first):
    path = tmp_path / "big.csv"
    _write_merged(big_csv_lines, path, first, first + distance)
    start, end = _line_of_row(first), _line_of_row(first + distance)
    expected = (rf"the record starting on line {start} spans {distance + 1} lines \({start}-{end}\), and its column 'text' "
                rf"cell holds {distance - 1} whole rows: each of lines {start + 1}-{end - 1} reads as a row of 2 fields whose "
                rf"'label' value is one the file holds in that column.*"
                rf"allow_multiline=True")
    with pytest.raises(InputError, match=expected):
        for _ in iter_table_chunks(path, 50_000):
            pass
    with pytest.raises(InputError, match=expected):
        read_table(path)
    assert len(read_table(path, allow_multiline=True)) == BIG_ROWS - distance  # as pandas reads it: the silent loss


def test_the_command_line_refuses_the_merged_rows_and_keeps_no_job(tmp_path, big_csv_lines, capsys):
    """The issue's run: exit 0 and "read 199995 rows"; now exit 2 naming the lines."""
    path = tmp_path / "big.csv"
    _write_merged(big_csv_lines, path, 123_456, 123_461)
    out = tmp_path / "out.csv"
    code = main(["augment", str(path), "-m", "eda", "-n", "0", "--seed", "0", "-o", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"the record starting on line {_line_of_row(123_456)} spans 6 lines" in err and "--allow-multiline" in err
    assert not out.exists() and not list(tmp_path.glob(".*augkit-job"))
    assert main(["augment", str(path), "-m", "eda", "-n", "0", "--seed", "0", "-o", str(out), "--no-progress",
                 "--allow-multiline"]) == 0
    assert f"read {BIG_ROWS - 5} rows" in capsys.readouterr().err


@pytest.fixture(scope="module")
def stackfaq_paragraphs(shared_data) -> pd.DataFrame:
    """StackFAQ's 719 answers with their question, paragraphs restored as line breaks (the
    corpus keeps them as runs of spaces): 524 answers of several paragraphs, 26 of which have
    inner lines with exactly one comma, as a row of a two-column CSV has."""
    import json

    pairs = json.loads((shared_data / "stackfaq" / "bert-faq" / "stackExchange-FAQ.json").read_text(encoding="utf-8"))
    rows = [(pair["question"], re.sub(r"\s{2,}", "\n", answer.strip()))
            for pair in pairs["root"]["qapair"]
            for answer in (pair["answer"] if isinstance(pair["answer"], list) else [pair["answer"]]) if isinstance(answer, str)]
    return pd.DataFrame(rows, columns=["question", "answer"])


@pytest.mark.parametrize("sep", [",", "\t"])
def test_answers_of_several_paragraphs_read_exactly_even_with_a_rows_separators(tmp_path, stackfaq_paragraphs, sep):
    """Lines that merely have as many fields as a row ("Chrome, PC: Ctrl + Shift + V") are no
    merged rows: no column of theirs holds values the file has elsewhere."""
    assert stackfaq_paragraphs["answer"].str.contains("\n").sum() == 524
    path = tmp_path / ("faq.csv" if sep == "," else "faq.tsv")
    stackfaq_paragraphs.to_csv(path, sep=sep, index=False)
    pd.testing.assert_frame_equal(read_table(path), stackfaq_paragraphs)
    pd.testing.assert_frame_equal(pd.concat(iter_table_chunks(path, 50)), stackfaq_paragraphs)


def test_merged_rows_are_told_by_a_column_whose_values_repeat(tmp_path, banking_frame):
    """The rows a stray quote merges keep their labels, which the file holds in other rows:
    that, not the separators alone, tells them from paragraphs (here the merge spans 3 lines)."""
    lines = banking_frame.head(50).to_csv(index=False).splitlines()
    _write_merged(lines, tmp_path / "three.csv", 10, 12)
    with pytest.raises(InputError, match=r"line 12 spans 3 lines \(12-14\), and its column 'text' cell holds 1 whole row: "
                                         r"line 13 reads as a row of 2 fields whose 'label' value is one the file "
                                         r"holds in that column"):
        read_table(tmp_path / "three.csv")
