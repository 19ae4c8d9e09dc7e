"""``augkit train paraphraser`` on a tiny random T5 and a slice of the Quora pairs: the loss
falls, the saved folder is a model the FAQ generator loads, a run resumes from its checkpoint,
the thesis' hyper-parameters are the defaults, and bad input is named."""

from __future__ import annotations

import json

import pytest

from augkit.cli import main
from augkit.plugin import AugkitError
from augkit_faq import paraphrase_faq
from augkit_faq.generators import Seq2SeqParaphraser
from augkit_faq.training import TrainingSettings, read_pairs, train_paraphraser

pytestmark = pytest.mark.slow

FAST = {"learning_rate": 3e-3, "gradient_accumulation": 1, "batch_size": 8, "logging_steps": 5}


def test_the_defaults_are_the_thesis_hyper_parameters():
    s = TrainingSettings()
    assert (s.max_length, s.learning_rate, s.weight_decay, s.adam_epsilon, s.warmup_steps) == (512, 3e-4, 0.0, 1e-8, 0)
    assert (s.batch_size, s.eval_batch_size, s.epochs, s.gradient_accumulation, s.max_grad_norm, s.seed) == (6, 6, 2, 16, 1.0, 42)


def test_loss_falls_and_the_saved_model_paraphrases(tmp_path, quora_pairs, tiny_t5):
    out = tmp_path / "paraphraser"
    result = train_paraphraser(quora_pairs, out, model=str(tiny_t5), settings=TrainingSettings(max_steps=40, **FAST), progress=False)
    assert result.steps == 40 and len(result.losses) == 8
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
    assert [step for step, _ in second.losses] == [5, 10, 15, 20]  # the history of the first run carried on
    assert second.losses[:2] == first.losses


def test_the_command_trains_from_a_table(tmp_path, quora_pairs, tiny_t5, capsys):
    table = tmp_path / "pairs.tsv"
    quora_pairs.rename(columns={"source": "q1", "target": "q2"}).to_csv(table, sep="\t", index=False)
    out = tmp_path / "from-table"
    code = main(["train", "paraphraser", "--table", str(table), "--source-column", "q1", "--target-column", "q2",
                 "-m", str(tiny_t5), "-o", str(out), "--max-steps", "6", "--gradient-accumulation", "1", "--logging-steps", "3",
                 "--limit", "50", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "50 pairs, 6 optimisation steps" in err and f"--generator {out}" in err
    assert (out / "model.safetensors").is_file()


def test_the_command_trains_from_parallel_line_files(tmp_path, shared_data, tiny_t5, capsys):
    folder = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    out = tmp_path / "from-lines"
    code = main(["train", "paraphraser", "--pairs", str(folder / "val.q1"), str(folder / "val.q2"), "-m", str(tiny_t5),
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
    assert main(["train", "paraphraser", "--table", str(table), "-o", str(tmp_path / "o"), "--learning-rate", "0"]) == 2
    assert "learning-rate must be positive" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "paraphraser", "-o", str(tmp_path / "o")])  # neither --pairs nor --table
    assert "one of the arguments --pairs --table is required" in capsys.readouterr().err
