"""Fixtures of the ERAP plugin's tests: a tiny random T5 given the relation control tokens,
as `augkit train erap` would leave a generator before training."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_erap_generator(tiny_t5, tmp_path_factory) -> Path:
    """The tiny random T5 of the root conftest, with the three control tokens added."""
    import transformers
    from augkit_erap.relations import add_control_tokens

    folder = tmp_path_factory.mktemp("erap") / "generator"
    shutil.copytree(tiny_t5, folder)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(folder)
    import torch

    torch.manual_seed(0)  # resizing draws the new rows (and an untied head's) from torch's global generator
    assert add_control_tokens(model, tokenizer) == 3

    # New rows start near the mean embedding (all three alike); spread them as training would,
    # so that the relation token visibly steers the random model.
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        embeddings = model.get_input_embeddings().weight
        embeddings[-3:] = torch.randn(3, embeddings.shape[1], generator=generator) * 20
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    return folder
