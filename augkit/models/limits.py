"""How many tokens a loaded model reads, and the one warning when inputs exceed it."""

from __future__ import annotations

import warnings
from typing import Any

#: A model whose config and tokenizer claim no limit (a huge sentinel) is cut here.
FALLBACK_MAX_INPUT_TOKENS = 512


def model_input_limit(model: Any, tokenizer: Any) -> int:
    """The longest input ``model`` accepts, in tokens (special tokens included): the least of
    its position embeddings (``max_position_embeddings``, GPT-2's ``n_positions``) and the
    tokenizer's ``model_max_length``, ignoring the huge sentinel tokenizers use for "none"."""
    config = model.config
    limits = [getattr(config, name, None) for name in ("max_position_embeddings", "n_positions")]
    limits.append(getattr(tokenizer, "model_max_length", None))
    usable = [int(limit) for limit in limits if isinstance(limit, int) and 1 < limit < 1_000_000]
    return min(usable) if usable else FALLBACK_MAX_INPUT_TOKENS


def warn_cut(name: str, cut: int, total: int, limit: int, what: str = "texts") -> None:
    """Say how many of ``total`` inputs were longer than ``limit`` tokens and were cut."""
    if cut:
        warnings.warn(
            f"augkit: {cut} of {total} {what} were longer than {limit} tokens and were cut to fit ({name})",
            RuntimeWarning, stacklevel=3,
        )
