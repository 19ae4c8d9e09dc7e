"""The web UI's logic without a browser: sizes, column guesses, the review table and its
ticks, where the download is written, and ``augkit serve``'s refusals."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from augkit.errors import AugkitError
from augkit_faq import paraphrase_faq
from augkit_faq.review import (
    check_upload_size,
    download_path,
    format_size,
    guess_columns,
    kept_ids,
    parse_size,
    review_table,
)


@pytest.mark.parametrize(("text", "size"), [("20MB", 20_000_000), ("500 kb", 500_000), ("1MiB", 1_048_576), (2048, 2048), ("1.5GB", 1_500_000_000)])
def test_sizes_are_read_in_human_units(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["20 parsecs", "", "-5MB", "0"])
def test_unreadable_sizes_are_refused(text):
    with pytest.raises(AugkitError):
        parse_size(text)


def test_an_upload_over_the_limit_is_refused_with_both_sizes(tmp_path):
    path = tmp_path / "faq.csv"
    path.write_text("q,a\n" + "x,y\n" * 2000)
    check_upload_size(path, 20_000_000)
    with pytest.raises(AugkitError, match=r"the file is 8 KB; the limit is 1 KB \(augkit serve --max-file-size\)"):
        check_upload_size(path, 1000)
    assert format_size(25_300_000) == "25.3 MB"


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (["Question", "Answer", "id"], ("Question", "Answer")),
        (["id", "q", "a"], ("q", "a")),
        (["title", "body"], ("title", "body")),
        (["text"], ("text", None)),
    ],
)
def test_columns_are_guessed_by_name_then_position(columns, expected):
    assert guess_columns(columns) == expected


class Scripted:
    name = "scripted"

    def __init__(self, candidates):
        self.candidates = candidates

    def generate(self, questions, num_return, seeds, *, progress=False):
        return [self.candidates.get(q, []) for q in questions]


@pytest.fixture
def result(covid_faq):
    faq = covid_faq.iloc[:25]
    first, second = faq["question"].iloc[0].strip(), faq["question"].iloc[3].strip()
    return paraphrase_faq(faq, "question", "answer", generator=Scripted({
        first: ["Could you explain what COVID-19 is?", "could you explain what covid-19 is", "How do I bake bread?"],
        second: ["Why must I stay at home?"],
    }))


def test_the_review_table_groups_by_question_accepted_first_and_ticks_them(result):
    review = review_table(result.candidates)
    assert "duplicate" not in set(review["status"])
    assert review["keep"].tolist() == (review["status"] == "accepted").tolist()
    questions = review["question"].tolist()
    assert questions == sorted(questions, key=lambda q: result.table["question"].str.strip().tolist().index(q))
    first = review[review["question"] == questions[0]]
    assert first["status"].iloc[0] == "accepted" and first["status"].iloc[-1] == "low_similarity"


def test_ticks_decide_the_downloaded_rows(result):
    review = review_table(result.candidates).astype({"keep": object})
    review.loc[review["status"] == "accepted", "keep"] = False
    review.loc[review["candidate"] == "How do I bake bread?", "keep"] = "true"  # as a browser may send it
    table = result.table_for(kept_ids(review))
    added = table[table["augkit_method"] == "faq"]
    assert added["question"].tolist() == ["How do I bake bread?"]
    assert len(table) == 25 + 1
    assert kept_ids(review.iloc[0:0]) == [] and kept_ids(None) == []


@pytest.mark.parametrize(("upload", "name"), [("faq.xlsx", "faq-augmented.xlsx"), ("my.faq.csv", "my.faq-augmented.csv"),
                                              ("faq.txt", "faq-augmented.csv"), ("data.csv.gz", "data.csv-augmented.csv")])
def test_the_download_keeps_the_upload_format_inside_the_folder(tmp_path, upload, name):
    path = download_path(f"/somewhere/else/{upload}", tmp_path)
    assert path == tmp_path / name and Path(path).parent == tmp_path


def test_serve_refuses_a_bad_size_before_starting(capsys):
    from augkit.cli import main

    assert main(["serve", "--max-file-size", "lots"]) == 2
    assert "cannot read 'lots' as a size" in capsys.readouterr().err

