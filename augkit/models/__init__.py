"""The model runtime every neural augkit method runs on.

- :func:`load_seq2seq`: resolve a model spec (hub id, ``id@revision``, a directory, a folder
  under ``$AUGKIT_MODEL_DIR``, a packaged model), load it once per process (safetensors,
  no remote code) and share it; :func:`load_for_training` gives a private copy to fine-tune.
- :class:`Seq2SeqModel`: length-sorted, token-budget batched generation (beam search or
  sampling; long inputs split into sentences) and teacher-forced scoring.

Importing this package is light; torch and transformers load with the first model.
"""

from augkit.models.batching import DEFAULT_TOKEN_BUDGET, token_budget_batches
from augkit.models.device import resolve_device, resolve_dtype
from augkit.models.loading import clear_model_cache, load_for_training, load_seq2seq
from augkit.models.long_inputs import split_sentences
from augkit.models.seq2seq import GenerationResult, Seq2SeqModel, TargetScore
from augkit.models.spec import (
    MODEL_DIR_ENV,
    ModelSource,
    ModelSpec,
    resolve_model_source,
)

__all__ = [
    "DEFAULT_TOKEN_BUDGET",
    "MODEL_DIR_ENV",
    "GenerationResult",
    "ModelSource",
    "ModelSpec",
    "Seq2SeqModel",
    "TargetScore",
    "clear_model_cache",
    "load_for_training",
    "load_seq2seq",
    "resolve_device",
    "resolve_dtype",
    "resolve_model_source",
    "split_sentences",
    "token_budget_batches",
]
