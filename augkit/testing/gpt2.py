"""Randomly initialised GPT-2 language models, saved as a local model directory.

:func:`build_gpt2_causal_lm` writes ``config.json``, ``model.safetensors`` and a byte-level
BPE tokenizer trained on ``texts`` (``<|endoftext|>`` as BOS and EOS, like GPT-2's), which
``AutoModelForCausalLM`` / ``AutoTokenizer`` load like a user's gpt2 copy. Tiny by default
(32 wide, 2 layers, 64 positions) for tests; ``**gpt2_small_shape()`` gives GPT-2 small's
size for benchmarks.

>>> from augkit.testing import build_gpt2_causal_lm
>>> folder = build_gpt2_causal_lm("gpt2-tiny", ["I lost my card", "where is my refund?"])  # doctest: +SKIP

torch, transformers and tokenizers are imported on first use.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from augkit.errors import MissingDependencyError
from augkit.models.tokenizer_training import GPT2_END, train_byte_level_bpe


def gpt2_small_shape() -> dict[str, Any]:
    """Keyword arguments giving the shape of ``gpt2`` (GPT-2 small, its ``config.json``:
    768 wide, 12 layers, 12 heads, 1,024 positions, 50,257 tokens).

    >>> gpt2_small_shape()["layers"]
    12
    """
    return {"hidden": 768, "layers": 12, "heads": 12, "max_positions": 1024, "padded_vocab_size": 50257}


def build_gpt2_causal_lm(
    folder: str | os.PathLike,
    texts: Sequence[str],
    *,
    vocab_size: int = 400,
    padded_vocab_size: int | None = None,
    hidden: int = 32,
    layers: int = 2,
    heads: int = 2,
    max_positions: int = 64,
    seed: int = 0,
    init_std: float = 0.02,
) -> Path:
    """Write a randomly initialised ``GPT2LMHeadModel`` and its tokenizer to ``folder``.

    ``vocab_size`` tokens are asked of the BPE trainer (filler tokens are appended up to
    ``padded_vocab_size``); ``hidden``, ``layers``, ``heads`` and ``max_positions`` are the
    width, depth, attention heads and context (the tokenizer's ``model_max_length`` too).
    Weights are seeded by ``seed`` inside ``torch.random.fork_rng``: same arguments, bitwise
    the same files. A larger ``init_std`` makes a tiny model's outputs depend more on its input.
    """
    try:
        import torch
        import transformers
    except ImportError as error:
        raise MissingDependencyError("building a GPT-2 model needs torch and transformers: pip install 'augkit[models]'") from error

    trained = train_byte_level_bpe(texts, vocab_size, padded_vocab_size=padded_vocab_size)
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=trained, bos_token=GPT2_END, eos_token=GPT2_END, unk_token=GPT2_END, model_max_length=max_positions,
    )
    end = trained.token_to_id(GPT2_END)
    config = transformers.GPT2Config(
        vocab_size=trained.get_vocab_size(), n_positions=max_positions, n_layer=layers, n_head=heads, n_embd=hidden,
        bos_token_id=end, eos_token_id=end, initializer_range=init_std,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = transformers.GPT2LMHeadModel(config)
    model.eval()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
