"""``augkit train contextual`` on BANKING77 tables: the command trains from a label and a text
column and says where the model went, and bad arguments exit 2 naming what is wrong and what
would be right (a column the table lacks with its columns, a single label)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from augkit.testing import run_command


@pytest.fixture(scope="module")
def banking_table(shared_data, tmp_path_factory):
    """The official BANKING77 training rows of card_arrival and lost_or_stolen_card (text,
    category), as TSV."""
    frame = pd.read_csv(shared_data / "banking77" / "polyai" / "train.csv")
    path = tmp_path_factory.mktemp("data") / "banking.tsv"
    frame[frame["category"].isin(["card_arrival", "lost_or_stolen_card"])].to_csv(path, sep="\t", index=False)
    return path


@pytest.mark.slow
def test_the_command_trains_from_a_label_and_a_text_column(banking_table, tiny_masked_lm, tmp_path, capsys):
    jsonl = tmp_path / "banking.jsonl"
    rows = pd.read_csv(banking_table, sep="\t").rename(columns={"text": "utterance", "category": "intent"})
    rows.loc[0, "intent"] = ""  # an empty label: left out, said
    rows.to_json(jsonl, orient="records", lines=True)
    out = tmp_path / "contextual"
    code = run_command(["train", "contextual", str(jsonl), "--label-column", "intent", "--text-column", "utterance",
                        "-o", str(out), "-m", str(tiny_masked_lm), "--max-steps", "4", "--batch-size", "16",
                        "--logging-steps", "2", "--no-progress", "--device", "cpu"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "augkit train contextual: left out rows: 1 without a label" in err
    assert f"augkit train contextual: {tiny_masked_lm}, 234 rows" in err and "of 2 labels, 4 optimisation steps" in err
    assert f"model saved to {out}" in err and "-p condition=label" in err
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["contextual_labels"] == ["card_arrival", "lost_or_stolen_card"]
    assert record["source"] == {"data": str(jsonl), "text_column": "utterance", "label_column": "intent"}
    assert record["settings"]["batch_size"] == 16 and record["settings"]["epochs"] == 10.0  # C-BERT's, unless given


def test_contextual_is_a_target_of_augkit_train(capsys):
    assert run_command(["train"]) == 2
    assert "contextual" in capsys.readouterr().err
    assert run_command(["train", "contextual", "--help"]) == 0
    help_text = capsys.readouterr().out
    assert "--label-column" in help_text and "--mlm-probability" in help_text and "distilroberta-base" in help_text


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["missing.csv"], "input file '.*missing.csv' does not exist"),
        (["{table}"], "unknown label column 'label'; its columns are: category, text \\(name it with --label-column\\)"),
        (["{table}", "--label-column", "categroy"],
         "unknown label column 'categroy'; did you mean 'category'\\? its columns are: category, text"),
        (["{table}", "--label-column", "category", "--text-column", "txt"],
         "unknown text column 'txt'; did you mean 'text'\\? its columns are: category, text"),
        (["{one_label}", "--label-column", "category"],
         "conditioning on the label needs rows of at least 2 labels, found 1 \\('card_arrival'\\)"),
        (["{table}", "--label-column", "category", "--mlm-probability", "0"], "mlm-probability must be positive, got 0"),
        (["{table}", "--label-column", "category", "--max-minutes", "-5"], "max-minutes must be positive, got -5"),
        (["{table}", "--label-column", "category", "--batch-size", "0"], "batch-size must be positive, got 0"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(arguments, message, banking_table, tiny_masked_lm, tmp_path, capsys):
    one_label = tmp_path / "one.tsv"
    table = pd.read_csv(banking_table, sep="\t")
    table[table["category"] == "card_arrival"].to_csv(one_label, sep="\t", index=False)
    given = [a.format(table=banking_table, one_label=one_label) for a in arguments]
    assert run_command(["train", "contextual", *given, "-o", str(tmp_path / "out"), "-m", str(tiny_masked_lm)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("augkit: error: ") and re.search(message, err), err
    assert not (tmp_path / "out" / "model.safetensors").exists()


def test_the_plugin_and_its_command_module_load_no_model_library(loaded_by_import):
    heavy = ("torch", "transformers", "tokenizers", "pandas", "numpy", "accelerate", "datasets")
    assert loaded_by_import("augkit_contextual, augkit_contextual.train_cli, augkit_contextual.conditioning", heavy) == []
