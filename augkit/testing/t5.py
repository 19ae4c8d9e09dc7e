"""Randomly initialised T5 models, saved as a local model directory.

The FAQ paraphraser is a fine-tuned t5-base (900 MB); tests of paraphrasing and of
``augkit train paraphraser`` need the same architecture in miniature. :func:`build_t5_model`
writes ``config.json``, ``generation_config.json``, ``model.safetensors`` and a T5 tokenizer
(T5's layout: ``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2, then unigram pieces trained on ``texts``),
which ``AutoModelForSeq2SeqLM`` / ``AutoTokenizer`` load like a user's t5 copy.

Tiny by default for tests; ``build_t5_model(folder, texts, **t5_base_shape())`` has t5-base's
shape and cost (its 32,100-token vocabulary reached with filler pieces) for benchmarks.

>>> from augkit.testing import build_t5_model
>>> folder = build_t5_model("t5-tiny", ["How do I learn Python?", "What is the best way to learn Python?"])  # doctest: +SKIP

torch, transformers and sentencepiece are imported on first use.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from augkit.errors import MissingDependencyError
from augkit.testing.sentencepiece_training import train_sentencepiece


def t5_base_shape() -> dict[str, Any]:
    """Keyword arguments for :func:`build_t5_model` giving the shape of ``t5-base`` (about
    223M parameters).

    From that checkpoint's ``config.json`` on the Hugging Face Hub: ``d_model`` 768,
    ``num_layers`` = ``num_decoder_layers`` = 12, ``num_heads`` 12 (``d_kv`` 64), ``d_ff``
    3072, ReLU feed-forward, input and output embeddings tied. Its tokenizer has 32,100
    tokens: 32,000 SentencePiece pieces and 100 sentinels ``<extra_id_0..99>`` (ParaMac
    infills with them); the checkpoint's embedding has 32,128 rows, 28 of which no token
    uses, so the model built here (32,100 rows) costs 0.09% less in its output layer.

    >>> t5_base_shape()["d_model"]
    768
    """
    return {"d_model": 768, "layers": 12, "heads": 12, "ffn_dim": 3072, "padded_vocab_size": 32100, "extra_ids": 100}


def build_t5_model(
    folder: str | os.PathLike,
    texts: Sequence[str],
    *,
    vocab_size: int = 300,
    padded_vocab_size: int | None = None,
    d_model: int = 32,
    layers: int = 2,
    heads: int = 2,
    ffn_dim: int = 64,
    seed: int = 0,
    max_length: int = 512,
    extra_ids: int = 0,
) -> Path:
    """Write a randomly initialised T5 model and its tokenizer to ``folder``.

    Parameters
    ----------
    folder : str or os.PathLike
        The model directory (created if missing; files in it are overwritten).
    texts : sequence of str
        Sentences the tokenizer is trained on; their characters round-trip.
    vocab_size : int
        Pieces asked of SentencePiece (fewer when ``texts`` cannot support that many).
    padded_vocab_size : int, optional
        The tokenizer's total size, sentinels included (t5-base: 32,100). When larger than
        what was trained, filler pieces ``▁filler<id>`` are added before the sentinels, as
        the other builders pad, so the embedding and output layer have that many rows; a
        random model does generate them (they decode as the word ``filler<id>``).
    d_model, layers, heads, ffn_dim : int
        Width, encoder (and decoder) layers, attention heads, feed-forward width
        (``d_kv`` is ``d_model // heads``).
    seed : int
        Seeds the weights inside ``torch.random.fork_rng``; same arguments, same files.
    max_length : int
        The tokenizer's ``model_max_length`` (T5 has relative positions, no hard limit).
    extra_ids : int
        Sentinel tokens ``<extra_id_0>`` ... appended to the vocabulary, as T5's 100, for
        span infilling (ParaMac); 0 (default) for a plain paraphraser.
    """
    try:
        import sentencepiece
        import torch
        import transformers
    except ImportError as error:
        raise MissingDependencyError("building a T5 model needs torch, transformers and sentencepiece: pip install 'augkit[models]'") from error

    serialized = train_sentencepiece(texts, vocab_size, pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    processor = sentencepiece.SentencePieceProcessor(model_proto=serialized)
    vocab = [(processor.id_to_piece(i), processor.get_score(i)) for i in range(processor.get_piece_size())]
    vocab[:3] = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    if padded_vocab_size is not None:
        vocab += _filler_pieces(vocab, padded_vocab_size - extra_ids - len(vocab), padded_vocab_size)
    tokenizer = transformers.T5Tokenizer(vocab=vocab, extra_ids=extra_ids, model_max_length=max_length)

    config = transformers.T5Config(
        vocab_size=len(tokenizer), d_model=d_model, d_kv=max(d_model // heads, 1), d_ff=ffn_dim,
        num_layers=layers, num_decoder_layers=layers, num_heads=heads,
        pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = transformers.T5ForConditionalGeneration(config)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder


def _filler_pieces(vocab: list[tuple[str, float]], count: int, size: int) -> list[tuple[str, float]]:
    """``count`` word-initial pieces named after their id (``▁filler123``), clashing with no
    piece of ``vocab`` and scored below all of them (text of the training characters never
    needs them)."""
    if count < 0:
        raise ValueError(f"padded_vocab_size={size} is smaller than the {size - count} tokens trained (sentinels included)")
    taken = {piece for piece, _ in vocab}
    score = min(score for _, score in vocab) - 10.0
    fillers: list[tuple[str, float]] = []
    index = len(vocab)
    while len(fillers) < count:
        name = f"▁filler{index}"
        index += 1
        if name not in taken:
            fillers.append((name, score))
    return fillers
