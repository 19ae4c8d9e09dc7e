"""Randomly initialised MarianMT translation models, saved as a local model directory.

Back-translation code has to be tested and benchmarked against MarianMT models, but the real
opus-mt checkpoints are 300 MB downloads. :func:`build_marian_model` writes a directory that
``AutoModelForSeq2SeqLM.from_pretrained(folder, use_safetensors=True)`` and
``AutoTokenizer.from_pretrained(folder)`` load exactly as they load a user's local opus-mt
copy: ``config.json``, ``generation_config.json``, ``model.safetensors``, ``source.spm``,
``target.spm``, ``vocab.json`` and ``tokenizer_config.json``. Only the weights are random, so
translations are gibberish, but every code path (tokenising, batching, beam search, decoding,
long inputs) is the real one.

- tiny models (the defaults: 32 dimensions, 2 layers, 400 pieces) build in a fraction of a
  second for tests;
- ``build_marian_model(folder, texts, **opus_mt_shape())`` has the shape and cost of
  Helsinki-NLP/opus-mt-en-de (about 74M parameters) for benchmarks.

>>> from augkit.testing import build_marian_pair
>>> en_xx, xx_en = build_marian_pair("models", ["i lost my card", "where is my refund?"])  # doctest: +SKIP

torch, transformers and sentencepiece are imported on first use, so importing this module
stays light.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from augkit.errors import MissingDependencyError
from augkit.testing.sentencepiece_training import train_sentencepiece

# Marian's own vocabulary layout (opus-mt vocab.json): "</s>" is 0, "<unk>" is 1, the
# SentencePiece pieces follow, "<pad>" is the last id; the pad id doubles as the decoder
# start token.
EOS, UNK, PAD = "</s>", "<unk>", "<pad>"

#: Generation settings written to generation_config.json unless the caller overrides them.
DEFAULT_GENERATION: dict[str, Any] = {"num_beams": 4, "max_new_tokens": 16}


def opus_mt_shape() -> dict[str, Any]:
    """Keyword arguments for :func:`build_marian_model` giving the shape of
    Helsinki-NLP/opus-mt-en-de (about 74M parameters).

    The numbers are those of that checkpoint's ``config.json`` on the Hugging Face Hub (also
    the opus-mt-de-en one, and the checkpoint transformers' ``MarianConfig`` docs name):
    ``d_model`` 512, ``encoder_layers`` = ``decoder_layers`` = 6, 8 attention heads,
    ``encoder_ffn_dim`` = ``decoder_ffn_dim`` = 2048, ``max_position_embeddings`` 512 and
    ``vocab_size`` 58101 (``pad_token_id`` = ``decoder_start_token_id`` = 58100, the last id).
    ``MarianConfig``'s own defaults (d_model 1024, 12 layers, 16 heads, 1024 positions) are
    *not* that shape, which is why they are spelled out here.

    >>> opus_mt_shape()["d_model"]
    512
    """
    return {
        "d_model": 512,
        "layers": 6,
        "heads": 8,
        "ffn_dim": 2048,
        "max_positions": 512,
        "padded_vocab_size": 58101,
    }


def build_marian_model(
    folder: str | os.PathLike,
    texts: Sequence[str],
    *,
    vocab_size: int = 400,
    padded_vocab_size: int | None = None,
    d_model: int = 32,
    layers: int = 2,
    heads: int = 2,
    ffn_dim: int = 64,
    max_positions: int = 64,
    seed: int = 0,
    init_std: float = 0.02,
    generation: Mapping[str, Any] | None = None,
) -> Path:
    """Write a randomly initialised MarianMT model and its tokenizer to ``folder``.

    Parameters
    ----------
    folder : str or os.PathLike
        The model directory (created if missing; files in it are overwritten).
    texts : sequence of str
        Sentences the SentencePiece unigram tokenizer is trained on (source and target share
        it). Texts made of these characters round-trip through the tokenizer.
    vocab_size : int
        Pieces SentencePiece is asked for; fewer come out when ``texts`` cannot support that
        many.
    padded_vocab_size : int, optional
        Total vocabulary size (special tokens included). When larger than the trained
        vocabulary, filler pieces ``▁tok<id>`` are added so the embedding and output layer
        have that many rows, e.g. opus-mt's 58101; random weights do generate fillers, and
        they decode as the word ``tok<id>``.
    d_model, layers, heads, ffn_dim : int
        Width, number of encoder layers (and as many decoder layers), attention heads, and
        feed-forward width.
    max_positions : int
        ``max_position_embeddings`` of the model and ``model_max_length`` of the tokenizer.
        Inputs longer than this are not truncated for you: that is the caller's problem,
        as it is with a real model.
    seed : int
        Seeds the weight initialisation (inside ``torch.random.fork_rng``, so the global RNG is
        untouched). The same arguments give bitwise identical files.
    init_std : float
        Standard deviation of the random weights (``MarianConfig.init_std``). With the
        default 0.02 a tiny model emits nearly the same tokens whatever the input; tests
        that must tell outputs apart use about 1.0, which makes them depend on the input.
    generation : mapping, optional
        Settings for ``generation_config.json``, merged over :data:`DEFAULT_GENERATION`
        (``num_beams`` 4, ``max_new_tokens`` 16); e.g. ``{"min_new_tokens": 20,
        "max_new_tokens": 20}`` for a benchmark with fixed output length.

    Returns
    -------
    Path
        ``folder``.
    """
    return _write_model(
        Path(folder),
        train_sentencepiece(texts, vocab_size),
        padded_vocab_size=padded_vocab_size,
        d_model=d_model,
        layers=layers,
        heads=heads,
        ffn_dim=ffn_dim,
        max_positions=max_positions,
        seed=seed,
        init_std=init_std,
        generation=generation,
    )


def build_marian_pair(
    root: str | os.PathLike, texts: Sequence[str], *, pivot: str = "xx", **kwargs: Any
) -> tuple[Path, Path]:
    """Write a back-translation pair: ``root/en-{pivot}`` and ``root/{pivot}-en``.

    Both share one tokenizer (trained once on ``texts``) and differ in their weights: the
    first is seeded with ``seed``, the second with ``seed + 1``. ``kwargs`` are those of
    :func:`build_marian_model`.

    >>> forward, backward = build_marian_pair(tmp, texts, pivot="de")  # doctest: +SKIP
    >>> forward.name, backward.name                                     # doctest: +SKIP
    ('en-de', 'de-en')
    """
    seed = kwargs.pop("seed", 0)
    sentencepiece_model = train_sentencepiece(texts, kwargs.pop("vocab_size", 400))
    root = Path(root)
    forward = _write_model(root / f"en-{pivot}", sentencepiece_model, seed=seed, **kwargs)
    backward = _write_model(root / f"{pivot}-en", sentencepiece_model, seed=seed + 1, **kwargs)
    return forward, backward


def _marian_vocab(sentencepiece_model: bytes, padded_vocab_size: int | None) -> dict[str, int]:
    """vocab.json for ``sentencepiece_model`` laid out as in opus-mt: ``</s>`` 0, ``<unk>`` 1,
    the pieces, filler pieces up to ``padded_vocab_size``, then ``<pad>`` last."""
    import sentencepiece

    processor = sentencepiece.SentencePieceProcessor(model_proto=sentencepiece_model)
    # SentencePiece's own <unk>, <s> and </s> are not pieces Marian ever sees as text.
    pieces = [
        processor.id_to_piece(index)
        for index in range(processor.get_piece_size())
        if not (processor.is_control(index) or processor.is_unknown(index))
    ]
    names = [EOS, UNK, *pieces]
    size = len(names) + 1 if padded_vocab_size is None else padded_vocab_size
    if size < len(names) + 1:
        raise ValueError(f"padded_vocab_size={padded_vocab_size} is smaller than the {len(names) + 1} tokens trained")
    names.extend(_filler_pieces(set(names), size - len(names) - 1, start=len(names)))
    names.append(PAD)
    return {name: index for index, name in enumerate(names)}


def _filler_pieces(taken: set[str], count: int, start: int) -> Iterator[str]:
    """``count`` word-initial pieces named after their id (``▁tok123``) that clash with no
    piece in ``taken``."""
    index = start
    while count:
        name = f"▁tok{index}"
        index += 1
        if name not in taken:
            count -= 1
            yield name


def _write_model(
    folder: Path,
    sentencepiece_model: bytes,
    *,
    padded_vocab_size: int | None = None,
    d_model: int = 32,
    layers: int = 2,
    heads: int = 2,
    ffn_dim: int = 64,
    max_positions: int = 64,
    seed: int = 0,
    init_std: float = 0.02,
    generation: Mapping[str, Any] | None = None,
) -> Path:
    """Save tokenizer files, config, generation config and random weights in ``folder``."""
    try:
        import torch
        from transformers import (
            GenerationConfig,
            MarianConfig,
            MarianMTModel,
            MarianTokenizer,
        )
    except ImportError as error:
        raise MissingDependencyError("building a Marian model needs torch and transformers: pip install torch transformers") from error

    folder.mkdir(parents=True, exist_ok=True)
    vocab = _marian_vocab(sentencepiece_model, padded_vocab_size)
    for name in ("source.spm", "target.spm"):
        (folder / name).write_bytes(sentencepiece_model)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False, indent=2), encoding="utf-8")
    with warnings.catch_warnings():
        # Only punctuation normalisation at encode time needs sacremoses, never the build;
        # whoever loads the tokenizer still gets the recommendation.
        warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
        tokenizer = MarianTokenizer(
            source_spm=str(folder / "source.spm"),
            target_spm=str(folder / "target.spm"),
            vocab=str(folder / "vocab.json"),
            model_max_length=max_positions,
        )
    tokenizer.save_pretrained(folder)

    eos, pad = vocab[EOS], vocab[PAD]
    config = MarianConfig(
        vocab_size=len(vocab),
        d_model=d_model,
        encoder_layers=layers,
        decoder_layers=layers,
        encoder_attention_heads=heads,
        decoder_attention_heads=heads,
        encoder_ffn_dim=ffn_dim,
        decoder_ffn_dim=ffn_dim,
        max_position_embeddings=max_positions,
        # The rest as converted opus-mt checkpoints have it.
        activation_function="swish",
        scale_embedding=True,
        share_encoder_decoder_embeddings=True,
        pad_token_id=pad,
        decoder_start_token_id=pad,
        eos_token_id=eos,
        forced_eos_token_id=eos,
        init_std=init_std,
    )
    # devices=[]: the model is built on the CPU, so only the CPU generator needs forking.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = MarianMTModel(config)
    model.eval()
    settings = {
        # What opus-mt's generation_config.json says; bad_words_ids keeps <pad> out of outputs.
        "decoder_start_token_id": pad,
        "pad_token_id": pad,
        "eos_token_id": eos,
        "forced_eos_token_id": eos,
        "bad_words_ids": [[pad]],
        **DEFAULT_GENERATION,
        **(generation or {}),
    }
    model.generation_config = GenerationConfig(**settings)
    # Recent transformers always write model.safetensors (safe_serialization is no longer an
    # argument in transformers 5, and the default since 4.35).
    model.save_pretrained(folder)
    return folder
