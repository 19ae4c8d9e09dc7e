"""The FAQ tab's logic without a browser: column guesses, the review table and its ticks,
the three event handlers' messages and files, and ``augkit serve``'s refusals. (The upload
rules shared by every tab are tested in tests/web/test_web_uploads.py.)"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from augkit_faq import paraphrase_faq
from augkit_faq.review import guess_columns, kept_ids, review_table

from augkit.testing import tab_context


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
    # accepted first; then the rejects scored by similarity; last those screened out unscored
    assert first["status"].iloc[0] == "accepted" and first["status"].iloc[-1] == "meaning_changed"
    assert "lost" in first["meaning_change"].iloc[-1]  # "How do I bake bread?" loses COVID-19


def test_ticks_decide_the_downloaded_rows(result):
    review = review_table(result.candidates).astype({"keep": object})
    review.loc[review["status"] == "accepted", "keep"] = False
    review.loc[review["candidate"] == "How do I bake bread?", "keep"] = "true"  # as a browser may send it
    table = result.table_for(kept_ids(review))
    added = table[table["augkit_method"] == "faq"]
    assert added["question"].tolist() == ["How do I bake bread?"]
    assert len(table) == 25 + 1
    assert kept_ids(review.iloc[0:0]) == [] and kept_ids(None) == []


def test_serve_refuses_a_bad_size_before_starting(capsys):
    from augkit.testing import run_command

    assert run_command(["serve", "--max-file-size", "lots"]) == 2
    assert "cannot read 'lots' as a size" in capsys.readouterr().err



def test_importing_the_plugin_does_not_import_gradio():
    code = ("import sys, augkit_faq, augkit.web.serve; from augkit.registry.discovery import get_registry; "
            "assert 'faq' in get_registry().web_tabs; assert 'gradio' not in sys.modules, 'gradio imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_serve_without_gradio_names_the_extra_and_leaves_no_folder(monkeypatch, tmp_path, capsys):
    from augkit.testing import run_command

    monkeypatch.setitem(sys.modules, "gradio", None)  # as if not installed
    monkeypatch.delitem(sys.modules, "augkit.web.app", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("GRADIO_TEMP_DIR", "")
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "")
    assert run_command(["serve"]) == 2
    assert "augkit serve needs the web UI extra: pip install 'augkit[ui]'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# The handlers behind the page (gradio is imported: it is in the test extra), called with the
# context the page hands the tab.

@pytest.fixture
def context(tmp_path):
    return tab_context(tmp_path / "serve")


@pytest.fixture
def faq_csv(tmp_path, covid_faq) -> Path:
    path = tmp_path / "faq.csv"
    covid_faq.iloc[:25].rename(columns={"question": "Q", "answer": "A"}).assign(topic="covid").to_csv(path, index=False)
    return path


def test_an_upload_fills_both_dropdowns_and_preselects_the_likely_columns(faq_csv, context):
    from augkit_faq.web_ui import load_upload

    question, answer, status = load_upload(str(faq_csv), context)
    assert question["choices"] == answer["choices"] == ["Q", "A", "topic"]
    assert (question["value"], answer["value"]) == ("Q", "A")
    assert status == "faq.csv: columns Q, A, topic"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("faq.xlsx", b"not a workbook", "**Cannot use this file:** cannot read 'faq.xlsx' as xlsx"),
        ("faq.csv", b"", "**Cannot use this file:** input file 'faq.csv' is empty"),
        ("faq.csv", b"q,a\n" + b"x,y\n" * 600, "**Cannot use this file:** the file is 2.4 KB; the limit is 1 KB"),
    ],
)
def test_an_unusable_upload_empties_the_dropdowns_and_says_why(tmp_path, name, content, message):
    from augkit_faq.web_ui import load_upload

    path = tmp_path / name
    path.write_bytes(content)
    question, answer, status = load_upload(str(path), tab_context(tmp_path, max_file_size=1000))
    assert question["choices"] == answer["choices"] == [] and question["value"] is None
    assert status.startswith(message), status
    assert str(tmp_path) not in status  # the server-side path is shortened to the file name


def test_a_zip_renamed_xlsx_gets_a_status_line_not_a_traceback(tmp_path, covid_faq, context):
    from augkit_faq.web_ui import load_upload, paraphrase_upload

    path = tmp_path / "faq.xlsx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("faq.csv", covid_faq.to_csv(index=False))
    question, _, status = load_upload(str(path), context)
    assert question["choices"] == []
    assert status == ("**Cannot use this file:** cannot read 'faq.xlsx' as xlsx: it is a zip archive but not an Excel "
                      "workbook (no [Content_Types].xml); save it from Excel or LibreOffice as .xlsx, or give it the "
                      "extension of what it holds")
    result, _, status = paraphrase_upload(str(path), "question", "answer", "backtranslation", 0, 2, 120, 0.98, 0.8, 0,
                                          context=context)
    assert result is None and status.startswith("**Error:** cannot read 'faq.xlsx' as xlsx: it is a zip archive")


@pytest.fixture(scope="module")
def covid_rows(covid_faq) -> list[tuple[str, str]]:
    return [(q.strip(), a.strip()) for q, a in zip(covid_faq["question"], covid_faq["answer"])]


def test_a_workbook_bomb_is_refused_at_once(workbook_with_sheet, tmp_path, covid_rows, context):
    """206 KB inflating to 53 MB took 38 s of CPU to list its columns (issue 12, item 11); it
    is now refused from the zip's declared sizes, before any XML is parsed."""
    from augkit_faq.web_ui import load_upload

    path = workbook_with_sheet(tmp_path / "faq.xlsx", [("question", "answer")] + [covid_rows[0]] * 60_000, numbered=False)
    assert path.stat().st_size < 300_000
    _, _, status = load_upload(str(path), context)
    assert status.startswith("**Cannot use this file:** cannot read 'faq.xlsx' as xlsx: its ") and "looks like a zip bomb" in status


