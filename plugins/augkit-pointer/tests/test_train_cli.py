"""``augkit train pointer`` on BANKING77: a line file or a table column is the corpus, the command
trains and says where the model went, and bad arguments exit 2 naming what is wrong and what
would be right."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from augkit_pointer.corpus import read_corpus

from augkit.testing import run_command


@pytest.fixture(scope="module")
def banking_lines(shared_data, tmp_path_factory):
    """The first 120 BANKING77 training texts, one a line, with the blank line a hand-edited file has."""
    texts = (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()[:120]
    path = tmp_path_factory.mktemp("corpus") / "seq.in"
    path.write_text("\n".join(texts[:60] + [""] + texts[60:]) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def banking_table(shared_data, tmp_path_factory):
    """The first 120 rows of the official BANKING77 training CSV (text, category), as TSV."""
    frame = pd.read_csv(shared_data / "banking77" / "polyai" / "train.csv").head(120)
    path = tmp_path_factory.mktemp("corpus") / "banking.tsv"
    frame.to_csv(path, sep="\t", index=False)
    return path


def test_a_line_file_and_a_table_column_are_corpora(banking_lines, banking_table, tmp_path):
    lines = read_corpus(banking_lines)
    assert len(lines.sentences) == 120 and lines.blank == 1 and lines.sentences[0] == "i am still waiting on my card?"
    table = read_corpus(banking_table, limit=50)
    assert len(table.sentences) == 50 and table.sentences[0] == "I am still waiting on my card?"
    jsonl = tmp_path / "banking.jsonl"
    pd.read_csv(banking_table, sep="\t").rename(columns={"text": "utterance"}).to_json(jsonl, orient="records", lines=True)
    assert read_corpus(jsonl, text_column="utterance").sentences == read_corpus(banking_table).sentences


@pytest.mark.slow
def test_the_command_trains_a_new_model_from_a_table(banking_table, tmp_path, capsys):
    out = tmp_path / "pointer"
    code = run_command(["train", "pointer", str(banking_table), "--text-column", "text", "-o", str(out), "--new-model", "tiny",
                 "--limit", "80", "--max-steps", "4", "--batch-size", "16", "--logging-steps", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "augkit train pointer: new tiny BERT, 80 sentences ->" in err and "4 optimisation steps" in err
    assert f"model saved to {out}" in err
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["sentences"] == 80 and record["settings"]["learning_rate"] == 1e-4  # BERT's from-scratch rate


def test_training_is_a_target_of_augkit_train(capsys):
    assert run_command(["train"]) == 2
    assert "pointer" in capsys.readouterr().err
    assert run_command(["train", "pointer", "--help"]) == 0
    assert "--new-model SHAPE" in capsys.readouterr().out


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["missing.txt"], "corpus file '.*missing.txt' does not exist"),
        (["{table}", "--text-column", "txt"], "unknown column 'txt'; did you mean 'text'\\? its columns are: category, text"),
        (["{blank}"], "no sentences to train on: .*blank.txt has no non-blank line"),
        (["{lines}", "--new-model", "mni"], "unknown model shape 'mni'; did you mean 'mini'\\? valid shapes: base, medium, mini, small, tiny"),
        (["{lines}", "--learning-rate", "0"], "learning-rate must be positive, got 0"),
        (["{lines}", "--max-minutes", "-5"], "max-minutes must be positive, got -5"),
        (["{lines}", "--limit", "0"], "--limit must be at least 1, got 0"),
        (["{lines}", "--batch-size", "0"], "batch-size must be positive, got 0"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(arguments, message, banking_lines, banking_table, tmp_path, capsys):
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n\n", encoding="utf-8")
    given = [a.format(table=banking_table, blank=blank, lines=banking_lines) for a in arguments]
    assert run_command(["train", "pointer", *given, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("augkit: error: ") and re.search(message, err), err
    assert not (tmp_path / "out" / "model.safetensors").exists()


def test_a_model_and_a_new_model_together_are_refused(banking_lines, tmp_path, capsys):
    assert run_command(["train", "pointer", str(banking_lines), "-o", str(tmp_path / "o"), "-m", "bert-base-uncased",
                        "--new-model", "mini"]) == 2
    assert "argument --new-model: not allowed with argument -m/--model" in capsys.readouterr().err


def test_the_command_module_loads_no_model_library(loaded_by_import):
    heavy = ("torch", "transformers", "tokenizers", "pandas", "numpy", "yake", "segtok", "accelerate", "datasets")
    assert loaded_by_import("augkit_pointer.train_cli", heavy) == []
