"""Training a label-conditional masked LM (C-BERT, Wu et al. 2019) for the ``contextual`` method's
``condition="label"``: a masked LM fine-tuned on labelled rows written as
``conditioned(label, text, sep_token)`` (:mod:`augkit_contextual.conditioning`), with the
masked-LM objective on the tokens of the text part only.

Each row is one example: its label and the model's separator before its text, tokenized as one
sequence (``<s> card_arrival </s> Where is my card?</s>`` for RoBERTa). Each time a batch is
drawn, BERT's masking (Devlin et al. 2019, section 3.1: 15% of the tokens, of which 80% become
the mask token, 10% a random token, 10% stay) picks among the text tokens only, never the label,
the separator or the special tokens (:class:`TextOnlyMasking`): the model learns to read the
label and to predict the text's words from it. The model starts from any masked LM (a folder
or hub id, :data:`DEFAULT_BASE_MODEL` by default) loaded as augkit loads every model
(safetensors, no remote code); its architecture does not change.

Optimisation is transformers' Trainer: AdamW, linear decay, checkpoints every ``save_steps``;
the output folder follows augkit's training rules (one run at a time, ``resume`` continues from
the newest checkpoint, a folder with checkpoints is refused without it) and ends up holding a
plain ``save_pretrained`` masked LM and tokenizer (safetensors) that ``load_masked_lm`` loads,
with ``augkit-training.json`` beside them naming the labels
(:data:`~augkit_contextual.conditioning.LABEL_PREFIX_RECORD_KEY`) and every setting.
``max_minutes`` ends a run cleanly at a step boundary.

Rows whose label is missing (:func:`augkit.plugin.is_missing_label`: None, NaN, an empty or
blank cell) are left out and counted, as the engine passes them through unaugmented: "missing"
is not a class to condition on. Rows whose text is missing or blank are left out and counted
too; a text that is not a string is an error naming its row, as in ``augkit augment``.

>>> result = train_contextual(texts, labels, "contextual-banking",        # doctest: +SKIP
...                           settings=ContextualSettings(max_minutes=30))
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from augkit.plugin import (
    InputError,
    TrainerArgumentsSettings,
    UsageError,
    is_missing_label,
)
from augkit_contextual.conditioning import (
    LABEL_PREFIX_RECORD_KEY,
    TRAINING_TARGET,
    conditioned,
)

#: The method's default model (docs/methods/contextual.md says why): the base a label-conditional
#: model starts from unless ``-m`` names another masked LM.
DEFAULT_BASE_MODEL = "distilroberta-base"
TRAIN_EXTRA = "pip install augkit-contextual (torch, transformers, accelerate, datasets)"
#: The label transformers' masked-LM loss ignores (``CrossEntropyLoss(ignore_index=-100)``).
IGNORED_LABEL = -100
#: Of the tokens chosen for prediction, the share replaced by the mask token and the share
#: replaced by a random token (the rest stay as they are): BERT's 80/10/10 (Devlin et al. 2019,
#: section 3.1), which C-BERT's cbert_utils.py keeps; training also on unmasked tokens keeps
#: the model's predictions for visible words sensible.
MASK_TOKEN_SHARE = 0.8
RANDOM_TOKEN_SHARE = 0.1


@dataclass
class ContextualSettings(TrainerArgumentsSettings):
    """Hyper-parameters of ``augkit train contextual``, with C-BERT's as defaults (its released
    fine-tuning script, 1024er/cbert_aug ``cbert_finetune.py`` and ``cbert_utils.py``);
    the trainer's settings and their checks are augkit's
    (:class:`augkit.plugin.TrainerArgumentsSettings`).

    ``learning_rate`` 5e-5, ``batch_size`` 32, ``epochs`` 10, ``weight_decay`` 0.01 (not on
    biases and LayerNorm weights) and seed 42 are the script's defaults (it saves a model after
    every epoch: the epochs are for the user to tune). ``max_length`` 64 is its ``max_seq_length``, in
    tokens with the label prefix and special tokens; longer rows are cut at the end of their
    text (counted). ``mlm_probability`` 0.15 is BERT's share of tokens predicted (C-BERT's
    ``masked_lm_probs``), drawn among the text's tokens only, at least one per row (C-BERT's
    ``max(1, ...)``: a short query would often get none). The script declares a warm-up it
    never applies: none here (``warmup_steps`` 0). ``max_minutes`` stops the run at the first
    step past that many minutes (None: no limit).
    """

    learning_rate: float = 5e-5
    weight_decay: float = 0.01
    batch_size: int = 32
    epochs: float = 10.0
    logging_steps: int = 50
    max_length: int = 64
    mlm_probability: float = 0.15
    max_minutes: float | None = None

    POSITIVE = (*TrainerArgumentsSettings.POSITIVE, "max_length", "mlm_probability", "max_minutes")

    def check_own(self) -> None:
        if self.mlm_probability > 1:
            raise UsageError(f"mlm-probability must be at most 1, got {self.mlm_probability!r}")
        if self.max_length < 6:
            raise UsageError(f"max-length must be at least 6 (special tokens, a label, the separator and a word), "
                             f"got {self.max_length!r}")


@dataclass
class ConditionedRows:
    """The training examples of labelled rows and what became of the rows: ``examples`` (token
    ids, attention mask and ``text_mask``, 1 on the tokens masking may pick), the sorted
    ``labels`` trained on and the examples of each, and the rows left out."""

    examples: list[dict[str, list[int]]]
    labels: list[str]
    per_label: dict[str, int]
    missing_label: int = 0
    blank_text: int = 0
    truncated: int = 0
    no_text_token: int = 0


@dataclass
class ContextualTrainingResult:
    """What a run did: where the model is, the labels it was trained on, how far it got and how
    the loss moved (``progress``: epochs, first, best and last loss, and its warnings)."""

    output_dir: Path
    base_model: str
    labels: list[str]
    examples: int
    steps: int
    losses: list[tuple[int, float]] = field(default_factory=list)
    resumed_from: str | None = None
    stopped_by_time_budget: bool = False
    seconds: float = 0.0
    rows: ConditionedRows | None = None
    progress: Any = None


def read_labelled_rows(path: str | os.PathLike, *, text_column: str = "text", label_column: str = "label",
                       encoding: str = "utf-8") -> tuple[list[Any], list[Any]]:
    """The texts and labels of the table ``path`` (.csv, .tsv, .jsonl, .parquet, .xlsx, read as
    ``augkit augment`` reads it), in file order; a column it lacks is an error listing its columns."""
    from augkit.plugin import read_table, unknown_name_message

    frame = read_table(path, encoding=encoding)
    columns = [str(c) for c in frame.columns]
    for role, name in (("label column", label_column), ("text column", text_column)):
        if name not in frame.columns:
            raise InputError(f"{path}: " + unknown_name_message(role, name, columns, listing="its columns are")
                             + f" (name it with --{role.replace(' ', '-')})")
    return frame[text_column].tolist(), frame[label_column].tolist()


def conditioned_rows(texts: Sequence[Any], labels: Sequence[Any], tokenizer: Any, *, max_length: int = 64) -> ConditionedRows:
    """The examples of the rows ``(texts[i], labels[i])``: ``conditioned(label, text,
    tokenizer.sep_token)`` tokenized, cut to ``max_length`` tokens (the last, a closing special
    token, kept), with ``text_mask`` 1 on each token of the text part. Rows without a label or
    text are left out and counted; fewer than two labels left is an error (a model conditioned
    on one label is conditioned on nothing)."""
    if len(texts) != len(labels):
        raise InputError(f"{len(texts)} texts but {len(labels)} labels")
    _check_tokenizer(tokenizer)
    examples, kept_labels = [], []
    missing_label = blank_text = truncated = no_text_token = 0
    for row, (text, label) in enumerate(zip(texts, labels, strict=True)):
        if not isinstance(text, str) or not text.strip():
            if not is_missing_label(text):  # None, NaN and blank strings are missing texts; anything else is bad data
                raise InputError(f"row {row}: the text must be a string, got {type(text).__name__} {text!r}")
            blank_text += 1
            continue
        if is_missing_label(label):
            missing_label += 1
            continue
        string, offset = conditioned(label, text, tokenizer.sep_token)
        encoded = tokenizer(string, return_offsets_mapping=True, return_special_tokens_mask=True, verbose=False)
        ids, special, spans = encoded["input_ids"], encoded["special_tokens_mask"], encoded["offset_mapping"]
        # A text token ends after the offset; tokenizers that keep a word's leading space in its
        # span (RoBERTa's without trimmed offsets) start it one character before.
        text_mask = [int(not is_special and end > offset) for is_special, (_, end) in zip(special, spans, strict=True)]
        if len(ids) > max_length:
            truncated += 1
            ids, text_mask = ids[: max_length - 1] + ids[-1:], text_mask[: max_length - 1] + [0]
        if not any(text_mask):
            no_text_token += 1  # a label too long for max_length leaves no text to learn from
            continue
        examples.append({"input_ids": ids, "attention_mask": [1] * len(ids), "text_mask": text_mask})
        kept_labels.append(str(label))
    per_label = dict(sorted(Counter(kept_labels).items()))
    if len(per_label) < 2:
        found = f"1 ({next(iter(per_label))!r})" if per_label else "none"
        raise InputError(f"conditioning on the label needs rows of at least 2 labels, found {found}"
                         + (f" ({missing_label} rows without a label left out)" if missing_label else ""))
    return ConditionedRows(examples, list(per_label), per_label, missing_label, blank_text, truncated, no_text_token)


def _check_tokenizer(tokenizer: Any) -> None:
    if not getattr(tokenizer, "is_fast", False):
        raise UsageError(f"{type(tokenizer).__name__}: training needs a fast tokenizer (offsets tell the label from the text)")
    for role in ("sep_token", "mask_token"):
        if getattr(tokenizer, role, None) is None:
            raise UsageError(f"{type(tokenizer).__name__} has no {role.replace('_', ' ')}: conditioning needs a masked LM "
                             "with a separator and a mask token (BERT, RoBERTa and the like)")


class TextOnlyMasking:
    """A data collator: pads a batch of :func:`conditioned_rows` examples and applies BERT's
    masking to the tokens their ``text_mask`` marks, never to the label prefix or special
    tokens. Each marked token is chosen with probability ``mlm_probability``, and a row none
    of whose tokens was chosen gets one chosen at random (C-BERT: at least one per row); a
    chosen token becomes the mask token (:data:`MASK_TOKEN_SHARE`), a random token
    (:data:`RANDOM_TOKEN_SHARE`) or stays, and is the only position whose ``labels`` are not
    :data:`IGNORED_LABEL`.

    Draws come from ``generator``, or from torch's default generator when None (the Trainer's:
    seeded by the run's seed and restored from a checkpoint on ``--resume``).
    """

    def __init__(self, tokenizer: Any, mlm_probability: float = 0.15, *, generator: Any = None):
        self.tokenizer = tokenizer
        self.mlm_probability = mlm_probability
        self.generator = generator

    def __call__(self, features: Sequence[dict[str, list[int]]]) -> dict[str, Any]:
        import torch

        width = max(len(f["input_ids"]) for f in features)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0

        def padded(key: str, filler: int) -> Any:
            return torch.tensor([list(f[key]) + [filler] * (width - len(f[key])) for f in features], dtype=torch.long)

        input_ids, attention_mask, maskable = padded("input_ids", pad), padded("attention_mask", 0), padded("text_mask", 0).bool()
        draw = {"generator": self.generator}
        chosen = (torch.rand(maskable.shape, **draw) < self.mlm_probability) & maskable
        unchosen = ~chosen.any(dim=1) & maskable.any(dim=1)
        if unchosen.any():
            scores = torch.rand(maskable.shape, **draw).masked_fill(~maskable, -1.0)
            rows = unchosen.nonzero(as_tuple=True)[0]
            chosen[rows, scores[rows].argmax(dim=1)] = True
        labels = torch.where(chosen, input_ids, torch.full_like(input_ids, IGNORED_LABEL))
        fate = torch.rand(maskable.shape, **draw)
        to_mask = chosen & (fate < MASK_TOKEN_SHARE)
        to_random = chosen & (fate >= MASK_TOKEN_SHARE) & (fate < MASK_TOKEN_SHARE + RANDOM_TOKEN_SHARE)
        masked = input_ids.clone()
        masked[to_mask] = self.tokenizer.mask_token_id
        masked[to_random] = torch.randint(len(self.tokenizer), (int(to_random.sum()),), **draw)
        return {"input_ids": masked, "attention_mask": attention_mask, "labels": labels}


def train_contextual(
    texts: Sequence[Any],
    labels: Sequence[Any],
    output_dir: str | os.PathLike,
    *,
    model: str = DEFAULT_BASE_MODEL,
    settings: ContextualSettings | None = None,
    resume: bool = False,
    device: str = "cpu",
    progress: bool = True,
    source: dict[str, Any] | None = None,
) -> ContextualTrainingResult:
    """Fine-tune the masked LM ``model`` (folder or hub id) on the rows ``(texts[i],
    labels[i])`` conditioned on their labels, and save it to ``output_dir``.

    ``resume=True`` continues from the newest checkpoint in ``output_dir`` (same rows and
    settings expected); without it a folder holding checkpoints is refused, as is a folder
    another run is training in. ``source`` (the file and its columns, for the command line)
    goes into the training record as it is.
    """
    from augkit.plugin import (
        ending_log_callback,
        import_trainer,
        load_for_training,
        logged_losses,
        time_budget_callback,
        trainer_progress,
        training_arguments,
        training_folder,
    )

    started = time.monotonic()
    settings = settings or ContextualSettings()
    settings.check()
    transformers = import_trainer("training a label-conditional masked LM", TRAIN_EXTRA)
    output = Path(output_dir)
    with training_folder(output, resume=resume) as resume_from:
        network, tokenizer = load_for_training(resume_from or model, "masked", device=device)
        rows = conditioned_rows(texts, labels, tokenizer, max_length=min(settings.max_length, _model_limit(network, tokenizer)))
        budget = time_budget_callback(settings.max_minutes, started=started) if settings.max_minutes else None
        trainer = transformers.Trainer(
            model=network,
            # the examples' text_mask is the collator's, not the model's: keep it in the batch
            args=training_arguments(transformers.TrainingArguments, output, settings, device=device, progress=progress,
                                    remove_unused_columns=False),
            train_dataset=rows.examples,
            data_collator=TextOnlyMasking(tokenizer, settings.mlm_probability),
            processing_class=tokenizer,
            callbacks=[*([budget] if budget else []), ending_log_callback()],
        )
        trainer.train(resume_from_checkpoint=resume_from)
        trainer.save_model(str(output))
        tokenizer.save_pretrained(str(output))
        result = ContextualTrainingResult(
            output_dir=output, base_model=str(model), labels=rows.labels, examples=len(rows.examples),
            steps=trainer.state.global_step, losses=logged_losses(trainer.state.log_history),
            resumed_from=Path(resume_from).name if resume_from else None, stopped_by_time_budget=bool(budget and budget.stopped),
            seconds=round(time.monotonic() - started, 1), rows=rows,
            progress=trainer_progress(trainer.state, settings=settings, budget=budget),
        )
        _write_record(output, result, settings, tokenizer, source)
    return result


def _model_limit(network: Any, tokenizer: Any) -> int:
    """The longest input the model takes: its tokenizer's ``model_max_length`` when it says
    one (a tokenizer without one says a huge number), else its position embeddings'."""
    stated = getattr(tokenizer, "model_max_length", None)
    if isinstance(stated, int) and stated < 1_000_000:
        return stated
    return int(getattr(network.config, "max_position_embeddings", 512))