def test_an_upload_with_more_cells_than_the_page_parses_is_refused_naming_the_limit(shared_data, workbook_with_sheet, tmp_path, context):
    """BANKING77 queries as questions and their intents as answers: a workbook that inflates
    like a real one, just too large for the page."""
    from augkit_faq.web_ui import load_upload

    from augkit.web.uploads import UPLOAD_MAX_CELLS

    folder = shared_data / "banking77" / "jianguoz" / "train"
    lines = [(folder / name).read_text(encoding="utf-8").splitlines() for name in ("seq.in", "label")]
    pairs = list(zip(*lines))
    rows = [("question", "answer")] + [pairs[i % len(pairs)] for i in range(UPLOAD_MAX_CELLS // 2)]
    path = workbook_with_sheet(tmp_path / "faq.xlsx", rows)
    assert path.stat().st_size < 20_000_000 / 4
    _, _, status = load_upload(str(path), context)
    assert status == (f"**Cannot use this file:** cannot read 'faq.xlsx' as xlsx: it holds {UPLOAD_MAX_CELLS + 2:,} cells, "
                      f"over the limit of {UPLOAD_MAX_CELLS:,}; save the sheet as CSV or Parquet, which are read in chunks")


def test_a_reader_failure_outside_augkit_is_a_status_line(monkeypatch, faq_csv, context):
    from augkit_faq import web_ui

    import augkit.tables.io

    def broken(*args, **kwargs):
        raise KeyError("There is no item named 'xl/sharedStrings.xml' in the archive")

    monkeypatch.setattr(augkit.tables.io, "read_table", broken)
    question, _, status = web_ui.load_upload(str(faq_csv), context)
    assert question["choices"] == []
    assert status == "**Cannot use this file:** KeyError: \"There is no item named 'xl/sharedStrings.xml' in the archive\""


def _scripting(monkeypatch, candidates):
    """Runs the real paraphrase_faq with a scripted generator and records the options the page passed."""
    from augkit_faq import web_ui

    calls = []

    def scripted(frame, question, answer, **options):
        calls.append(options)
        return paraphrase_faq(frame, question, answer, **{**options, "generator": Scripted(candidates)})

    monkeypatch.setattr(web_ui, "paraphrase_faq", scripted)
    return calls


def test_a_run_passes_the_options_and_empty_fields_mean_the_defaults(monkeypatch, faq_csv, covid_faq, context):
    from augkit_faq.web_ui import paraphrase_upload

    first = covid_faq["question"].iloc[0].strip()
    calls = _scripting(monkeypatch, {first: ["Could you explain what COVID-19 is?", "How do I bake bread?"]})
    result, review, status = paraphrase_upload(str(faq_csv), "Q", "A", " backtranslation ", None, None, None, None, None, None,
                                               context=context)
    assert calls[0] == {"n": None, "generator": "backtranslation", "seed": 0, "num_return": 40, "top_k": 120,
                        "top_p": 0.98, "min_similarity": 0.8}
    assert review["candidate"].tolist() == ["Could you explain what COVID-19 is?", "How do I bake bread?"]
    assert review["keep"].tolist() == [True, False]
    assert result.summary["accepted"] == 1
    assert "generated 2" in status and "kept 1" in status and "Traceback" not in status

    paraphrase_upload(str(faq_csv), "Q", "A", "backtranslation", 3, 5, 10, 0.5, 0.7, 7.0, context=context)
    assert calls[1] == {"n": 3, "generator": "backtranslation", "seed": 7, "num_return": 5, "top_k": 10,
                        "top_p": 0.5, "min_similarity": 0.7}


def test_a_run_shows_the_notes_about_repeated_questions(monkeypatch, tmp_path, context):
    from augkit_faq.web_ui import paraphrase_upload

    path = tmp_path / "faq.csv"
    pd.DataFrame({"question": ["What is covid?", "What is covid?", "How do I wash my hands?"],
                  "answer": ["A virus.", "A virus.", "With soap."]}).to_csv(path, index=False)
    _scripting(monkeypatch, {})
    with pytest.warns(RuntimeWarning, match="appears in rows 0, 1"):
        result, _, status = paraphrase_upload(str(path), "question", "answer", "backtranslation", 0, 2, 120, 0.98, 0.8, 0,
                                              context=context)
    assert result.summary["notes"] and all(f"note: {note}" in status for note in result.summary["notes"])


@pytest.mark.parametrize(
    ("question", "answer", "generator", "message"),
    [
        ("Question", "A", "backtranslation", "**Error:** the FAQ has no"),
        ("Q", "Q", "backtranslation", "**Error:** the question and answer columns are both 'Q'"),
        ("Q", "A", None, "**Error:** generator must be a model id or path"),
    ],
)
def test_a_run_with_bad_choices_shows_the_message(faq_csv, question, answer, generator, message, context):
    from augkit_faq.web_ui import paraphrase_upload

    result, review, status = paraphrase_upload(str(faq_csv), question, answer, generator, 0, 2, 120, 0.98, 0.8, 0,
                                               context=context)
    assert result is None and review is None
    assert status.startswith(message), status


def test_a_run_that_fails_inside_a_model_library_shows_its_message_not_a_traceback(monkeypatch, faq_csv, context):
    from augkit_faq import web_ui

    def broken(*args, **kwargs):
        raise OSError("cannot reach huggingface.co to download 'some/model'")

    monkeypatch.setattr(web_ui, "paraphrase_faq", broken)
    result, _, status = web_ui.paraphrase_upload(str(faq_csv), "Q", "A", "some/model", 0, 2, 120, 0.98, 0.8, 0,
                                                 context=context)
    assert result is None
    assert status == "**Failed:** OSError: cannot reach huggingface.co to download 'some/model'"
    assert web_ui.paraphrase_upload(None, "Q", "A", "x", 0, 2, 120, 0.98, 0.8, 0, context=context)[2] == "**Upload an FAQ file first.**"


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_the_built_file_holds_the_ticked_rows_in_the_upload_format_inside_the_temp_folder(result, tmp_path, suffix):
    from augkit_faq.web_ui import build_download

    from augkit.plugin import read_table

    review = review_table(result.candidates)
    review["keep"] = review["status"] != "accepted"  # every choice flipped
    temp_dir = tmp_path / "serve"
    temp_dir.mkdir()
    path, status = build_download(f"/elsewhere/upload/faq{suffix}", result, review, context=tab_context(temp_dir))
    assert Path(path).is_relative_to(temp_dir) and Path(path).name == f"faq-augmented{suffix}"
    flipped = kept_ids(review)
    assert status == f"faq-augmented{suffix}: 25 original rows and {len(flipped)} paraphrases"
    written = read_table(path)
    expected = result.table_for(flipped)
    assert written["question"].tolist() == expected["question"].tolist()
    assert len(written) == 25 + len(flipped)
    assert build_download("faq.csv", None, review, context=tab_context(temp_dir)) == (None, "**Run the paraphrasing first.**")
