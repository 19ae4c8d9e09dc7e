"""The rules every ``augkit train`` target shares (augkit.training through augkit.plugin): one
run per output folder, checkpoints refused without --resume and the newest resumed with it,
settings checked by option name, the training record written beside the model."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest

from augkit.plugin import (
    TRAINING_RECORD,
    UsageError,
    check_training_settings,
    logged_losses,
    time_budget_callback,
    training_folder,
    write_training_record,
)


def test_a_fresh_folder_is_created_and_left_without_the_lock_note(tmp_path):
    out = tmp_path / "nested" / "model"
    with training_folder(out, resume=False) as resume_from:
        assert resume_from is None and out.is_dir()
    assert list(out.iterdir()) == []


def test_checkpoints_are_refused_without_resume_and_the_newest_resumed_with_it(tmp_path):
    for step in (5, 10):
        (tmp_path / f"checkpoint-{step}").mkdir()
    with pytest.raises(UsageError, match=r"holds checkpoints of an earlier run \(checkpoint-10\); pass --resume"):
        with training_folder(tmp_path, resume=False):
            pass
    with training_folder(tmp_path, resume=True) as resume_from:
        assert resume_from == str(tmp_path / "checkpoint-10")


def test_resume_without_checkpoints_starts_afresh(tmp_path):
    with training_folder(tmp_path, resume=True) as resume_from:
        assert resume_from is None


def test_a_second_run_on_the_folder_is_refused_while_the_first_holds_it(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom augkit.plugin import training_folder\n"
         f"with training_folder({str(tmp_path)!r}, resume=False):\n    print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(UsageError, match=f"in use by another training run \\(process {holder.pid} on "):
            with training_folder(tmp_path, resume=True):
                pass
    finally:
        holder.kill()
        holder.wait()
    with training_folder(tmp_path, resume=False) as resume_from:  # the lock died with its holder
        assert resume_from is None


def test_a_file_in_place_of_the_folder_is_named(tmp_path):
    target = tmp_path / "model"
    target.write_text("not a folder")
    with pytest.raises(UsageError, match="is a file; training writes a folder"):
        with training_folder(target, resume=False):
            pass


@dataclass
class Settings:
    learning_rate: float = 1e-5
    batch_size: int = 8
    warmup_steps: int = 0


def test_settings_are_checked_by_their_option_names():
    check_training_settings(Settings(), positive=("learning_rate", "batch_size"), non_negative=("warmup_steps",))
    with pytest.raises(UsageError, match="learning-rate must be positive, got 0"):
        check_training_settings(Settings(learning_rate=0), positive=("learning_rate",))
    with pytest.raises(UsageError, match="warmup-steps must be >= 0, got -1"):
        check_training_settings(Settings(warmup_steps=-1), positive=(), non_negative=("warmup_steps",))


def test_the_record_and_the_losses(tmp_path):
    history = [{"loss": 2.5, "step": 5, "learning_rate": 1e-5}, {"eval_loss": 2.0, "step": 5}, {"loss": 1.25, "step": 10}]
    assert logged_losses(history) == [(5, 2.5), (10, 1.25)]
    path = write_training_record(tmp_path, {"steps": 10, "losses": logged_losses(history)})
    assert path == tmp_path / TRAINING_RECORD == tmp_path / "augkit-training.json"
    assert json.loads(path.read_text()) == {"steps": 10, "losses": [[5, 2.5], [10, 1.25]]}


def test_the_time_budget_stops_at_a_step_boundary_with_a_checkpoint():
    pytest.importorskip("transformers")
    from transformers import TrainerControl

    spent = time_budget_callback(1, started=time.monotonic() - 61)
    control = spent.on_step_end(None, None, TrainerControl())
    assert control.should_training_stop and control.should_save and spent.stopped
    fresh = time_budget_callback(1)
    control = fresh.on_step_end(None, None, TrainerControl())
    assert not control.should_training_stop and not fresh.stopped
    with pytest.raises(UsageError, match="max-minutes must be positive"):
        time_budget_callback(0)
