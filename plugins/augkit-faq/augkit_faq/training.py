"""Fine-tuning a seq2seq paraphraser on paraphrase pairs, the thesis' recipe (Ng 2021, §3.4).

Each pair (sentence1, sentence2) becomes the input "paraphrase: sentence1 </s>" and the target
"sentence2 </s>"; t5-base is trained on them with transformers' ``Seq2SeqTrainer`` and the
hyper-parameters of the thesis' Figure 3.4.2 (:class:`TrainingSettings`). The saved directory
is a plain ``save_pretrained`` model (safetensors) that ``augkit faq --generator DIR`` and any
other seq2seq consumer of augkit loads.

>>> pairs = read_pairs(lines=("q1.txt", "q2.txt")).pairs                      # doctest: +SKIP
>>> train_paraphraser(pairs, "my-paraphraser", model="t5-base")             # doctest: +SKIP
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from augkit.plugin import InputError, TrainerArgumentsSettings, UsageError
from augkit_faq.prompt import paraphrase_prompt, paraphrase_target

DEFAULT_BASE_MODEL = "t5-base"
TRAIN_EXTRA = "pip install 'augkit-faq[models]' (torch, transformers, accelerate)"


@dataclass
class TrainingSettings(TrainerArgumentsSettings):
    """The thesis' fine-tuning hyper-parameters (Figure 3.4.2) as defaults.

    The trainer's settings and their checks are augkit's (:class:`augkit.plugin.TrainerArgumentsSettings`);
    ``max_steps`` > 0 stops early (overrides ``epochs``); ``limit`` is not here but in
    :func:`read_pairs`. ``save_steps`` and ``save_total_limit`` govern checkpoints, which
    ``resume`` continues from.
    """

    learning_rate: float = 3e-4
    batch_size: int = 6
    epochs: float = 2.0
    gradient_accumulation: int = 16
    max_length: int = 512
    eval_batch_size: int = 6
    eval_fraction: float = 0.0

    POSITIVE = (*TrainerArgumentsSettings.POSITIVE, "max_length", "eval_batch_size")

    def check_own(self) -> None:
        if not 0 <= self.eval_fraction < 1:
            raise UsageError(f"eval-fraction must be in [0, 1), got {self.eval_fraction!r}")


@dataclass(frozen=True)
class TrainingPreset:
    """A named recipe for ``augkit train paraphraser --preset NAME``: the base ``model`` and
    the ``settings`` (:class:`TrainingSettings` fields) it changes, with ``source``, where the
    values come from. Options given on the command line override a preset's values; fields it
    does not name keep :class:`TrainingSettings`' defaults.

    The input format stays this module's ("paraphrase: <source> </s>") whatever the preset,
    so that every trained folder works as ``augkit faq --generator``.
    """

    name: str
    model: str
    settings: dict[str, Any]
    source: str

    def resolve(self, given: dict[str, Any]) -> TrainingSettings:
        """The settings of a run: ``given`` (None: not given), else this preset's, else the defaults."""
        chosen = {name: value for name, value in given.items() if value is not None}
        return TrainingSettings(**{**self.settings, **chosen})


#: ParaMod (Liu et al. 2022, appendix A): "T5-base as the base model ... AdamW optimizer,
#: learning rate of 1e-4, and beta1 = 0.9, beta2 = 0.999 [transformers' defaults] ... batch
#: size to 4 and gradient accumulation steps to 4 ... five epochs of training yield the best
#: performance". The authors' run.sh agrees (t5-base, lr 1e-4, 4 x 4, 5 epochs); their
#: warm-up (300) and weight decay (0.01) are built in main.py but never used, so the
#: defaults here (0, 0) are what they trained with. Unlike this module, their ParaMod input
#: is the bare sentence, without "paraphrase: " (paramac-code.md, section 8).
PARAMOD = TrainingPreset(
    name="paramod", model="t5-base",
    settings={"learning_rate": 1e-4, "batch_size": 4, "gradient_accumulation": 4, "epochs": 5.0},
    source="ParaMod, Liu et al. 2022, appendix A",
)
#: The presets of ``--preset``, by name.
PRESETS = {preset.name: preset for preset in (PARAMOD,)}
#: No preset: the thesis' settings (:class:`TrainingSettings`' defaults) and base model.
NO_PRESET = TrainingPreset(name="none", model=DEFAULT_BASE_MODEL, settings={}, source="Ng 2021, Figure 3.4.2")


@dataclass
class PairsRead:
    """Training pairs (a DataFrame with ``source`` and ``target``) and how many were skipped
    for an empty side."""

    pairs: Any
    skipped: int


@dataclass
class TrainingResult:
    """What a run did: where the model is, optimisation steps, logged losses, and ``progress``
    (epochs done, first, best and last loss, and its warnings)."""

    output_dir: Path
    base_model: str
    pairs: int
    steps: int
    losses: list[tuple[int, float]] = field(default_factory=list)
    eval_loss: float | None = None
    resumed_from: str | None = None
    progress: Any = None


