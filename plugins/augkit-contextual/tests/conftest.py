"""What the augkit-contextual tests share: a tiny random RoBERTa masked LM (the root conftest's
``tiny_masked_lm`` is the tiny BERT). The root conftest's helpers are reached as fixtures only:
``from conftest import`` may find another plugin's conftest."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

#: RoBERTa's special tokens, with the ids roberta-base gives them (bos 0, pad 1, eos 2, unk 3;
#: the mask token is its vocabulary's last).
ROBERTA_SPECIAL = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def build_roberta_masked_lm(folder: str | os.PathLike, texts: Sequence[str], *, vocab_size: int = 800, hidden: int = 32,
                            layers: int = 2, heads: int = 2, intermediate: int = 64, max_positions: int = 64,
                            seed: int = 0, init_std: float = 0.02) -> Path:
    """Write a randomly initialised ``RobertaForMaskedLM`` and a byte-level BPE tokenizer trained
    on ``texts`` (roberta-base's special tokens and post-processing) to ``folder``, as
    ``save_pretrained`` writes a user's copy. ``max_positions`` is the longest input; the model
    has two positions more, as RoBERTa's 514 for 512 (its positions start after the padding id).
    Weights are seeded by ``seed`` inside ``torch.random.fork_rng``: same arguments, same files."""
    import tokenizers
    import torch
    import transformers

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator(list(texts), vocab_size=vocab_size, special_tokens=list(ROBERTA_SPECIAL), show_progress=False)
    vocabulary = folder / "bpe"
    vocabulary.mkdir(exist_ok=True)
    vocab_file, merges_file = bpe.save_model(str(vocabulary))
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


@pytest.fixture(scope="session")
def tiny_roberta_lm(shared_data, tmp_path_factory) -> Path:
    """A random 2-layer RoBERTa masked LM (32-dim, 64 positions) with a byte-level BPE tokenizer
    trained on BANKING77's training texts."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    texts = (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    return build_roberta_masked_lm(tmp_path_factory.mktemp("tiny-roberta"), texts)
