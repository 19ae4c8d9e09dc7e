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
import tempfile
from collections.abc import Sequence
from pathlib import Path

from augkit.errors import MissingDependencyError

#: RoBERTa's special tokens, with the ids roberta-base gives them (bos 0, pad 1, eos 2, unk 3;
#: the mask token follows them here, and is its vocabulary's last in roberta-base).
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
    """Write a randomly initialised ``RobertaForMaskedLM`` and a ``RobertaTokenizerFast`` (byte-level
    BPE trained on ``texts``, roberta-base's special tokens and post-processing; ``<mask>`` takes
    the space before it) to ``folder``, as ``save_pretrained`` writes a user's copy.
    ``max_positions`` is the longest input; the model has two positions more, as RoBERTa's 514
    for 512 (its positions start after the padding id). Weights are seeded by ``seed`` inside
    ``torch.random.fork_rng``: same arguments, bitwise the same files."""
    try:
        import tokenizers
        import torch
        import transformers
    except ImportError as error:
        raise MissingDependencyError("building a RoBERTa model needs torch and transformers: pip install 'augkit[models]'") from error

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator(list(texts), vocab_size=vocab_size, special_tokens=list(ROBERTA_SPECIAL), show_progress=False)
    with tempfile.TemporaryDirectory() as vocabulary:
        vocab_file, merges_file = bpe.save_model(vocabulary)
        tokenizer = transformers.RobertaTokenizerFast(vocab_file, merges_file, model_max_length=max_positions)
    config = transformers.RobertaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
        intermediate_size=intermediate, max_position_embeddings=max_positions + 2, type_vocab_size=1,
        initializer_range=init_std, pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = transformers.RobertaForMaskedLM(config)
    model.eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
