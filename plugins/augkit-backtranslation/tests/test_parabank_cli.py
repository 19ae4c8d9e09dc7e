"""``augkit parabank`` end to end: the tiny Marian models (monolingual and parallel) and the
bergamot engine for real write the documented pairs table; bad input exits 2 naming the problem."""

from __future__ import annotations

import pandas as pd
import pytest

from augkit.plugin import clear_model_cache, edit_distance_ratio
from augkit.testing import run_command

COLUMNS = ["source", "paraphrase", "translation", "dual_score", "forward_logprob", "reverse_logprob", "edit_ratio", "row"]


@pytest.fixture(scope="module")
def sentences(banking77_sentences) -> list[str]:
    return list(dict.fromkeys(banking77_sentences))[:12]


@pytest.fixture
def table(tmp_path, sentences):
    path = tmp_path / "sentences.csv"
    pd.DataFrame({"text": sentences, "label": range(len(sentences))}).to_csv(path, index=False)
    return path


def marian_options(tiny_marian_pair) -> list[str]:
    en_xx, xx_en = tiny_marian_pair
    return ["--to-language-model", str(xx_en), "--from-language-model", str(en_xx), "--pivot", "xx", "--device", "cpu"]


def test_monolingual_run_writes_the_documented_columns_best_first(tmp_path, table, sentences, tiny_marian_pair, capsys):
    output = tmp_path / "pairs.csv"
    code = run_command(["parabank", str(table), "-o", str(output), "-k", "3", "--top-fraction", "0.5", *marian_options(tiny_marian_pair)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    pairs = pd.read_csv(output)
    assert list(pairs.columns) == COLUMNS
    assert 1 <= len(pairs) <= 6  # ceil(0.5 x at most 12 rows with a survivor)
    assert pairs["dual_score"].is_monotonic_decreasing and pairs["dual_score"].notna().all()
    assert all(pairs["source"] == [sentences[row] for row in pairs["row"]])
    assert (pairs["edit_ratio"] >= 0.12).all()
    summary = [line for line in captured.err.splitlines() if line.startswith("augkit parabank: ")]
    assert len(summary) == 1
    assert summary[0].startswith("augkit parabank: 12 rows read (0 empty skipped), 36 candidates generated; dropped ")
    assert f"; {len(pairs)} pairs kept (top 0.5 by dual score per token); wrote {output} in " in summary[0]


def test_the_ctranslate2_runtime_writes_the_same_pairs(tmp_path, table, tiny_marian_pair, capsys, monkeypatch):
    monkeypatch.setenv("AUGKIT_CACHE_DIR", str(tmp_path / "cache"))
    clear_model_cache()  # models loaded by earlier tests would not be converted into this cache
    written = {}
    for runtime in ("transformers", "ctranslate2"):
        written[runtime] = tmp_path / f"{runtime}.csv"
        assert run_command(["parabank", str(table), "-o", str(written[runtime]), "-k", "3", "--runtime", runtime,
                     "--compute-type", "float32", *marian_options(tiny_marian_pair)]) == 0, capsys.readouterr().err
    torch_pairs, converted = pd.read_csv(written["transformers"]), pd.read_csv(written["ctranslate2"])
    assert converted[["row", "paraphrase"]].equals(torch_pairs[["row", "paraphrase"]])
    assert len(list((tmp_path / "cache" / "ctranslate2").iterdir())) == 2


def test_parallel_run_takes_the_translation_column_and_a_script_filter(tmp_path, sentences, tiny_marian_pair, capsys):
    source = tmp_path / "parallel.jsonl"
    pd.DataFrame({"en": sentences, "xx": [f"{text} please" for text in sentences]}).to_json(source, orient="records", lines=True)
    output = tmp_path / "pairs.tsv"
    code = run_command([
        "parabank", str(source), "-o", str(output), "--text-column", "en", "--translation-column", "xx", "-k", "2",
        "--wrong-script", "Han", "--top-fraction", "1", *marian_options(tiny_marian_pair),
    ])
    assert code == 0, capsys.readouterr().err
    pairs = pd.read_csv(output, sep="\t", keep_default_na=False)
    assert list(pairs.columns) == [*COLUMNS[:-1], "wrong_script_share", "row"]
    assert all(pairs["translation"] == [f"{sentences[row]} please" for row in pairs["row"]])
    assert (pairs["wrong_script_share"] == 0.0).all() and len(pairs) >= 10


def test_bergamot_through_portuguese_writes_real_paraphrases(tmp_path, table, sentences, capsys):
    output = tmp_path / "pairs.csv"
    assert run_command(["parabank", str(table), "-o", str(output), "--engine", "bergamot"]) == 0
    err = capsys.readouterr().err
    pairs = pd.read_csv(output)
    assert list(pairs.columns) == COLUMNS
    assert len(pairs) >= 4 and pairs["row"].is_monotonic_increasing
    assert pairs["dual_score"].isna().all()
    for source, paraphrase in zip(pairs["source"], pairs["paraphrase"], strict=True):
        assert paraphrase != source and edit_distance_ratio(paraphrase, source) >= 0.12
    assert "12 rows read (0 empty skipped), 12 candidates generated" in err
    assert "no top-fraction cut" in err


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--text-column", "question"], "--text-column: column 'question' not in"),
        (["--translation-column", "fr"], "--translation-column: column 'fr' not in"),
        (["--top-fraction", "0"], r"top_fraction must be in (0, 1]"),
        (["--top-fraction", "1.5"], r"top_fraction must be in (0, 1]"),
        (["-k", "0"], "k must be an integer >= 1"),
        (["--wrong-script", "Klingon"], "unknown script 'Klingon'"),
        (["--engine", "bergamot", "-k", "4"], "-k/--beam-size need(s) --engine transformers"),
        (["--engine", "bergamot", "--top-fraction", "0.5"], "--top-fraction need(s) --engine transformers"),
        (["--engine", "bergamot", "--runtime", "ctranslate2"], "--runtime need(s) --engine transformers"),
        (["--engine", "bergamot", "--language", "zh", "--pivot", "en"], "English through Portuguese only"),
    ],
)
def test_bad_arguments_exit_2_naming_the_problem(tmp_path, table, tiny_marian_pair, capsys, arguments, message):
    output = tmp_path / "pairs.csv"
    models = [] if "bergamot" in arguments else marian_options(tiny_marian_pair)
    code = run_command(["parabank", str(table), "-o", str(output), *models, *arguments])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.startswith("augkit: error: ")
    assert not output.exists()


@pytest.mark.parametrize(
    "content, message",
    [("", "is empty (not even a header line)"), ("text\n", "has no rows")],
)
def test_an_empty_input_exits_2(tmp_path, capsys, content, message):
    source = tmp_path / "empty.csv"
    source.write_text(content, encoding="utf-8")
    assert run_command(["parabank", str(source), "-o", str(tmp_path / "pairs.csv"), "--engine", "bergamot"]) == 2
    assert message in capsys.readouterr().err


def test_an_unknown_output_format_exits_2_before_any_work(tmp_path, table, capsys):
    assert run_command(["parabank", str(table), "-o", str(tmp_path / "pairs.docx"), "--engine", "bergamot"]) == 2
    assert "cannot tell the format of" in capsys.readouterr().err
