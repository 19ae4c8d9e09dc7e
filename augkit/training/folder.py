"""A training run's output folder and record: one run holds the folder at a time, checkpoints and
``--resume``, the training record written beside the model, and the trainer imported when needed."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from augkit.errors import MissingDependencyError, UsageError
from augkit.training.progress import TrainingProgress

#: The file beside a trained model that says how it was trained (JSON).
TRAINING_RECORD = "augkit-training.json"
#: What the trainer needs beyond augkit's model runtime.
TRAINER_PACKAGES = "torch, transformers, accelerate and datasets"


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
