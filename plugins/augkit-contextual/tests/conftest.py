"""What the augkit-contextual tests share: a tiny random RoBERTa masked LM
(:func:`augkit.testing.build_roberta_masked_lm`; the root conftest's ``tiny_masked_lm`` is the tiny BERT). The root conftest's helpers are reached as fixtures only:
``from conftest import`` may find another plugin's conftest."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_roberta_lm(shared_data, tmp_path_factory) -> Path:
    """A random 2-layer RoBERTa masked LM (32-dim, 64 positions) with a byte-level BPE tokenizer
    trained on BANKING77's training texts."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from augkit.testing import build_roberta_masked_lm

    texts = (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    return build_roberta_masked_lm(tmp_path_factory.mktemp("tiny-roberta"), texts)
