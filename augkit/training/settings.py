"""The settings every ``augkit train`` target shares: the trainer's fields and their checks in one
base class (:class:`TrainerSettings`, :class:`TrainerArgumentsSettings` for the transformers Trainer),
their command-line options, and the Trainer's arguments made from them."""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from augkit.errors import UsageError


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


def settings_helps(defaults: Any, described: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """The help of each field of the settings dataclass instance ``defaults``, for
    :func:`add_settings_options`: ``described[field]`` is its text and where its default comes
    from (``("AdamW learning rate", "C-BERT")``, or ``""`` for no source), shown as
    ``TEXT (default: DEFAULT; SOURCE)``; a field whose default is None shows the text alone."""
    helps = {}
    for setting in dataclasses.fields(defaults):
        default = getattr(defaults, setting.name)
        text, source = described[setting.name]
        helps[setting.name] = text + (f" (default: {default}{'; ' + source if source else ''})" if default is not None else "")
    return helps


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
