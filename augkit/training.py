"""The rules every ``augkit train`` target follows, written once: its output folder, checkpoints
and ``--resume``, the training record, the trainer's arguments, a time budget.

- :func:`training_folder` holds the output folder for one run: a second run on the same folder
  is refused while the first holds it (an OS lock, as ``augkit augment`` jobs have), and a
  folder holding checkpoints of an earlier run is refused unless the run resumes it.
- :func:`training_arguments` builds transformers' ``TrainingArguments`` (or a subclass) from a
  target's settings: AdamW with linear decay, checkpoints every ``save_steps``, no reporting
  service, the device chosen as augkit chooses it.
- :func:`add_settings_options` gives each field of a target's settings dataclass its option
  (``learning_rate`` -> ``--learning-rate``, typed as its default).
- :func:`time_budget_callback` stops a run cleanly at the first step boundary past a number of
  minutes, with a checkpoint that ``--resume`` continues from.
- :func:`write_training_record` writes :data:`TRAINING_RECORD` beside the model: what was
  trained, on what, how long and how the loss moved.

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
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from augkit.errors import MissingDependencyError, UsageError

#: The file beside a trained model that says how it was trained (JSON).
TRAINING_RECORD = "augkit-training.json"
#: What the trainer needs beyond augkit's model runtime.
TRAINER_PACKAGES = "torch, transformers, accelerate and datasets"
#: The settings every target's settings object has (the names ``training_arguments`` reads).
TRAINER_SETTINGS = (
    "learning_rate", "weight_decay", "adam_epsilon", "warmup_steps", "batch_size", "epochs",
    "gradient_accumulation", "max_grad_norm", "seed", "max_steps", "save_steps", "save_total_limit", "logging_steps",
)


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
    from augkit.job_lock import OWNER_FILE, lock_output_folder

    folder = Path(output_dir)
    lock = lock_output_folder(folder, runs="training",
                              busy_note=": two runs in one folder would overwrite each other's checkpoints")
    try:
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
        disable_tqdm=not progress,
        use_cpu=on_cpu,
        fp16=False,
        dataloader_num_workers=0,
    )
    return arguments_class(**{**options, **extra})


def logged_losses(log_history: Iterable[Mapping[str, Any]]) -> list[tuple[int, float]]:
    """``(step, training loss)`` for each loss the Trainer logged (``trainer.state.log_history``)."""
    return [(int(entry["step"]), float(entry["loss"])) for entry in log_history if "loss" in entry]


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


def write_training_record(output_dir: str | os.PathLike, record: Mapping[str, Any]) -> Path:
    """Write ``record`` (JSON-serialisable) as ``output_dir/augkit-training.json``, atomically,
    and return its path."""
    from augkit.atomic_files import atomic_write

    target = Path(output_dir) / TRAINING_RECORD
    with atomic_write(target) as partial:
        partial.write_text(json.dumps(dict(record), indent=2) + "\n", encoding="utf-8")
    return target
