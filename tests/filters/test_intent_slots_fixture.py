"""The slot-annotated fixture of issue 35 (``tests/fixtures/intent_slots.tsv``) checked
against the shared data it was sliced from: every row is a real row of a split the rest of the
suite does not read, word for word and label for label, and its BIO tags are well formed, one
per word, of the types its README (``intent_slots.md``) documents."""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parents[1] / "fixtures" / "intent_slots.tsv"
README = FIXTURE.with_suffix(".md")
COLUMNS = ["dataset", "split", "line", "text", "label", "slots"]
#: Issue 35: "build a fixture of at least 200 such rows from the shared data".
MIN_ROWS = 200
#: "About half from CLINC150 and half from BANKING77": each dataset's share of the rows.
DATASET_SHARE = (0.4, 0.6)
#: The first lines of CLINC150's valid split are read by tests/core/test_run_summary.py.
CLINC150_VALID_LINES_READ_ELSEWHERE = 400
#: The official BANKING77 CSV, whose rows keep the case the jianguoz re-pack lower-cased.
POLYAI_TRAIN = "polyai/train"
#: A type row of the README's slot-type table: | `number` | covers | examples |
TYPE_ROW = re.compile(r"^\| `(?P<type>[a-z]+)` \|", re.MULTILINE)
#: A row of the README's source table: | clinc150 | valid | file | 164 |
SOURCE_ROW = re.compile(r"^\| (?P<dataset>[a-z0-9]+) \| (?P<split>[a-z/]+) \| .* \| (?P<rows>\d+) \|$", re.MULTILINE)
TAG = re.compile(r"(?P<position>[BI])-(?P<type>[a-z]+)")


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    with FIXTURE.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        assert header == COLUMNS
        records = list(reader)
    assert all(len(record) == len(COLUMNS) for record in records), "a row without exactly one value per column"
    return [dict(zip(COLUMNS, record)) for record in records]


def read_split_lines(path: Path) -> list[str]:
    """The lines of a ``seq.in`` or ``label`` file, split on newlines only (never on the other
    characters ``str.splitlines`` breaks at), so that line numbers are those of ``sed -n``."""
    return path.read_text(encoding="utf-8").removesuffix("\n").split("\n")


def polyai_records(path: Path) -> dict[int, tuple[str, str, int]]:
    """The records of a polyai CSV by the line they start on: (text, category, last line)."""
    records = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        start = reader.line_num + 1
        for text, category in reader:
            records[start] = (text, category, reader.line_num)
            start = reader.line_num + 1
    return records


@pytest.fixture(scope="module")
def sources(shared_data: Path) -> dict[tuple[str, str], dict[int, tuple[str, str]]]:
    """Each (dataset, split) the fixture names: line number -> (text, label) as in the files."""
    found = {}
    for dataset in ("banking77", "clinc150"):
        folder = shared_data / dataset / "jianguoz" / "valid"
        texts, labels = read_split_lines(folder / "seq.in"), read_split_lines(folder / "label")
        assert len(texts) == len(labels)
        found[dataset, "valid"] = dict(enumerate(zip(texts, labels), start=1))
    records = polyai_records(shared_data / "banking77" / "polyai" / "train.csv")
    found["banking77", POLYAI_TRAIN] = {line: (text, category) for line, (text, category, last) in records.items() if last == line}
    return found


def documented_types() -> set[str]:
    """The types of the README's "Slot types" section."""
    section = README.read_text(encoding="utf-8").split("\n## Slot types\n", 1)[1].split("\n## ", 1)[0]
    return set(TYPE_ROW.findall(section))


def test_every_row_is_the_named_line_of_its_split_byte_for_byte(rows, sources):
    wrong = []
    for row in rows:
        source = sources.get((row["dataset"], row["split"]), {})
        if source.get(int(row["line"])) != (row["text"], row["label"]):
            wrong.append((row["dataset"], row["split"], row["line"], row["text"], source.get(int(row["line"]))))
    assert not wrong


def test_rows_come_from_splits_the_rest_of_the_suite_does_not_read(rows, sources):
    banking77_valid = {text for text, _ in sources["banking77", "valid"].values()}
    for row in rows:
        where = (row["dataset"], row["split"], row["line"])
        assert (row["dataset"], row["split"]) in {("clinc150", "valid"), ("banking77", "valid"), ("banking77", POLYAI_TRAIN)}, where
        if row["dataset"] == "clinc150":
            assert int(row["line"]) > CLINC150_VALID_LINES_READ_ELSEWHERE, where
        if row["split"] == POLYAI_TRAIN:
            assert row["text"].lower() in banking77_valid, f"{where}: not the original case of a BANKING77 valid row"


def test_every_word_has_exactly_one_tag(rows):
    for row in rows:
        assert len(row["slots"].split(" ")) == len(row["text"].split()), (row["dataset"], row["line"], row["text"])


def test_every_tag_is_outside_or_a_span_of_a_documented_type(rows):
    types = documented_types()
    used = set()
    for row in rows:
        for tag in row["slots"].split(" "):
            match = TAG.fullmatch(tag)
            assert tag == "O" or (match and match["type"] in types), (row["dataset"], row["line"], tag)
            if match:
                used.add(match["type"])
    assert used == types, f"documented but never used: {sorted(types - used)}"


def test_an_inside_tag_continues_a_span_of_its_own_type(rows):
    for row in rows:
        previous = "O"
        for tag in row["slots"].split(" "):
            if tag.startswith("I-"):
                assert previous in (f"B-{tag[2:]}", tag), (row["dataset"], row["line"], row["slots"])
            previous = tag


def test_every_row_holds_at_least_one_span(rows):
    assert all("B-" in row["slots"] for row in rows)


def test_no_text_comes_twice_in_any_case(rows):
    counts = Counter(row["text"].lower() for row in rows)
    assert [text for text, count in counts.items() if count > 1] == []


def test_enough_rows_half_from_each_dataset_in_both_cases_as_the_readme_counts(rows):
    assert len(rows) >= MIN_ROWS
    shares = Counter(row["dataset"] for row in rows)
    assert set(shares) == {"banking77", "clinc150"}
    assert all(DATASET_SHARE[0] <= count / len(rows) <= DATASET_SHARE[1] for count in shares.values()), shares
    assert any(row["text"] != row["text"].lower() for row in rows) and any(row["text"] == row["text"].lower() for row in rows)
    readme = README.read_text(encoding="utf-8")
    assert readme.split("\n", 3)[2].startswith(f"{len(rows)} rows")
    documented = {(found["dataset"], found["split"]): int(found["rows"]) for found in SOURCE_ROW.finditer(readme)}
    assert documented == Counter((row["dataset"], row["split"]) for row in rows)
