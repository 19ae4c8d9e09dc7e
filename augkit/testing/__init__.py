"""Helpers for testing augkit and augkit plugins: small, real, offline models.

:func:`build_marian_model` and :func:`build_marian_pair` write randomly initialised MarianMT
translation models that load like a local opus-mt copy; :func:`opus_mt_shape` gives the
arguments for a full-size one (benchmarks). :func:`build_t5_model` writes a random T5 (the
FAQ paraphraser's architecture). Importing this package loads no torch,
transformers or sentencepiece; they are imported when a model is built.
"""

from augkit.testing.marian import build_marian_model, build_marian_pair, opus_mt_shape
from augkit.testing.t5 import build_t5_model

__all__ = ["build_marian_model", "build_marian_pair", "build_t5_model", "opus_mt_shape"]
