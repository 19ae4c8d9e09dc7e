"""The few-shot benchmark's fine-tuned classifier (``--classifier finetune``): augkit's own
:class:`augkit.tuning.finetune.FineTunedMiniLM`, the judge of ``augkit tune --classifier
finetune``, re-exported here so that the benchmark's options (steps, batch_size, max_length,
lr, head_lr, warmup, seed, model_path, eval_every, patience) and imports keep working."""

from augkit.tuning.finetune import (
    FineTunedMiniLM,
    linear_warmup_schedule,
    packaged_model_path,
)

__all__ = ["FineTunedMiniLM", "linear_warmup_schedule", "packaged_model_path"]
