"""Training a small SentencePiece unigram tokenizer on the fly, for the random test models."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from augkit.errors import MissingDependencyError


def train_sentencepiece(texts: Sequence[str], vocab_size: int, **special_ids: Any) -> bytes:
    """A serialised SentencePiece unigram model trained on ``texts``.

    ``special_ids`` sets where the control pieces go (``pad_id``, ``eos_id``, ``unk_id``,
    ``bos_id``; -1 leaves one out); SentencePiece's defaults otherwise (unk 0, bos 1, eos 2).
    """
    if isinstance(texts, str) or not len(texts):
        raise ValueError("texts must be a non-empty sequence of sentences")
    try:
        import sentencepiece
    except ImportError as error:
        raise MissingDependencyError("building a test model needs sentencepiece: pip install sentencepiece") from error

    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(texts),
        model_writer=model,
        model_type="unigram",
        vocab_size=vocab_size,
        # Small or repetitive corpora cannot fill vocab_size; settle for fewer pieces.
        hard_vocab_limit=False,
        # Every character of the training texts gets a piece, so they round-trip.
        character_coverage=1.0,
        # One thread: deterministic, and polite on a shared machine.
        num_threads=1,
        minloglevel=2,
        **special_ids,
    )
    return model.getvalue()
