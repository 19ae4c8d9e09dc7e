"""What a training run shows and records as it goes: its progress line (losses, rewards, the time
budget), the callbacks that end it on time, and the loss and reward curves."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from augkit.errors import UsageError

#: A loss that ends less than this share below its first logged value "did not fall" (and a
#: reward that ends less than this share of its first value above it "did not rise"). The
#: first point is one batch's loss, the others means over ``logging_steps``: with the learning
#: rate at 1e-12 (nothing learnt) a new tiny POINTER BERT on 160 BANKING77 training texts
#: (batch 16, 40 steps, the loss logged every 5) logged 5.586 at step 1 and 5.609 to 5.649
#: after (all within 1.2% of it), while at 1e-3 the same run fell to 2.265-2.985 from step 30
#: (47% to 59% below). 5% is four times that noise and a tenth of that fall.
MIN_IMPROVEMENT = 0.05


#: What a run's curve measures: a loss (lower is better) or a mean reward (higher is better).
LOSS = "loss"
MEAN_REWARD = "mean reward"


def logged_losses(log_history: Iterable[Mapping[str, Any]]) -> list[tuple[int, float]]:
    """``(step, training loss)`` for each loss the Trainer logged (``trainer.state.log_history``)."""
    return [(int(entry["step"]), float(entry["loss"])) for entry in log_history if "loss" in entry]


def ending_log_callback() -> Any:
    """A transformers ``TrainerCallback`` that logs the loss at the step a run ends on (its
    last step, or the step a time budget or ``max_steps`` stops it at), so that the loss curve's
    last point is the run's last loss and not the last multiple of ``logging_steps``. Put it
    after a :func:`time_budget_callback`: callbacks run in order."""
    import transformers

    class LogWhereItEnds(transformers.TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            if control.should_training_stop or state.global_step >= state.max_steps:
                control.should_log = True
            return control

    return LogWhereItEnds()


def time_budget_callback(minutes: float, *, started: float | None = None) -> Any:
    """A transformers ``TrainerCallback`` that ends training at the first optimisation step
    finished ``minutes`` after ``started`` (a ``time.monotonic()`` reading; default: now) and
    has a checkpoint written there, so that ``--resume`` continues from it. Its ``stopped``
    attribute says whether the budget ended the run."""
    import transformers

    if not minutes > 0:
        raise UsageError(f"max-minutes must be positive, got {minutes!r}")
    deadline = (time.monotonic() if started is None else started) + minutes * 60

    class TimeBudget(transformers.TrainerCallback):
        stopped = False

        def on_step_end(self, args, state, control, **kwargs):
            if time.monotonic() >= deadline:
                control.should_training_stop = True
                control.should_save = True
                self.stopped = True
            return control

    return TimeBudget()


@dataclasses.dataclass(frozen=True)
class TrainingProgress:
    """How far a training run got and how its loss moved: what every ``augkit train`` target
    prints, records with the model (:meth:`as_record`) and what a method loading that model
    warns about (:func:`warn_if_trained_with_warnings`).

    ``epochs``: passes over the training examples, fractional (None when unknown: a record
    written before augkit counted them). ``curve``: ``(step, value)`` of each logged loss, in
    order (for reinforcement learning, ``measure`` is :data:`MEAN_REWARD` and higher is
    better). ``stopped_by``: the option that ended the run early, if one did
    (``--max-minutes``, ``--max-steps``).

    >>> progress = TrainingProgress(0.19, ((1, 5.1), (50, 5.084)), stopped_by="--max-minutes")
    >>> progress.summary()
    '0.19 epochs; loss 5.100 (step 1), best 5.084 (step 50), last 5.084 (step 50)'
    >>> progress.warnings[0]
    'the run ended after 0.19 of an epoch (stopped by --max-minutes): the model has not seen every example once and is likely undertrained'
    """

    epochs: float | None
    curve: tuple[tuple[int, float], ...] = ()
    measure: str = LOSS
    stopped_by: str | None = None

    @property
    def first(self) -> tuple[int, float] | None:
        return self.curve[0] if self.curve else None

    @property
    def last(self) -> tuple[int, float] | None:
        return self.curve[-1] if self.curve else None

    @property
    def best(self) -> tuple[int, float] | None:
        """The lowest loss (the highest reward), the earliest of equals."""
        if not self.curve:
            return None
        sign = 1 if self.measure == LOSS else -1
        return min(self.curve, key=lambda point: sign * point[1])

    def summary(self) -> str:
        """``0.19 epochs; loss 5.100 (step 1), best 5.084 (step 50), last 5.084 (step 50)``."""
        parts = [] if self.epochs is None else [f"{_epochs_text(self.epochs)} epochs"]
        if self.curve:
            (s1, v1), (sb, vb), (sl, vl) = self.first, self.best, self.last
            parts.append(f"{self.measure} {v1:.3f} (step {s1}), best {vb:.3f} (step {sb}), last {vl:.3f} (step {sl})")
        else:
            parts.append(f"no {self.measure} logged")
        return "; ".join(parts)

    @property
    def warnings(self) -> list[str]:
        """What a user must know before using the model, in plain words: the run ended
        before one epoch; the loss did not fall (the reward did not rise) by
        :data:`MIN_IMPROVEMENT` of its first value, or too few points were logged to tell."""
        found = []
        if self.epochs is not None and self.epochs < 1:
            by = f" (stopped by {self.stopped_by})" if self.stopped_by else ""
            found.append(f"the run ended after {_epochs_text(self.epochs)} of an epoch{by}: the model has not seen every example "
                         "once and is likely undertrained")
        elif self.epochs is None and self.stopped_by:
            found.append(f"the run was stopped by {self.stopped_by}")
        verb = "fall" if self.measure == LOSS else "rise"
        if len(self.curve) < 2:
            logged = f"only one {self.measure} was logged ({self.curve[0][1]:.3f} at step {self.curve[0][0]})" if self.curve \
                else f"no {self.measure} was logged"
            found.append(f"{logged}, so whether it fell cannot be told" if self.measure == LOSS
                         else f"{logged}, so whether it rose cannot be told")
        else:
            (s1, v1), (sl, vl) = self.first, self.last
            gain = (v1 - vl) if self.measure == LOSS else (vl - v1)
            if gain < MIN_IMPROVEMENT * abs(v1):
                found.append(f"the {self.measure} did not {verb}: {v1:.3f} at step {s1}, {vl:.3f} at step {sl} "
                             f"(less than {MIN_IMPROVEMENT:.0%} {'below' if self.measure == LOSS else 'above'} its first "
                             "value): the model may have learnt nothing; check the learning rate and the data")
        return found

    def as_record(self) -> dict[str, Any]:
        """The ``progress`` entry of the training record."""
        def point(value: tuple[int, float] | None) -> dict[str, Any] | None:
            return None if value is None else {"step": value[0], self.measure.replace(" ", "_"): value[1]}

        return {"epochs": None if self.epochs is None else round(self.epochs, 4), "measure": self.measure,
                "first": point(self.first), "best": point(self.best), "last": point(self.last),
                "stopped_by": self.stopped_by, "warnings": self.warnings}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> TrainingProgress | None:
        """The progress of a training record: its ``losses`` (or RL ``rewards``), ``epochs``
        and what stopped it; a record written before augkit kept ``progress`` gives what it
        can (no epochs). None when the record holds no curve at all."""
        saved = record.get("progress") if isinstance(record.get("progress"), Mapping) else {}
        stopped = saved.get("stopped_by") or ("--max-minutes" if record.get("stopped_by_time_budget") else None)
        epochs = saved.get("epochs")
        if isinstance(record.get("losses"), list):
            curve = tuple((int(step), float(value)) for step, value in record["losses"])
            return cls(epochs, curve, LOSS, stopped)
        if isinstance(record.get("rewards"), list):
            return cls(epochs, reward_curve(record["rewards"]), MEAN_REWARD, stopped)
        return None


def _epochs_text(epochs: float) -> str:
    """Epochs as a run reports them: two decimals (``0.19``, ``3.00``), two significant digits
    below a tenth so that a run cut short does not read as none (``0.0019``)."""
    return f"{epochs:.2f}" if epochs >= 0.1 or epochs == 0 else f"{epochs:.2g}"


def trainer_progress(state: Any, *, settings: Any, budget: Any = None) -> TrainingProgress:
    """The :class:`TrainingProgress` of a finished ``transformers.Trainer`` run: its state's
    fractional epoch and logged losses; stopped by ``--max-minutes`` when the ``budget``
    callback ended it, by ``--max-steps`` when ``settings.max_steps`` did before the epochs."""
    stopped_by = None
    if budget is not None and budget.stopped:
        stopped_by = "--max-minutes"
    elif getattr(settings, "max_steps", -1) > 0 and state.global_step >= settings.max_steps \
            and (state.epoch or 0) < getattr(settings, "epochs", 0):
        stopped_by = "--max-steps"
    return TrainingProgress(float(state.epoch or 0.0), tuple(logged_losses(state.log_history)), LOSS, stopped_by)


#: Steps averaged into each point of a reward curve after the first (which is step 1 alone),
#: as a Trainer logs a loss every ``logging_steps`` (the paraphraser's default is 10): one
#: step's mean reward over 8 rows moves too much to compare two of them.
REWARD_WINDOW = 10


def reward_curve(history: Sequence[Mapping[str, Any]], window: int = REWARD_WINDOW) -> tuple[tuple[int, float], ...]:
    """A reinforcement-learning run's curve from its per-step history (``step``, ``reward``):
    step 1's reward, then the mean reward of every ``window`` steps and of the steps after
    the last full window, each at its window's last step (as a Trainer logs a loss)."""
    points = [(int(entry["step"]), float(entry["reward"])) for entry in history
              if entry.get("reward") is not None and entry.get("step") is not None]
    if not points:
        return ()
    curve = [points[0]]
    for start in range(0, len(points), window):
        chunk = points[start : start + window]
        if chunk[-1][0] != curve[-1][0]:
            curve.append((chunk[-1][0], sum(value for _, value in chunk) / len(chunk)))
    return tuple(curve)


def say_progress(command: str, progress: TrainingProgress, *, file: Any = None) -> None:
    """Print each of ``progress``'s warnings as ``<command>: warning: ...`` (standard error)."""
    for warning in progress.warnings:
        print(f"{command}: warning: {warning}", file=file or sys.stderr)
