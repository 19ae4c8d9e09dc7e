"""Kept so that ``from augkit.encoders import ...`` keeps working: the sentence encoder now
lives in :mod:`augkit.models.encoder`, beside the other model families."""

from augkit.models.encoder import (
    DEFAULT_ENCODER,
    MIN_TOKENS_PER_PASS,
    EncoderStats,
    SentenceEncoder,
    cosine_matrix,
    get_encoder,
    load_sentence_transformer,
    pairwise_cosine,
    resolve_encoder,
)

__all__ = [
    "DEFAULT_ENCODER",
    "MIN_TOKENS_PER_PASS",
    "EncoderStats",
    "SentenceEncoder",
    "cosine_matrix",
    "get_encoder",
    "load_sentence_transformer",
    "pairwise_cosine",
    "resolve_encoder",
]
