"""``augkit faq`` end to end with the offline generator: CSV, JSONL and XLSX in and out, the
candidate review file, the per-step counts, and bad input exiting 2 with the problem named."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from augkit.plugin import read_table
from augkit.testing import run_command


@pytest.fixture
def faq_csv(tmp_path, stackfaq):
    path = tmp_path / "faq.csv"
    stackfaq.iloc[:10].rename(columns={"question": "Q", "answer": "A"}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".xlsx"])
def test_augments_a_file_in_each_format(tmp_path, faq_csv, suffix, capsys):
    source = read_table(faq_csv)
    if suffix != ".csv":
        from augkit.plugin import write_table

        write_table(source, tmp_path / f"faq{suffix}")
    output = tmp_path / f"out{suffix}"
    review = tmp_path / "review.csv"
    code = run_command(["faq", str(tmp_path / f"faq{suffix}"), "-q", "Q", "-a", "A", "-g", "backtranslation",
                 "--num-return", "1", "-o", str(output), "--candidates", str(review)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = read_table(output)
    originals = out[out["augkit_method"].isin(["", None]) | out["augkit_method"].isna()]
    assert originals[["Q", "A"]].reset_index(drop=True).equals(source[["Q", "A"]])
    candidates = read_table(review)
    accepted = candidates[candidates["status"] == "accepted"]
    assert len(out) == len(source) + len(accepted)
    assert f"{len(source)} questions paraphrased" in captured.err
    assert f"kept {len(accepted)}" in captured.err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["-q", "question", "-a", "A"], "no question column 'question'; its columns are: Q, A"),
        (["-q", "Q", "-a", "Q"], "both 'Q'"),
        (["-q", "Q", "-a", "A", "-n", "0"], "n must be an integer >= 1"),
    ],
)
def test_bad_arguments_exit_2_naming_the_problem(tmp_path, faq_csv, arguments, message, capsys):
    code = run_command(["faq", str(faq_csv), *arguments, "-g", "backtranslation", "-o", str(tmp_path / "out.csv")])
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_file_that_is_not_a_table_is_refused(tmp_path, capsys):
    bogus = tmp_path / "faq.xlsx"
    bogus.write_text("question,answer\nnot really excel,no\n")
    assert run_command(["faq", str(bogus), "-q", "question", "-a", "answer", "-o", str(tmp_path / "o.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert run_command(["faq", str(tmp_path / "faq.docx"), "-q", "q", "-a", "a", "-o", str(tmp_path / "o.csv")]) == 2
    assert "cannot tell the format" in capsys.readouterr().err


def test_repeated_questions_are_reported_and_kept(tmp_path, stackfaq, capsys):
    faq = pd.concat([stackfaq.iloc[:4], stackfaq.iloc[[0]]], ignore_index=True)
    path = tmp_path / "faq.csv"
    faq.to_csv(path, index=False)
    output = tmp_path / "out.csv"
    assert run_command(["faq", str(path), "-q", "question", "-a", "answer", "-g", "backtranslation", "-o", str(output)]) == 0
    err = capsys.readouterr().err
    assert "appears in rows 0, 4: paraphrased once, for row 0" in err
    out = read_table(output)
    assert (out["question"] == faq.loc[0, "question"]).sum() == 2


def test_a_generators_warning_names_the_faq_option_and_comes_before_the_summary(covid_faq, tmp_path):
    source = tmp_path / "covid.csv"
    covid_faq.head(3).to_csv(source, index=False)
    done = subprocess.run([sys.executable, "-m", "augkit.cli", "faq", str(source), "-q", "question", "-a", "answer",
                           "-g", "backtranslation", "-o", str(tmp_path / "out.csv"), "--no-progress"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    warning = next(line for line in done.stderr.splitlines() if line.startswith("augkit: warning:"))
    assert "40 candidates per question (--num-return, num_return=)" in warning and "n=40" not in warning
    assert done.stderr.index(warning) < done.stderr.index("augkit faq (backtranslation)")


def test_encoding_multiline_answers_and_a_stray_quote_in_an_faq(tmp_path, stackfaq, capsys):
    """A latin-1 FAQ (StackFAQ rows with accented letters) needs --encoding; answers of two
    paragraphs read as they are; a stray quote is refused naming its line. The output is UTF-8."""
    encodable = stackfaq[[_fits_latin1(q + a) for q, a in zip(stackfaq["question"], stackfaq["answer"])]].head(8).copy()
    assert any(ord(c) > 127 for text in encodable["answer"] for c in text)
    path, output = tmp_path / "faq.csv", tmp_path / "out.csv"
    encodable.to_csv(path, index=False, encoding="latin-1")
    arguments = ["faq", str(path), "-q", "question", "-a", "answer", "-g", "backtranslation", "--num-return", "1", "-o", str(output)]
    assert run_command(arguments) == 2
    assert "--encoding latin-1" in capsys.readouterr().err
    assert run_command([*arguments, "--encoding", "latin-1"]) == 0
    written = read_table(output)
    assert written.loc[written["augkit_method"] == "", "answer"].tolist() == encodable["answer"].tolist()

    encodable.loc[encodable.index[2], "answer"] += "\n\n" + encodable["answer"].iloc[3]
    encodable.to_csv(path, index=False)
    for flag in ([], ["--allow-multiline"]):
        assert run_command([*arguments, *flag]) == 0
        written = read_table(output)
        assert written.loc[written["augkit_method"] == "", "answer"].tolist() == encodable["answer"].tolist()

    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert not lines[2].startswith('"')
    path.write_text("".join(lines[:2] + ['"' + lines[2]] + lines[3:]), encoding="utf-8")  # the second row's question
    capsys.readouterr()
    assert run_command(arguments) == 2
    assert "line 3" in capsys.readouterr().err  # here the merge runs into a quoted answer: too many fields


def _fits_latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True
