"""A randomly initialised RoBERTa masked LM (``distilroberta-base``'s architecture, tiny by
default), saved as a local model directory with a byte-level BPE tokenizer trained on the fly:
for testing methods whose default masked LM is a RoBERTa (augkit-contextual), whose word
boundaries are marked on the tokens that begin a word ("Ġcard"), unlike BERT's WordPiece.

>>> from augkit.testing import build_roberta_masked_lm
>>> folder = build_roberta_masked_lm("roberta-tiny", ["I lost my card", "where is my refund?"])  # doctest: +SKIP

torch, transformers and tokenizers are imported on first use.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from augkit.errors import MissingDependencyError
from augkit.models.tokenizer_training import train_byte_level_bpe

#: RoBERTa's special tokens, in the ids its tokenizer gives them (its vocab.json's first five).
ROBERTA_SPECIAL = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def build_roberta_masked_lm(
    folder: str | os.PathLike,
    texts: Sequence[str],
    *,
    vocab_size: int = 800,
    hidden: int = 32,
    layers: int = 2,
    heads: int = 2,
    intermediate: int = 64,
    max_positions: int = 64,
    seed: int = 0,
    init_std: float = 0.02,
) -> Path:
    """Write a randomly initialised ``RobertaForMaskedLM`` and a ``RobertaTokenizerFast``-like
    tokenizer (byte-level BPE trained on ``texts``; ``<mask>`` takes the space before it, as
    RoBERTa's does) to ``folder``; the weights are seeded by ``seed`` inside
    ``torch.random.fork_rng`` (same arguments, bitwise the same files)."""
    try:
        import tokenizers
        import torch
        import transformers
    except ImportError as error:
        raise MissingDependencyError("building a RoBERTa model needs torch and transformers: pip install 'augkit[models]'") from error

    trained = train_byte_level_bpe(texts, vocab_size, special_tokens=ROBERTA_SPECIAL)
    trained.add_special_tokens([tokenizers.AddedToken("<mask>", lstrip=True, special=True)])  # " <mask>" is one token
    start, end = trained.token_to_id("<s>"), trained.token_to_id("</s>")
    trained.post_processor = tokenizers.processors.RobertaProcessing(("</s>", end), ("<s>", start), add_prefix_space=False)
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=trained, bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
        unk_token="<unk>", pad_token="<pad>", mask_token=tokenizers.AddedToken("<mask>", lstrip=True),
        model_max_length=max_positions - 2,
    )
    config = transformers.RobertaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        intermediate_size=intermediate, max_position_embeddings=max_positions + 2, initializer_range=init_std,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        type_vocab_size=1,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = transformers.RobertaForMaskedLM(config)
    model.eval()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
