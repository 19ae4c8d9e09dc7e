"""``augkit train pointer`` says how far a run got and how its loss moved (epochs, first, best
and last loss with their steps), warns plainly when the run ended before one epoch or the loss
did not fall, and records it with the model; ``augkit augment -m pointer`` with such a model
warns once, naming the folder and what was wrong. A tiny BERT on CLINC150 validation texts."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from augkit.testing import run_command

pytestmark = pytest.mark.slow
pytest.importorskip("torch")
pytest.importorskip("accelerate")


@pytest.fixture(scope="module")
def corpus(shared_data, tmp_path_factory):
    """24 CLINC150 validation texts (every 100th), one a line."""
    lines = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()[::100][:24]
    path = tmp_path_factory.mktemp("corpus") / "seq.in"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def train(corpus, out, *options):
    return run_command(["train", "pointer", str(corpus), "-o", str(out), "--new-model", "tiny", "--batch-size", "16",
                 "--no-progress", *options])


def test_a_run_stopped_before_one_epoch_says_so_and_records_it(corpus, tmp_path, capsys):
    out = tmp_path / "short"
    code = train(corpus, out, "--max-steps", "2", "--logging-steps", "1", "--learning-rate", "1e-3")
    err = capsys.readouterr().err
    assert code == 0, err
    summary = re.search(r"2 optimisation steps in [\d.]+ s; (0\.\d\d) epochs; loss ([\d.]+) \(step 1\), "
                        r"best [\d.]+ \(step [12]\), last [\d.]+ \(step 2\)", err)
    assert summary, err
    warning = (f"augkit train pointer: warning: the run ended after {summary.group(1)} of an epoch (stopped by --max-steps): "
               "the model has not seen every example once and is likely undertrained")
    assert warning in err.splitlines()
    progress = json.loads((out / "augkit-training.json").read_text())["progress"]
    assert progress["epochs"] < 1 and progress["stopped_by"] == "--max-steps"
    assert progress["first"]["step"] == 1 and round(progress["first"]["loss"], 3) == float(summary.group(2))
    assert progress["last"]["step"] == 2 and warning.split("warning: ", 1)[1] in progress["warnings"]


def test_a_loss_that_did_not_fall_is_warned_at_training_and_once_at_augmenting(corpus, shared_data, tmp_path, capsys):
    out = tmp_path / "flat"
    code = train(corpus, out, "--epochs", "1.5", "--logging-steps", "2", "--learning-rate", "1e-12")
    err = capsys.readouterr().err
    assert code == 0, err
    warnings = [line for line in err.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and warnings[0].startswith("augkit train pointer: warning: the loss did not fall: ")
    assert re.search(r"; 1\.\d\d epochs; loss", err)
    rows = tmp_path / "rows.csv"
    lines = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()[5:2000:400]
    pd.DataFrame({"text": lines}).to_csv(rows, index=False)
    code = run_command(["augment", str(rows), "-m", "pointer", "-p", f"insertion_model={out}", "-p", "max_stages=1", "-n", "1",
                 "--seed", "0", "--batch-size", "2", "--no-progress", "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    told = [line for line in err.splitlines() if "was trained with warnings" in line]
    assert len(told) == 1, err
    assert told[0].startswith(f"augkit: warning: pointer: the model {out.resolve()} was trained with warnings")
    assert "the loss did not fall" in told[0] and "train it longer" in told[0]