def _write_record(output: Path, result: ContextualTrainingResult, settings: ContextualSettings, tokenizer: Any,
                  source: dict[str, Any] | None) -> None:
    from augkit.plugin import write_training_record

    rows = result.rows
    write_training_record(output, {
        "target": TRAINING_TARGET,
        "base_model": result.base_model,
        LABEL_PREFIX_RECORD_KEY: result.labels,
        "conditioning": "each row as '{label} {sep_token} {text}'; masked-LM loss on tokens of the text only",
        "sep_token": tokenizer.sep_token,
        "source": source,
        "examples": result.examples,
        "examples_per_label": rows.per_label,
        "skipped_rows": {"missing_label": rows.missing_label, "blank_text": rows.blank_text,
                         "no_text_within_max_length": rows.no_text_token},
        "truncated_rows": rows.truncated,
        "masking": {"mlm_probability": settings.mlm_probability, "mask_token": MASK_TOKEN_SHARE,
                    "random_token": RANDOM_TOKEN_SHARE, "kept": round(1 - MASK_TOKEN_SHARE - RANDOM_TOKEN_SHARE, 2),
                    "at_least_one_per_row": True},
        "steps": result.steps,
        "losses": result.losses,
        "resumed_from": result.resumed_from,
        "stopped_by_time_budget": result.stopped_by_time_budget,
        "progress": result.progress.as_record(),
        "seconds": result.seconds,
        "settings": asdict(settings),
    })