def read_pairs(
    *,
    lines: tuple[str | os.PathLike, str | os.PathLike] | None = None,
    table: str | os.PathLike | None = None,
    source_column: str = "source",
    target_column: str = "target",
    limit: int | None = None,
) -> PairsRead:
    """Paraphrase pairs from two parallel line files (line i of the first paraphrases line i
    of the second, as in the Quora pair files) or from a table's two columns."""
    import pandas as pd

    if (lines is None) == (table is None):
        raise UsageError("give the pairs either as two parallel line files or as a table, not both")
    if lines is not None:
        first, second = (_read_lines(Path(path)) for path in lines)
        if len(first) != len(second):
            raise InputError(f"the two pair files must have as many lines: {lines[0]} has {len(first)}, {lines[1]} has {len(second)}")
        frame = pd.DataFrame({"source": first, "target": second})
    else:
        from augkit.plugin import read_table

        data = read_table(table)
        missing = [c for c in (source_column, target_column) if c not in data.columns]
        if missing:
            raise InputError(f"{table} has no column {', '.join(map(repr, missing))}; its columns are: {', '.join(map(str, data.columns))}")
        frame = pd.DataFrame({"source": data[source_column].tolist(), "target": data[target_column].tolist()})
    present = frame["source"].map(_is_text) & frame["target"].map(_is_text)
    frame = frame[present].reset_index(drop=True)
    if limit is not None:
        frame = frame.iloc[:limit]
    if frame.empty:
        raise InputError("no paraphrase pairs to train on (every pair has an empty side, or the input is empty)")
    return PairsRead(frame, int((~present).sum()))


def train_paraphraser(
    pairs: Any,
    output_dir: str | os.PathLike,
    *,
    model: str = DEFAULT_BASE_MODEL,
    settings: TrainingSettings | None = None,
    resume: bool = False,
    device: str = "cpu",
    progress: bool = True,
    preset: str | None = None,
) -> TrainingResult:
    """Fine-tune ``model`` on ``pairs`` (DataFrame with ``source`` and ``target``) and save the
    result to ``output_dir``. ``preset`` names the :data:`PRESETS` entry the settings came
    from, for the training record.

    ``resume=True`` continues from the newest checkpoint in ``output_dir`` (same pairs and
    settings expected); without it, a folder that already holds checkpoints is refused
    rather than mixed with a new run, and so is a folder another run is training in.
    """
    from augkit.plugin import (
        ending_log_callback,
        import_trainer,
        load_for_training,
        logged_losses,
        trainer_progress,
        training_arguments,
        training_folder,
    )

    settings = settings or TrainingSettings()
    settings.check()
    transformers = import_trainer("training a paraphraser", TRAIN_EXTRA)
    output = Path(output_dir)
    with training_folder(output, resume=resume) as resume_from:
        network, tokenizer = load_for_training(model, "seq2seq", device=device)
        train, evaluation = _datasets(pairs, tokenizer, settings)
        arguments = training_arguments(
            transformers.Seq2SeqTrainingArguments, output, settings, device=device, progress=progress,
            per_device_eval_batch_size=settings.eval_batch_size, eval_strategy="epoch" if evaluation is not None else "no",
        )
        trainer = transformers.Seq2SeqTrainer(
            model=network, args=arguments, train_dataset=train, eval_dataset=evaluation,
            data_collator=transformers.DataCollatorForSeq2Seq(tokenizer, model=network, label_pad_token_id=-100),
            processing_class=tokenizer, callbacks=[ending_log_callback()],
        )
        trainer.train(resume_from_checkpoint=resume_from)
        trainer.save_model(str(output))
        tokenizer.save_pretrained(str(output))
        result = TrainingResult(
            output_dir=output, base_model=str(model), pairs=len(pairs), steps=trainer.state.global_step,
            losses=logged_losses(trainer.state.log_history),
            eval_loss=next((float(e["eval_loss"]) for e in reversed(trainer.state.log_history) if "eval_loss" in e), None),
            resumed_from=Path(resume_from).name if resume_from else None,
            progress=trainer_progress(trainer.state, settings=settings),
        )
        _write_record(output, result, settings, preset)
    return result


def _datasets(pairs: Any, tokenizer: Any, settings: TrainingSettings) -> tuple[Any, Any]:
    """Tokenised training (and held-out) datasets in the thesis' prompt format."""
    import datasets

    def encode(batch: dict) -> dict:
        inputs = tokenizer([paraphrase_prompt(s) for s in batch["source"]], max_length=settings.max_length, truncation=True)
        labels = tokenizer(text_target=[paraphrase_target(t) for t in batch["target"]], max_length=settings.max_length, truncation=True)
        inputs["labels"] = labels["input_ids"]
        return inputs

    table = datasets.Dataset.from_dict({"source": pairs["source"].tolist(), "target": pairs["target"].tolist()})
    held_out = None
    if settings.eval_fraction > 0:
        split = table.train_test_split(test_size=settings.eval_fraction, seed=settings.seed)
        table, held_out = split["train"], split["test"]
    columns = ["source", "target"]
    train = table.map(encode, batched=True, remove_columns=columns, desc="tokenising")
    evaluation = held_out.map(encode, batched=True, remove_columns=columns, desc="tokenising") if held_out is not None else None
    return train, evaluation


def _write_record(output: Path, result: TrainingResult, settings: TrainingSettings, preset: str | None) -> None:
    from augkit.plugin import write_training_record

    write_training_record(output, {
        "base_model": result.base_model, "preset": preset, "pairs": result.pairs, "steps": result.steps,
        "losses": result.losses, "eval_loss": result.eval_loss, "resumed_from": result.resumed_from,
        "progress": result.progress.as_record(), "settings": asdict(settings), "prompt": paraphrase_prompt("<sentence>"),
    })


def _read_lines(path: Path) -> list[str]:
    if not path.is_file():
        raise InputError(f"pair file {str(path)!r} does not exist")
    return path.read_text(encoding="utf-8").splitlines()


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())
