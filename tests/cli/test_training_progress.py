"""What every ``augkit train`` target reports and records about a run (augkit.training through
augkit.plugin): epochs done, the loss curve's first, best and last points, and plain warnings
when the run ended before one epoch or its loss did not fall (for reinforcement learning, its
mean reward did not rise); a method loading a folder whose record holds such warnings warns
once, naming the folder. The targets' own runs are tested in their plugins."""

from __future__ import annotations

import json
import warnings

import pytest

from augkit.plugin import (
    MEAN_REWARD,
    TRAINING_RECORD,
    TrainingProgress,
    reward_curve,
    warn_if_trained_with_warnings,
    write_training_record,
)

#: The run of the issue: 50 steps, 0.19 of an epoch, one loss logged (the record of an
#: ``augkit train pointer --max-minutes 7`` written before augkit counted epochs).
ISSUE_RECORD = {"target": "pointer", "steps": 50, "losses": [[50, 5.084]], "stopped_by_time_budget": True}


def test_a_run_that_learnt_over_epochs_has_no_warning():
    progress = TrainingProgress(2.0, ((1, 5.59), (20, 3.2), (40, 2.27), (80, 2.4)))
    assert progress.first == (1, 5.59) and progress.best == (40, 2.27) and progress.last == (80, 2.4)
    assert progress.summary() == "2.00 epochs; loss 5.590 (step 1), best 2.270 (step 40), last 2.400 (step 80)"
    assert progress.warnings == []


def test_a_run_that_ended_before_one_epoch_says_so_and_what_stopped_it():
    progress = TrainingProgress(0.19, ((1, 5.59), (50, 3.1)), stopped_by="--max-minutes")
    assert progress.warnings == ["the run ended after 0.19 of an epoch (stopped by --max-minutes): the model has not seen "
                                 "every example once and is likely undertrained"]
    cut_short = TrainingProgress(0.0019, ((1, 7.581), (2, 5.0)), stopped_by="--max-minutes")
    assert cut_short.summary().startswith("0.0019 epochs;"), "a run cut very short does not read as 0.00 epochs"
    assert cut_short.warnings[0].startswith("the run ended after 0.0019 of an epoch")


def test_a_loss_that_did_not_fall_by_five_percent_is_named_with_its_steps():
    flat = TrainingProgress(1.03, ((1, 5.586), (20, 5.649), (40, 5.633)))
    assert flat.warnings == ["the loss did not fall: 5.586 at step 1, 5.633 at step 40 (less than 5% below its first value): "
                             "the model may have learnt nothing; check the learning rate and the data"]
    assert len(TrainingProgress(1.03, ((1, 5.586), (40, 5.33))).warnings) == 1, "4.6% below the first loss"
    assert TrainingProgress(1.03, ((1, 5.586), (40, 5.2))).warnings == [], "6.9% below the first loss"


def test_a_reward_must_rise():
    assert TrainingProgress(1.0, ((1, 0.40), (10, 0.50)), MEAN_REWARD).warnings == []
    falling = TrainingProgress(1.0, ((1, 0.40), (10, 0.38)), MEAN_REWARD)
    assert falling.best == (1, 0.40)
    assert falling.warnings[0].startswith("the mean reward did not rise: 0.400 at step 1, 0.380 at step 10")


def test_a_single_logged_point_cannot_tell_and_a_reward_curve_averages_windows():
    assert TrainingProgress(0.5, ((3, 1.0),)).warnings[-1] == "only one loss was logged (1.000 at step 3), so whether it fell cannot be told"
    history = [{"step": step, "reward": float(step)} for step in range(1, 24)]
    assert reward_curve(history) == ((1, 1.0), (10, 5.5), (20, 15.5), (23, 22.0))
    assert reward_curve(history[:1]) == ((1, 1.0),)


def test_the_issues_record_gives_its_warnings():
    progress = TrainingProgress.from_record(ISSUE_RECORD)
    assert progress.epochs is None and progress.stopped_by == "--max-minutes"
    assert progress.warnings == ["the run was stopped by --max-minutes",
                                 "only one loss was logged (5.084 at step 50), so whether it fell cannot be told"]
    recorded = TrainingProgress(0.19, ((1, 5.1), (50, 5.084)), stopped_by="--max-minutes").as_record()
    assert recorded["epochs"] == 0.19 and recorded["first"] == {"step": 1, "loss": 5.1} and len(recorded["warnings"]) == 2
    again = TrainingProgress.from_record({"losses": [[1, 5.1], [50, 5.084]], "progress": recorded})
    assert again.warnings == recorded["warnings"]


def test_loading_a_folder_trained_with_warnings_warns_once_naming_it(tmp_path):
    folder = tmp_path / "pointer-banking"
    folder.mkdir()
    write_training_record(folder, ISSUE_RECORD)
    with pytest.warns(RuntimeWarning) as caught:
        warn_if_trained_with_warnings(str(folder), method="pointer")
        warn_if_trained_with_warnings(str(folder), method="pointer")
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"augkit: pointer: the model {folder.resolve()} was trained with warnings ({TRAINING_RECORD}): ")
    assert "the run was stopped by --max-minutes; only one loss was logged (5.084 at step 50)" in message
    (folder / TRAINING_RECORD).write_text(json.dumps({**ISSUE_RECORD, "losses": [[1, 5.9], [50, 2.1]],
                                                      "progress": {"epochs": 0.19}}))
    with pytest.warns(RuntimeWarning, match="ended after 0.19 of an epoch"):  # retrained: other warnings, told again
        warn_if_trained_with_warnings(str(folder), method="pointer")


@pytest.mark.parametrize("model", ["bert-base-uncased", "folder-without-record", "folder-with-a-broken-record"])
def test_anything_but_a_folder_with_warnings_says_nothing(tmp_path, model, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder-without-record").mkdir()
    (tmp_path / "folder-with-a-broken-record").mkdir()
    (tmp_path / "folder-with-a-broken-record" / TRAINING_RECORD).write_text('{"losses": [[1, ')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_trained_with_warnings(model, method="pointer")
