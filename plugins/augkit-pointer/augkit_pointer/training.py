"""Training POINTER's insertion model (Zhang et al. 2020): a BERT masked language model with a
``[NOI]`` token, fine-tuned on the progressive stages of a corpus's sentences (:mod:`.stages`).

Each stage is one example: the input ``[CLS] t1 ... tn [SEP]`` and, at positions ``0 ... n``, the
id of the token to insert after that position or of ``[NOI]``; the label at ``[SEP]`` and at
padding is -100, which the masked LM's cross-entropy ignores. The model starts from a BERT
masked LM (a folder or hub id, ``bert-base-uncased`` by default, loaded as augkit loads every
model: safetensors, no remote code) or, with ``new_model="mini"`` and the like, from a randomly
initialised BERT of one of Google's miniature shapes (:data:`NEW_MODEL_SHAPES`) with a WordPiece
vocabulary trained on the corpus. ``[NOI]`` is added to the vocabulary when the tokenizer lacks it
(the embeddings grow by one row).

Optimisation is transformers' Trainer: AdamW, linear decay, checkpoints every ``save_steps``;
the output folder follows augkit's training rules (one run at a time, ``resume`` continues from
the newest checkpoint, a folder with checkpoints is refused without it) and ends up holding a
plain ``save_pretrained`` model and tokenizer (safetensors) whose vocabulary has ``[NOI]``, with
``augkit-training.json`` beside them. ``max_minutes`` ends a run cleanly at a step boundary.

>>> result = train_pointer(sentences, "pointer-banking", new_model="mini",      # doctest: +SKIP
...                        settings=PointerSettings(max_minutes=45))
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from augkit.plugin import (
    InvalidParameterError,
    TrainerArgumentsSettings,
    UsageError,
    unknown_name_message,
)
from augkit_pointer.importance import ImportanceWeights, WordImportance, WordScorer
from augkit_pointer.stages import (
    CONTINUATION,
    DEFAULT_MIN_WORDS,
    NOI_TOKEN,
    InsertionExample,
    progressive_stages,
    words_of,
)

#: POINTER fine-tunes BERT (its released models start from ``bert-large-uncased``; base is the
#: size a CPU can fine-tune).
DEFAULT_BASE_MODEL = "bert-base-uncased"
TRAIN_EXTRA = "pip install augkit-pointer (torch, transformers, accelerate, datasets)"
#: The label transformers' masked-LM loss ignores (``CrossEntropyLoss(ignore_index=-100)``).
IGNORED_LABEL = -100


@dataclass(frozen=True)
class BertShape:
    """The size of a BERT: layers, hidden width and attention heads; the feed-forward width is
    four times the hidden one, as in every BERT."""

    layers: int
    hidden: int
    heads: int

    @property
    def intermediate(self) -> int:
        return 4 * self.hidden


#: Google's BERT miniatures (google-research/bert README, "BERT-Tiny ... BERT-Base"; Turc et
#: al. 2019, "Well-Read Students Learn Better"): L layers, H hidden, H/64 heads.
NEW_MODEL_SHAPES = {
    "tiny": BertShape(layers=2, hidden=128, heads=2),
    "mini": BertShape(layers=4, hidden=256, heads=4),
    "small": BertShape(layers=4, hidden=512, heads=8),
    "medium": BertShape(layers=8, hidden=512, heads=8),
    "base": BertShape(layers=12, hidden=768, heads=12),
}
#: Positions of a new model: BERT's 512, as all the miniatures have.
NEW_MODEL_POSITIONS = 512
#: Learning rates when none is given: POINTER's fine-tuning command (README, "Fine-tuning":
#: ``--learning_rate 1e-5``) for a pretrained model; BERT's pre-training rate (Devlin et al.
#: 2019, appendix A.2: 1e-4) for a model trained from scratch, which 1e-5 barely moves.
FINE_TUNING_LEARNING_RATE = 1e-5
FROM_SCRATCH_LEARNING_RATE = 1e-4


@dataclass
class PointerSettings(TrainerArgumentsSettings):
    """Hyper-parameters of ``augkit train pointer``, with POINTER's values as defaults where
    they suit a CPU (POINTER's training.py unless said otherwise); the trainer's settings and
    their checks are augkit's (:class:`augkit.plugin.TrainerArgumentsSettings`).

    ``learning_rate`` None: :data:`FINE_TUNING_LEARNING_RATE` from a pretrained model,
    :data:`FROM_SCRATCH_LEARNING_RATE` for a new one. ``batch_size`` 32 and ``epochs`` 3 are
    training.py's defaults (its fine-tuning command uses 64 per GPU on 16 GPUs for 40 epochs);
    ``weight_decay`` 0.01 on all but biases and LayerNorm weights, ``adam_epsilon`` 1e-8, no
    warm-up and seed 42 are training.py's too. ``max_grad_norm`` 1.0 is BERT's own gradient
    clipping (POINTER clips only under fp16). POINTER saves every 100,000 steps; a CPU run
    wants checkpoints far more often (``save_steps``). ``max_length`` caps the input in
    wordpieces with ``[CLS]`` and ``[SEP]`` (longer sentences are skipped; POINTER's is 256).
    ``max_minutes`` stops the run at the first step past that many minutes (None: no limit).
    ``min_words`` ends a sentence's stages (:data:`~augkit_pointer.stages.DEFAULT_MIN_WORDS`);
    ``vocab_size`` bounds the WordPiece vocabulary of a new model (30,522, bert-base-uncased's
    and the miniatures'; a small corpus gives fewer: one entry per distinct word).
    """

    learning_rate: float | None = None
    weight_decay: float = 0.01
    batch_size: int = 32
    epochs: float = 3.0
    logging_steps: int = 50
    max_length: int = 128
    max_minutes: float | None = None
    min_words: int = DEFAULT_MIN_WORDS
    vocab_size: int = 30522

    POSITIVE = (*TrainerArgumentsSettings.POSITIVE, "max_length", "max_minutes", "min_words", "vocab_size")

    def check_own(self) -> None:
        if self.max_length < 3:
            raise UsageError(f"max-length must be at least 3 ([CLS], a token, [SEP]), got {self.max_length!r}")

    def resolved(self, *, from_scratch: bool) -> PointerSettings:
        """These settings with the learning rate chosen when none was given."""
        if self.learning_rate is not None:
            return self
        return replace(self, learning_rate=FROM_SCRATCH_LEARNING_RATE if from_scratch else FINE_TUNING_LEARNING_RATE)


@dataclass
class StagedCorpus:
    """The training examples of a corpus and what became of its sentences."""

    examples: list[InsertionExample]
    sentences: int
    too_long: int = 0
    empty: int = 0

    @property
    def stages(self) -> int:
        """Examples beyond each sentence's own all-``[NOI]`` one."""
        return len(self.examples) - self.sentences


@dataclass
class PointerTrainingResult:
    """What a run did: where the model is, what it was trained on, how far it got and how the
    loss moved (``progress``: epochs, first, best and last loss, and its warnings)."""

    output_dir: Path
    base_model: str | None
    new_model: str | None
    sentences: int
    examples: int
    steps: int
    losses: list[tuple[int, float]] = field(default_factory=list)
    resumed_from: str | None = None
    stopped_by_time_budget: bool = False
    seconds: float = 0.0
    skipped_too_long: int = 0
    progress: Any = None


def new_model_shape(name: str) -> BertShape:
    """The :data:`NEW_MODEL_SHAPES` entry called ``name``, or an error listing them."""
    if name not in NEW_MODEL_SHAPES:
        raise InvalidParameterError(unknown_name_message("model shape", name, list(NEW_MODEL_SHAPES), listing="valid shapes"))
    return NEW_MODEL_SHAPES[name]


def stage_corpus(
    sentences: Sequence[str],
    tokenizer: Any,
    *,
    min_words: int = DEFAULT_MIN_WORDS,
    max_length: int = 128,
    scorer: WordScorer | None = None,
    weights: ImportanceWeights = ImportanceWeights(),
    progress: bool = False,
) -> tuple[StagedCorpus, WordImportance]:
    """Every sentence's progressive stages (:func:`~augkit_pointer.stages.progressive_stages`)
    with ``tokenizer``'s wordpieces, word importance from the whole corpus (and ``scorer``).
    Sentences longer than ``max_length`` wordpieces with ``[CLS]`` and ``[SEP]``, and sentences
    with no wordpiece, are counted and left out."""
    from augkit.plugin import progress_bar

    tokenized, too_long, empty = [], 0, 0
    for sentence in sentences:
        tokens = tokenizer.tokenize(sentence)
        if not tokens:
            empty += 1
        elif len(tokens) + 2 > max_length:
            too_long += 1
        else:
            tokenized.append(tokens)
    words = [words_of(tokens) for tokens in tokenized]
    importance = WordImportance(words, weights=weights, scorer=scorer)
    unremovable = {*tokenizer.all_special_tokens, NOI_TOKEN}
    examples: list[InsertionExample] = []
    chunk = 256  # sentences scored at a time: a language-model scorer gets batches
    with progress_bar(len(tokenized), shown=progress, description="pointer stages", unit="sentence") as bar:
        for start in range(0, len(tokenized), chunk):
            scores = importance(words[start : start + chunk])
            for tokens, score in zip(tokenized[start : start + chunk], scores):
                examples.extend(progressive_stages(tokens, score, min_words=min_words, unremovable=unremovable))
            bar.update(len(scores))
    return StagedCorpus(examples, len(tokenized), too_long, empty), importance


def example_features(example: InsertionExample, tokenizer: Any) -> dict[str, list[int]]:
    """The model's inputs and labels for one example: ``[CLS] tokens [SEP]``, label ids at
    positions ``0 ... n`` and :data:`IGNORED_LABEL` at ``[SEP]``."""
    input_ids = [tokenizer.cls_token_id, *tokenizer.convert_tokens_to_ids(list(example.tokens)), tokenizer.sep_token_id]
    labels = [*tokenizer.convert_tokens_to_ids(list(example.labels)), IGNORED_LABEL]
    return {"input_ids": input_ids, "token_type_ids": [0] * len(input_ids), "attention_mask": [1] * len(input_ids), "labels": labels}


def add_noi_token(tokenizer: Any, model: Any) -> int:
    """Add :data:`NOI_TOKEN` to ``tokenizer`` as a special token (never split, dropped when
    decoding without special tokens) and grow ``model``'s embeddings to match, when the
    vocabulary lacks it; return its id."""
    _add_noi_to_vocabulary(tokenizer)
    if model.get_input_embeddings().num_embeddings < len(tokenizer):
        model.resize_token_embeddings(len(tokenizer))
    return tokenizer.convert_tokens_to_ids(NOI_TOKEN)


def _add_noi_to_vocabulary(tokenizer: Any) -> None:
    if NOI_TOKEN not in tokenizer.get_vocab():
        tokenizer.add_tokens([NOI_TOKEN], special_tokens=True)


def train_pointer(
    sentences: Sequence[str],
    output_dir: str | os.PathLike,
    *,
    model: str = DEFAULT_BASE_MODEL,
    new_model: str | None = None,
    settings: PointerSettings | None = None,
    resume: bool = False,
    device: str = "cpu",
    progress: bool = True,
    scorer: WordScorer | None = None,
) -> PointerTrainingResult:
    """Train the insertion model on ``sentences`` and save it to ``output_dir``.

    ``model`` is the BERT masked LM to start from (folder or hub id); ``new_model`` (a
    :data:`NEW_MODEL_SHAPES` name) starts instead from a random BERT of that shape with a
    WordPiece vocabulary trained on ``sentences``. ``scorer`` adds a language-model term to the
    word importance that orders the stages. ``resume=True`` continues from the newest
    checkpoint in ``output_dir`` (same sentences and settings expected); without it a folder
    holding checkpoints is refused, as is a folder another run is training in.
    """
    from augkit.plugin import (
        ending_log_callback,
        import_trainer,
        logged_losses,
        time_budget_callback,
        trainer_progress,
        training_arguments,
        training_folder,
    )

    started = time.monotonic()
    settings = settings or PointerSettings()
    settings.check()
    shape = new_model_shape(new_model) if new_model is not None else None
    settings = settings.resolved(from_scratch=shape is not None)
    sentences = [s for s in sentences if isinstance(s, str) and s.strip()]
    if not sentences:
        raise UsageError("no sentences to train on")
    transformers = import_trainer("training POINTER's insertion model", TRAIN_EXTRA)
    output = Path(output_dir)
    with training_folder(output, resume=resume) as resume_from:
        network, tokenizer = _starting_model(model, shape, sentences, settings, resume_from, device)
        noi_id = add_noi_token(tokenizer, network)
        staged, importance = stage_corpus(sentences, tokenizer, min_words=settings.min_words, max_length=settings.max_length,
                                          scorer=scorer, progress=progress)
        if not staged.examples:
            raise UsageError(f"no sentence fits in --max-length {settings.max_length} wordpieces")
        budget = time_budget_callback(settings.max_minutes, started=started) if settings.max_minutes else None
        trainer = transformers.Trainer(
            model=network,
            args=training_arguments(transformers.TrainingArguments, output, settings, device=device, progress=progress),
            train_dataset=[example_features(example, tokenizer) for example in staged.examples],
            data_collator=transformers.DataCollatorForTokenClassification(tokenizer, label_pad_token_id=IGNORED_LABEL),
            processing_class=tokenizer,
            callbacks=[*([budget] if budget else []), ending_log_callback()],
        )
        trainer.train(resume_from_checkpoint=resume_from)
        trainer.save_model(str(output))
        tokenizer.save_pretrained(str(output))
        result = PointerTrainingResult(
            output_dir=output, base_model=None if shape else str(model), new_model=new_model,
            sentences=staged.sentences, examples=len(staged.examples), steps=trainer.state.global_step,
            losses=logged_losses(trainer.state.log_history), resumed_from=Path(resume_from).name if resume_from else None,
            stopped_by_time_budget=bool(budget and budget.stopped), seconds=round(time.monotonic() - started, 1),
            skipped_too_long=staged.too_long, progress=trainer_progress(trainer.state, settings=settings, budget=budget),
        )
        _write_record(output, result, settings, staged, importance, shape, noi_id)
    return result


def _starting_model(model: str, shape: BertShape | None, sentences: Sequence[str], settings: PointerSettings,
                    resume_from: str | None, device: str) -> tuple[Any, Any]:
    """The network and tokenizer to train: the checkpoint's when resuming (its weights and
    vocabulary are the run's), else a new model of ``shape``, else the pretrained ``model``."""
    from augkit.plugin import load_for_training

    if resume_from is not None:
        network, tokenizer = load_for_training(resume_from, "masked", device=device)
    elif shape is not None:
        network, tokenizer = _new_bert(shape, sentences, settings)
    else:
        network, tokenizer = load_for_training(model, "masked", device=device)
    _check_wordpiece(tokenizer, resume_from or (f"new {shape}" if shape else model))
    return network, tokenizer


def _new_bert(shape: BertShape, sentences: Sequence[str], settings: PointerSettings) -> tuple[Any, Any]:
    """A randomly initialised ``BertForMaskedLM`` of ``shape`` (weights drawn from the run's
    seed without touching the global random state) and a WordPiece tokenizer trained on
    ``sentences``."""
    import transformers

    from augkit.plugin import bert_wordpiece_tokenizer, seeded_torch

    tokenizer = bert_wordpiece_tokenizer(sentences, settings.vocab_size, max_length=NEW_MODEL_POSITIONS)
    _add_noi_to_vocabulary(tokenizer)  # before the embeddings are made: no resizing of a random model
    config = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=shape.hidden, num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads, intermediate_size=shape.intermediate,
        max_position_embeddings=NEW_MODEL_POSITIONS, pad_token_id=tokenizer.pad_token_id,
    )
    with seeded_torch(settings.seed, "cpu"):  # the new model's initial weights
        network = transformers.BertForMaskedLM(config)
    return network.train(), tokenizer


def _check_wordpiece(tokenizer: Any, name: str) -> None:
    """Stages group ``##`` pieces into words: refuse a tokenizer that marks words otherwise."""
    backend = getattr(getattr(tokenizer, "backend_tokenizer", None), "model", None)
    kind = type(backend).__name__ if backend is not None else type(tokenizer).__name__
    if kind != "WordPiece" or getattr(backend, "continuing_subword_prefix", CONTINUATION) != CONTINUATION:
        raise UsageError(f"{name}: POINTER's stages need a BERT WordPiece tokenizer (word pieces marked '##'); "
                         f"this model's tokenizer is {kind}")


def _write_record(output: Path, result: PointerTrainingResult, settings: PointerSettings, staged: StagedCorpus,
                  importance: WordImportance, shape: BertShape | None, noi_id: int) -> None:
    from augkit.plugin import write_training_record

    write_training_record(output, {
        "target": "pointer",
        "base_model": result.base_model,
        "new_model": result.new_model,
        "new_model_shape": {**asdict(shape), "intermediate": shape.intermediate, "positions": NEW_MODEL_POSITIONS} if shape else None,
        "noi_token": NOI_TOKEN,
        "noi_token_id": noi_id,
        "labels": "position p of [CLS] t1..tn [SEP] (0 = [CLS]) holds the token inserted after it, or [NOI]; -100 at [SEP]",
        "sentences": result.sentences,
        "skipped_sentences": {"too_long": staged.too_long, "empty": staged.empty},
        "examples": result.examples,
        "stages": staged.stages,
        "importance": importance.describe(),
        "steps": result.steps,
        "losses": result.losses,
        "resumed_from": result.resumed_from,
        "stopped_by_time_budget": result.stopped_by_time_budget,
        "progress": result.progress.as_record(),
        "seconds": result.seconds,
        "settings": asdict(settings),
    })
