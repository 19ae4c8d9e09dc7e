"""Helpers for testing augkit and augkit plugins: small, real, offline models.

:func:`build_marian_model` and :func:`build_marian_pair` write randomly initialised MarianMT
translation models that load like a local opus-mt copy; :func:`opus_mt_shape` gives the
arguments for a full-size one (benchmarks). :func:`build_t5_model` writes a random T5 (the
FAQ paraphraser's architecture; ParaMac's infiller with sentinels), :func:`t5_base_shape`
its real size. :func:`build_bert_masked_lm`, :func:`build_gpt2_causal_lm`
and :func:`build_pair_classifier` write a random masked LM,
(:func:`build_roberta_masked_lm`: a RoBERTa one, with byte-level BPE), causal LM and MNLI-style pair
classifier with tokenizers trained on the fly; :func:`bert_base_shape` and
:func:`gpt2_small_shape` give their real sizes. :func:`run_command` runs an ``augkit`` command
line in the test's process and returns its exit code (:func:`run_command_captured`, with what it
printed); :func:`tab_context` gives the context
``augkit serve`` hands a plugin's web tab. Importing this package loads no torch,
transformers, tokenizers or sentencepiece; they are imported when a model is built.
"""

from augkit.testing.bert import (
    NLI_LABELS,
    bert_base_shape,
    build_bert_masked_lm,
    build_pair_classifier,
)
from augkit.testing.chat import build_chat_model
from augkit.testing.commands import run_command, run_command_captured
from augkit.testing.gpt2 import build_gpt2_causal_lm, gpt2_small_shape
from augkit.testing.marian import build_marian_model, build_marian_pair, opus_mt_shape
from augkit.testing.roberta import build_roberta_masked_lm
from augkit.testing.t5 import build_t5_model, t5_base_shape
from augkit.testing.web_tabs import tab_context

__all__ = [
    "NLI_LABELS",
    "bert_base_shape",
    "build_bert_masked_lm",
    "build_gpt2_causal_lm",
    "build_marian_model",
    "build_marian_pair",
    "build_pair_classifier",
    "build_roberta_masked_lm",
    "build_t5_model",
    "gpt2_small_shape",
    "opus_mt_shape",
    "t5_base_shape",
    "build_chat_model",
    "run_command",
    "run_command_captured",
    "tab_context",
]
