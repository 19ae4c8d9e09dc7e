"""``augkit train paraphraser`` on a tiny random T5 and a slice of the Quora pairs: the loss
falls, the saved folder is a model the FAQ generator loads, a run resumes from its checkpoint,
the thesis' hyper-parameters are the defaults, bad input is named, and a run that ended before
one epoch or whose loss did not fall says so, records it, and is warned of when augmenting."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from augkit_faq import paraphrase_faq
from augkit_faq.generators import Seq2SeqParaphraser
from augkit_faq.training import TrainingSettings, read_pairs, train_paraphraser

from augkit.plugin import AugkitError
from augkit.testing import run_command

pytestmark = pytest.mark.slow

FAST = {"learning_rate": 3e-3, "gradient_accumulation": 1, "batch_size": 8, "logging_steps": 5}


def test_the_defaults_are_the_thesis_hyper_parameters():
    s = TrainingSettings()
    assert (s.max_length, s.learning_rate, s.weight_decay, s.adam_epsilon, s.warmup_steps) == (512, 3e-4, 0.0, 1e-8, 0)
    assert (s.batch_size, s.eval_batch_size, s.epochs, s.gradient_accumulation, s.max_grad_norm, s.seed) == (6, 6, 2, 16, 1.0, 42)


def test_loss_falls_and_the_saved_model_paraphrases(tmp_path, quora_pairs, tiny_t5):
    out = tmp_path / "paraphraser"
    result = train_paraphraser(quora_pairs, out, model=str(tiny_t5), settings=TrainingSettings(max_steps=40, **FAST), progress=False)
    assert result.steps == 40 and len(result.losses) == 9  # step 1, then every 5
    first, last = [loss for _, loss in result.losses[:2]], [loss for _, loss in result.losses[-2:]]
    assert sum(last) / 2 < sum(first) / 2 - 0.3
    assert (out / "model.safetensors").is_file() and (out / "config.json").is_file()
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["steps"] == 40 and record["prompt"] == "paraphrase: <sentence> </s>"
    texts = Seq2SeqParaphraser(str(out), max_length=12, device="cpu").generate(["How do I learn Python?"], 3, [0])
    assert len(texts[0]) == 3 and all(isinstance(t, str) for t in texts[0])
    faq = quora_pairs.iloc[:5].rename(columns={"source": "question", "target": "answer"})
    result = paraphrase_faq(faq, "question", "answer", generator=str(out), num_return=3, max_length=12)
    assert result.summary["generator"] == str(out) and result.summary["generated"] > 0  # the folder is a faq generator


def test_same_seed_same_losses(tmp_path, quora_pairs, tiny_t5):
    runs = [train_paraphraser(quora_pairs, tmp_path / name, model=str(tiny_t5), settings=TrainingSettings(max_steps=10, **FAST),
                              progress=False).losses for name in ("a", "b")]
    assert runs[0] == runs[1]


def test_a_run_resumes_from_its_newest_checkpoint(tmp_path, quora_pairs, tiny_t5):
    out = tmp_path / "resumable"
    first = train_paraphraser(quora_pairs, out, model=str(tiny_t5), settings=TrainingSettings(max_steps=10, save_steps=5, **FAST), progress=False)
    assert first.steps == 10 and (out / "checkpoint-10").is_dir()
    with pytest.raises(AugkitError, match="holds checkpoints of an earlier run"):
        train_paraphraser(quora_pairs, out, model=str(tiny_t5), settings=TrainingSettings(max_steps=20, **FAST), progress=False)
    second = train_paraphraser(quora_pairs, out, model=str(tiny_t5), settings=TrainingSettings(max_steps=20, save_steps=5, **FAST),
                               resume=True, progress=False)
    assert second.resumed_from == "checkpoint-10" and second.steps == 20
    assert [step for step, _ in second.losses] == [1, 5, 10, 15, 20]  # the history of the first run carried on
    assert second.losses[:3] == first.losses


def test_the_command_trains_from_a_table(tmp_path, quora_pairs, tiny_t5, capsys):
    table = tmp_path / "pairs.tsv"
    quora_pairs.rename(columns={"source": "q1", "target": "q2"}).to_csv(table, sep="\t", index=False)
    out = tmp_path / "from-table"
    code = run_command(["train", "paraphraser", "--table", str(table), "--source-column", "q1", "--target-column", "q2",
                 "-m", str(tiny_t5), "-o", str(out), "--max-steps", "6", "--gradient-accumulation", "1", "--logging-steps", "3",
                 "--limit", "50", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "50 pairs, 6 optimisation steps" in err and f"--generator {out}" in err
    assert (out / "model.safetensors").is_file()


def test_the_command_trains_from_parallel_line_files(tmp_path, shared_data, tiny_t5, capsys):
    folder = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    out = tmp_path / "from-lines"
    code = run_command(["train", "paraphraser", "--pairs", str(folder / "val.q1"), str(folder / "val.q2"), "-m", str(tiny_t5),
                 "-o", str(out), "--max-steps", "2", "--limit", "30", "--no-progress"])
    assert code == 0, capsys.readouterr().err
    assert json.loads((out / "augkit-training.json").read_text())["pairs"] == 30


def test_bad_pairs_are_named(tmp_path, quora_pairs):
    short = tmp_path / "short.txt"
    short.write_text("one question?\n")
    longer = tmp_path / "longer.txt"
    longer.write_text("one question?\nanother question?\n")
    with pytest.raises(AugkitError, match="as many lines: .*short.txt has 1, .*longer.txt has 2"):
        read_pairs(lines=(short, longer))
    with pytest.raises(AugkitError, match="does not exist"):
        read_pairs(lines=(short, tmp_path / "missing.txt"))
    table = tmp_path / "pairs.csv"
    quora_pairs.to_csv(table, index=False)
    with pytest.raises(AugkitError, match="no column 'q1'; its columns are: source, target"):
        read_pairs(table=table, source_column="q1")
    blank = tmp_path / "blank.csv"
    blank.write_text("source,target\n ,x\ny,\n")
    with pytest.raises(AugkitError, match="no paraphrase pairs to train on"):
        read_pairs(table=blank)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("source,target\n ,x\nHow?,What?\n")
    assert read_pairs(table=mixed).skipped == 1


def test_bad_arguments_exit_2(tmp_path, quora_pairs, capsys):
    table = tmp_path / "pairs.csv"
    quora_pairs.to_csv(table, index=False)
    assert run_command(["train", "paraphraser", "--table", str(table), "-o", str(tmp_path / "o"), "--learning-rate", "0"]) == 2
    assert "learning-rate must be positive" in capsys.readouterr().err
    assert run_command(["train", "paraphraser", "-o", str(tmp_path / "o")]) == 2  # neither --pairs nor --table
    assert "one of the arguments --pairs --table is required" in capsys.readouterr().err


def test_a_short_run_whose_loss_did_not_fall_warns_records_and_is_warned_of_once_at_augmenting(tmp_path, shared_data, tiny_t5,
                                                                                                capsys):
    """Both warnings of every ``augkit train`` target, caused: --max-steps under one epoch and a
    learning rate too low to move the loss; on Quora pairs no other test trains on (the dev file)."""
    folder = shared_data / "quora_pairs" / "paragen" / "commit_bd93576"
    out = tmp_path / "flat"
    code = run_command(["train", "paraphraser", "--pairs", str(folder / "dev.q1"), str(folder / "dev.q2"), "-m", str(tiny_t5),
                 "-o", str(out), "--limit", "40", "--max-steps", "3", "--batch-size", "8", "--gradient-accumulation", "1",
                 "--logging-steps", "1", "--max-length", "24", "--learning-rate", "1e-12", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert re.search(r"40 pairs, 3 optimisation steps in [\d.]+ s; 0\.60 epochs; loss [\d.]+ \(step 1\), best [\d.]+ "
                     r"\(step \d\), last [\d.]+ \(step 3\)", err), err
    warned = [line.split("warning: ", 1)[1] for line in err.splitlines() if line.startswith("augkit train paraphraser: warning: ")]
    assert len(warned) == 2
    assert warned[0].startswith("the run ended after 0.60 of an epoch (stopped by --max-steps)")
    assert warned[1].startswith("the loss did not fall: ")
    assert json.loads((out / "augkit-training.json").read_text())["progress"]["warnings"] == warned
    rows = tmp_path / "rows.csv"
    lines = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text().splitlines()[7:1000:250]
    pd.DataFrame({"text": lines}).to_csv(rows, index=False)
    code = run_command(["augment", str(rows), "-m", "faq", "-p", f"generator={out}", "-p", "max_length=8", "-p", "device=cpu",
                 "-n", "1", "--seed", "0", "--batch-size", "2", "--no-progress", "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    told = [line for line in err.splitlines() if "was trained with warnings" in line]
    assert len(told) == 1 and told[0].startswith(f"augkit: warning: faq: the model {out.resolve()} was trained with warnings")
    assert "ended after 0.60 of an epoch" in told[0] and "the loss did not fall" in told[0]
