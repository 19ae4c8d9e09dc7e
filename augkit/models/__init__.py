"""The model runtime every neural augkit method runs on: one family per module.

- :func:`load_seq2seq` -> :class:`Seq2SeqModel`: length-sorted, token-budget batched
  generation (beam search or sampling; long inputs split into sentences) and teacher-forced
  scoring (translation, paraphrasing).
- :func:`load_masked_lm` -> :class:`MaskedLM`: top-k fills of character spans or mask
  tokens (``bert-base-uncased``-shaped).
- :func:`load_causal_lm` -> :class:`CausalLM`: per-token log-probabilities (fluency,
  perplexity) and seeded sampling (GPT-2-shaped).
- :func:`load_pair_classifier` -> :class:`PairClassifier`: class probabilities of (text,
  text) pairs, label names from the config (MNLI-shaped).
- :func:`load_token_encoder` -> :class:`TokenEncoder`: per-token hidden states of one layer
  of an encoder (BERTScore), special tokens marked.
- :func:`get_encoder` -> :class:`SentenceEncoder`: sentence embeddings for the quality
  filters (sentence-transformers).

Every loader resolves a model spec the same way (hub id, ``id@revision``, a directory, a
folder under ``$AUGKIT_MODEL_DIR``, a packaged model), loads safetensors only with no remote
code, and shares one copy per process; :func:`load_for_training` gives a private copy to
fine-tune. Importing this package is light: each name below loads its module when first used, and torch and
transformers load with the first model; :mod:`augkit.models.needs` (what a step needs) and
:mod:`augkit.models.availability` load without the runtime.
"""

from importlib import import_module
from typing import Any

#: Each public name and the module of this package that defines it, loaded on first use.
_MODULE_OF = {
    "CausalLM": "causal_lm",
    "DEFAULT_TOKEN_BUDGET": "batching",
    "Fill": "masked_lm",
    "GenerationResult": "seq2seq_outputs",
    "MODEL_DIR_ENV": "spec",
    "MaskedLM": "masked_lm",
    "ModelSource": "spec",
    "ModelSpec": "spec",
    "PAD_MULTIPLE": "batching",
    "PairClassifier": "pair_classifier",
    "Runtime": "loading",
    "SEQ2SEQ_RUNTIMES": "loading",
    "SentenceEncoder": "encoder",
    "Seq2SeqModel": "seq2seq",
    "TargetScore": "seq2seq_outputs",
    "TokenEncoder": "token_embeddings",
    "TokenStates": "token_embeddings",
    "clear_model_cache": "loading",
    "get_encoder": "encoder",
    "load_causal_lm": "loading",
    "load_for_training": "loading",
    "load_masked_lm": "loading",
    "load_pair_classifier": "loading",
    "load_seq2seq": "loading",
    "load_token_encoder": "token_embeddings",
    "model_at_hand": "spec",
    "resolve_device": "device",
    "resolve_dtype": "device",
    "resolve_model_source": "spec",
    "split_sentences": "long_inputs",
    "token_budget_batches": "batching",
}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'augkit.models' has no attribute {name!r}")
    value = getattr(import_module(f"augkit.models.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_TOKEN_BUDGET",
    "MODEL_DIR_ENV",
    "PAD_MULTIPLE",
    "CausalLM",
    "Fill",
    "GenerationResult",
    "MaskedLM",
    "ModelSource",
    "ModelSpec",
    "PairClassifier",
    "Runtime",
    "SEQ2SEQ_RUNTIMES",
    "SentenceEncoder",
    "Seq2SeqModel",
    "TargetScore",
    "TokenEncoder",
    "TokenStates",
    "clear_model_cache",
    "get_encoder",
    "load_causal_lm",
    "load_for_training",
    "load_masked_lm",
    "load_pair_classifier",
    "load_seq2seq",
    "load_token_encoder",
    "model_at_hand",
    "resolve_device",
    "resolve_dtype",
    "resolve_model_source",
    "split_sentences",
    "token_budget_batches",
]
