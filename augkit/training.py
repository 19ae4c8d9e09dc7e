"""The rules every ``augkit train`` target follows, written once: its output folder, checkpoints
and ``--resume``, the training record, the trainer's arguments, a time budget.

- :func:`training_folder` holds the output folder for one run: a second run on the same folder
  is refused while the first holds it (an OS lock, as ``augkit augment`` jobs have), and a
  folder holding checkpoints of an earlier run is refused unless the run resumes it.
- :func:`training_arguments` builds transformers' ``TrainingArguments`` (or a subclass) from a
  target's settings: AdamW with linear decay, checkpoints every ``save_steps``, no reporting
  service, the device chosen as augkit chooses it.
- :class:`TrainerSettings` holds the settings every target shares and their checks, and
  :class:`TrainerArgumentsSettings` adds those transformers' Trainer reads; a target's
  settings dataclass subclasses one, with its own defaults and fields.
- :func:`add_settings_options` gives each field of a target's settings dataclass its option
  (``learning_rate`` -> ``--learning-rate``, typed as its default).
- :func:`time_budget_callback` stops a run cleanly at the first step boundary past a number of
  minutes, with a checkpoint that ``--resume`` continues from.
- :func:`write_training_record` writes :data:`TRAINING_RECORD` beside the model: what was
  trained, on what, how long and how the loss moved.
- :class:`TrainingProgress` says how far a run got (epochs, fractional) and how its loss (or,
  for reinforcement learning, its mean reward) moved: first, best and last, with steps; its
  :attr:`~TrainingProgress.warnings` say plainly when the run ended before one epoch or the
  loss did not fall. Every target prints them and records them with the model, and
  :func:`warn_if_trained_with_warnings` repeats them once when a method loads that model.

Nothing here imports torch or transformers until a function needs them.

>>> with training_folder("my-model", resume=False) as resume_from:        # doctest: +SKIP
...     trainer.train(resume_from_checkpoint=resume_from)
...     write_training_record("my-model", {"steps": trainer.state.global_step})
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from augkit.errors import MissingDependencyError, UsageError

#: The file beside a trained model that says how it was trained (JSON).
TRAINING_RECORD = "augkit-training.json"
#: What the trainer needs beyond augkit's model runtime.
TRAINER_PACKAGES = "torch, transformers, accelerate and datasets"
#: A loss that ends less than this share below its first logged value "did not fall" (and a
#: reward that ends less than this share of its first value above it "did not rise"). The
#: first point is one batch's loss, the others means over ``logging_steps``: with the learning
#: rate at 1e-12 (nothing learnt) a new tiny POINTER BERT on 160 BANKING77 training texts
#: (batch 16, 40 steps, the loss logged every 5) logged 5.586 at step 1 and 5.609 to 5.649
#: after (all within 1.2% of it), while at 1e-3 the same run fell to 2.265-2.985 from step 30
#: (47% to 59% below). 5% is four times that noise and a tenth of that fall.
MIN_IMPROVEMENT = 0.05
#: What a run's curve measures: a loss (lower is better) or a mean reward (higher is better).
LOSS, MEAN_REWARD = "loss", "mean reward"


def import_trainer(purpose: str, install: str) -> Any:
    """The ``transformers`` module, once the trainer's dependencies are known to be there;
    else an error saying what ``purpose`` needs and the ``install`` command that provides it."""
    try:
        import accelerate  # noqa: F401  (the Trainer needs it)
        import datasets  # noqa: F401
        import transformers
    except ImportError as error:
        raise MissingDependencyError(f"{purpose} needs {error.name}: {install}") from error
    return transformers


@contextmanager
def training_folder(output_dir: str | os.PathLike, *, resume: bool) -> Iterator[str | None]:
    """Hold ``output_dir`` (created if missing) for one training run and give the checkpoint
    to resume from: the newest ``checkpoint-N`` when ``resume`` is set (None when there is
    none yet: the run starts afresh), else None.

    Refused with a usage error: a folder another run holds now (the message says which
    process), and a folder that holds checkpoints of an earlier run when ``resume`` is not set
    (two runs mixed in one folder would resume from each other's optimiser state).
    """
    from augkit.files.atomic import remove_partials
    from augkit.jobs.lock import OWNER_FILE, lock_output_folder

    folder = Path(output_dir)
    lock = lock_output_folder(folder, runs="training",
                              busy_note=": two runs in one folder would overwrite each other's checkpoints")
    try:
        remove_partials(folder)  # checkpoints a killed run was saving (augkit.files.atomic.atomic_folder)
        last = newest_checkpoint(folder)
        if last is not None and not resume:
            raise UsageError(f"{folder} holds checkpoints of an earlier run ({Path(last).name}); pass --resume to "
                             "continue it, or choose another output folder")
        yield last if resume else None
    finally:
        (folder / OWNER_FILE).unlink(missing_ok=True)  # the lock's note of who held it: not part of the model
        lock.release()


def newest_checkpoint(folder: str | os.PathLike) -> str | None:
    """The path of the newest ``checkpoint-N`` folder transformers' Trainer wrote in
    ``folder``, or None."""
    from transformers.trainer_utils import get_last_checkpoint

    return get_last_checkpoint(str(folder)) if Path(folder).is_dir() else None


def check_training_settings(settings: Any, *, positive: Iterable[str], non_negative: Iterable[str] = ()) -> None:
    """Refuse settings the trainer would fail on later, or silently misuse: each of
    ``positive`` must be > 0 and each of ``non_negative`` >= 0 (``--learning-rate must be
    positive, got 0``, named as the command-line option)."""
    for names, ok, wanted in ((positive, lambda v: v > 0, "positive"), (non_negative, lambda v: v >= 0, ">= 0")):
        for name in names:
            value = getattr(settings, name)
            if not ok(value):
                raise UsageError(f"{name.replace('_', '-')} must be {wanted}, got {value!r}")


@dataclasses.dataclass
class TrainerSettings:
    """The settings every ``augkit train`` target has, with their checks: the optimiser's
    (AdamW: ``learning_rate``, ``weight_decay``, ``adam_epsilon``, gradients clipped to
    ``max_grad_norm``), how long (``epochs``, or ``max_steps`` > 0 steps), ``batch_size``
    rows a step, ``seed``, and checkpoints every ``save_steps`` (the newest
    ``save_total_limit`` kept).

    A target subclasses it (or :class:`TrainerArgumentsSettings`) as a dataclass, redeclaring
    a field to give its own default and adding its own fields; :meth:`check` checks them all:
    the shared ones here, its own in :meth:`check_own`. A field whose default is None
    ("chosen later", as POINTER's learning rate) may stay None.
    """

    learning_rate: float = 5e-5
    weight_decay: float = 0.0
    adam_epsilon: float = 1e-8
    batch_size: int = 8
    epochs: float = 1.0
    max_grad_norm: float = 1.0
    seed: int = 42
    max_steps: int = -1
    save_steps: int = 500
    save_total_limit: int = 2

    #: Shared fields that must be > 0 and >= 0 (``max_grad_norm`` 0: no clipping, as the
    #: Trainer reads it; AdamW accepts an ``adam_epsilon`` of 0). Subclasses extend them.
    POSITIVE: ClassVar[tuple[str, ...]] = ("learning_rate", "batch_size", "epochs", "save_steps", "save_total_limit")
    NON_NEGATIVE: ClassVar[tuple[str, ...]] = ("weight_decay", "adam_epsilon", "max_grad_norm")

    def check(self) -> None:
        """Refuse values the trainer would fail on later, or silently misuse, named as their
        command-line options (``learning-rate must be positive, got 0``)."""
        chosen_later = {f.name for f in dataclasses.fields(self) if f.default is None and getattr(self, f.name) is None}
        check_training_settings(self, positive=[name for name in self.POSITIVE if name not in chosen_later],
                                non_negative=[name for name in self.NON_NEGATIVE if name not in chosen_later])
        if self.max_steps == 0 or self.max_steps < -1:
            raise UsageError(f"max-steps must be positive, or -1 to train for --epochs, got {self.max_steps!r}")
        self.check_own()

    def check_own(self) -> None:
        """A target's checks of its own fields (none here)."""


@dataclasses.dataclass
class TrainerArgumentsSettings(TrainerSettings):
    """:class:`TrainerSettings` and what transformers' Trainer reads besides
    (:func:`training_arguments`): ``warmup_steps`` of rising learning rate,
    ``gradient_accumulation`` batches a step, the loss logged every ``logging_steps``."""

    warmup_steps: int = 0
    gradient_accumulation: int = 1
    logging_steps: int = 10

    POSITIVE: ClassVar[tuple[str, ...]] = (*TrainerSettings.POSITIVE, "gradient_accumulation", "logging_steps")
    NON_NEGATIVE: ClassVar[tuple[str, ...]] = (*TrainerSettings.NON_NEGATIVE, "warmup_steps")


#: The settings :func:`training_arguments` reads: the fields of :class:`TrainerArgumentsSettings`.
TRAINER_SETTINGS = tuple(f.name for f in dataclasses.fields(TrainerArgumentsSettings))


def add_settings_options(
    parser: argparse.ArgumentParser,
    defaults: Any,
    helps: Mapping[str, str],
    *,
    types: Mapping[str, type] | None = None,
    given_only: bool = False,
) -> None:
    """Add one option per field of the settings dataclass instance ``defaults``: ``--learning-rate``
    for ``learning_rate``, of the type of its default (``types`` for the fields whose default is
    None), with ``helps[field]`` as its help. The option's default is the field's, or None with
    ``given_only`` (to tell an option given from one left out, when a preset may fill it).
    :func:`settings_given` reads them back."""
    for setting in dataclasses.fields(defaults):
        default = getattr(defaults, setting.name)
        parser.add_argument(f"--{setting.name.replace('_', '-')}", type=(types or {}).get(setting.name, type(default)),
                            default=None if given_only else default, help=helps[setting.name])


def settings_given(args: argparse.Namespace, settings_class: type) -> dict[str, Any]:
    """The values of the options :func:`add_settings_options` added for ``settings_class``, by field name."""
    return {setting.name: getattr(args, setting.name) for setting in dataclasses.fields(settings_class)}


def training_arguments(
    arguments_class: Any, output_dir: str | os.PathLike, settings: Any, *, device: str, progress: bool, **extra: Any
) -> Any:
    """``arguments_class`` (transformers' ``TrainingArguments`` or ``Seq2SeqTrainingArguments``)
    from ``settings`` (an object with the :data:`TRAINER_SETTINGS` attributes) and ``extra``
    keyword arguments: AdamW with linear decay after ``warmup_steps`` (the Trainer's default
    optimiser and schedule), weight decay on all but biases and LayerNorm weights,
    checkpoints every ``save_steps``, the loss logged every ``logging_steps``, no reporting
    service, no data-loading processes, float32 on the CPU unless ``device`` is a GPU."""
    from augkit.models import resolve_device

    on_cpu = not resolve_device(device).startswith("cuda")
    options = dict(
        output_dir=str(output_dir),
        per_device_train_batch_size=settings.batch_size,
        gradient_accumulation_steps=settings.gradient_accumulation,
        learning_rate=settings.learning_rate,
        weight_decay=settings.weight_decay,
        adam_epsilon=settings.adam_epsilon,
        warmup_steps=settings.warmup_steps,
        num_train_epochs=settings.epochs,
        max_steps=settings.max_steps,
        max_grad_norm=settings.max_grad_norm,
        seed=settings.seed,
        data_seed=settings.seed,
        logging_steps=settings.logging_steps,
        save_steps=settings.save_steps,
        save_total_limit=settings.save_total_limit,
        report_to="none",
        logging_first_step=True,  # the curve's first point is the untrained model's loss
        disable_tqdm=not progress,
        use_cpu=on_cpu,
        fp16=False,
        dataloader_num_workers=0,
    )
    return arguments_class(**{**options, **extra})


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


#: The (folder, warnings) already warned about in this process.
_WARNED: set[tuple[str, tuple[str, ...]]] = set()


def warn_if_trained_with_warnings(model: Any, *, method: str) -> None:
    """Warn once per process (a ``RuntimeWarning`` the command line prints as ``augkit:
    warning: ...``) when ``model`` is a folder an ``augkit train`` target wrote whose training
    ended with warnings (:attr:`TrainingProgress.warnings`): before one epoch, a loss that did
    not fall. ``method`` names who loads it. Anything but such a folder (a hub id, a folder
    without a record, an unreadable record) says nothing: this is advice, never an error."""
    from augkit.models.spec import resolve_model_source

    try:
        source = resolve_model_source(model)
        folder = Path(source.location).resolve()
        if not source.local:
            return
        record = json.loads((folder / TRAINING_RECORD).read_text(encoding="utf-8"))
        progress = TrainingProgress.from_record(record) if isinstance(record, Mapping) else None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return
    found = tuple(progress.warnings) if progress is not None else ()
    if not found or (str(folder), found) in _WARNED:
        return
    _WARNED.add((str(folder), found))
    warnings.warn(f"augkit: {method}: the model {folder} was trained with warnings ({TRAINING_RECORD}): "
                  f"{'; '.join(found)}; its outputs may be poor: train it longer (augkit train ... --resume)",
                  RuntimeWarning, stacklevel=3)


def write_training_record(output_dir: str | os.PathLike, record: Mapping[str, Any]) -> Path:
    """Write ``record`` (JSON-serialisable) as ``output_dir/augkit-training.json``, atomically,
    and return its path."""
    from augkit.files.atomic import atomic_write

    target = Path(output_dir) / TRAINING_RECORD
    with atomic_write(target) as partial:
        partial.write_text(json.dumps(dict(record), indent=2) + "\n", encoding="utf-8")
    return target
