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
fine-tune. Importing this package is light; torch and transformers load with the first model.
"""

from augkit.models.batching import (
    DEFAULT_TOKEN_BUDGET,
    PAD_MULTIPLE,
    token_budget_batches,
)
from augkit.models.causal_lm import CausalLM
from augkit.models.device import resolve_device, resolve_dtype
from augkit.models.encoder import SentenceEncoder, get_encoder
from augkit.models.loading import (
    SEQ2SEQ_RUNTIMES,
    Runtime,
    clear_model_cache,
    load_causal_lm,
    load_for_training,
    load_masked_lm,
    load_pair_classifier,
    load_seq2seq,
)
from augkit.models.long_inputs import split_sentences
from augkit.models.masked_lm import Fill, MaskedLM
from augkit.models.pair_classifier import PairClassifier
from augkit.models.seq2seq import GenerationResult, Seq2SeqModel, TargetScore
from augkit.models.spec import (
    MODEL_DIR_ENV,
    ModelSource,
    ModelSpec,
    resolve_model_source,
)
from augkit.models.token_embeddings import TokenEncoder, TokenStates, load_token_encoder

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
    "resolve_device",
    "resolve_dtype",
    "resolve_model_source",
    "split_sentences",
    "token_budget_batches",
]
