"""Randomly initialised BERT models, saved as a local model directory: a masked LM
(``bert-base-uncased``'s architecture) and a sequence-pair classifier (an MNLI model's).

:func:`build_bert_masked_lm` and :func:`build_pair_classifier` write ``config.json``,
``model.safetensors`` and a lower-casing WordPiece tokenizer trained on ``texts`` (with
``[PAD] [UNK] [CLS] [SEP] [MASK]``), which ``AutoModelForMaskedLM`` /
``AutoModelForSequenceClassification`` and ``AutoTokenizer`` load like a user's copy. Tiny
by default (32 wide, 2 layers) for tests; ``**bert_base_shape()`` gives BERT-base's size
for benchmarks.

>>> from augkit.testing import build_bert_masked_lm
>>> folder = build_bert_masked_lm("bert-tiny", ["I lost my card", "where is my refund?"])  # doctest: +SKIP

torch, transformers and tokenizers are imported on first use.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from augkit.errors import MissingDependencyError
from augkit.models.tokenizer_training import bert_wordpiece_tokenizer

#: The labels of an MNLI classifier, in the order the builder gives them ids.
NLI_LABELS = ("entailment", "neutral", "contradiction")


def bert_base_shape() -> dict[str, Any]:
    """Keyword arguments giving the shape of ``bert-base-uncased`` (its ``config.json``:
    hidden 768, 12 layers, 12 heads, feed-forward 3072, 512 positions, 30,522 tokens).

    >>> bert_base_shape()["hidden"]
    768
    """
    return {"hidden": 768, "layers": 12, "heads": 12, "intermediate": 3072, "max_positions": 512, "padded_vocab_size": 30522}


def build_bert_masked_lm(folder: str | os.PathLike, texts: Sequence[str], **shape: Any) -> Path:
    """Write a randomly initialised ``BertForMaskedLM`` and its tokenizer to ``folder``;
    ``shape`` as :func:`_write_bert` (``vocab_size``, ``padded_vocab_size``, ``hidden``,
    ``layers``, ``heads``, ``intermediate``, ``max_positions``, ``seed``, ``init_std``,
    ``special_tokens``: extra special tokens such as POINTER's ``[NOI]``)."""
    return _write_bert(Path(folder), texts, "BertForMaskedLM", {}, **shape)


def build_pair_classifier(
    folder: str | os.PathLike, texts: Sequence[str], *, labels: Sequence[str] = NLI_LABELS, **shape: Any
) -> Path:
    """Write a randomly initialised ``BertForSequenceClassification`` over ``labels``
    (``config.id2label``: 0 entailment, 1 neutral, 2 contradiction by default) and its
    tokenizer to ``folder``; ``shape`` as :func:`build_bert_masked_lm`."""
    labels = list(labels)
    if len(labels) < 2 or len(set(labels)) != len(labels) or not all(isinstance(label, str) and label for label in labels):
        raise ValueError(f"labels must be two or more distinct names, got {labels!r}")
    mapping = {"id2label": dict(enumerate(labels)), "label2id": {label: i for i, label in enumerate(labels)}}
    return _write_bert(Path(folder), texts, "BertForSequenceClassification", mapping, **shape)


def _write_bert(
    folder: Path,
    texts: Sequence[str],
    architecture: str,
    extra_config: dict,
    *,
    vocab_size: int = 800,
    padded_vocab_size: int | None = None,
    hidden: int = 32,
    layers: int = 2,
    heads: int = 2,
    intermediate: int = 64,
    max_positions: int = 64,
    seed: int = 0,
    init_std: float = 0.02,
    special_tokens: Sequence[str] = (),
) -> Path:
    """Train the tokenizer (``vocab_size`` tokens asked; filler tokens up to
    ``padded_vocab_size``; ``special_tokens`` added after them), build ``architecture`` with random weights seeded by ``seed``
    inside ``torch.random.fork_rng`` (same arguments, bitwise the same files; larger
    ``init_std`` makes a tiny model's outputs depend more on its input) and save both."""
    try:
        import torch
        import transformers
    except ImportError as error:
        raise MissingDependencyError("building a BERT model needs torch and transformers: pip install 'augkit[models]'") from error

    tokenizer = bert_wordpiece_tokenizer(texts, vocab_size, max_length=max_positions, padded_vocab_size=padded_vocab_size)
    if special_tokens:
        tokenizer.add_special_tokens({"additional_special_tokens": list(special_tokens)})
    config = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        intermediate_size=intermediate, max_position_embeddings=max_positions, initializer_range=init_std,
        pad_token_id=tokenizer.pad_token_id, **extra_config,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = getattr(transformers, architecture)(config)
    model.eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
