"""Tiny random models for ParaMac's mechanics: a T5 with sentinels (the infiller), and the
repository's tiny BERT masked LM (substitution and BERTScore) and GPT-2 (fluency)."""

from __future__ import annotations

from pathlib import Path

import pytest

QUORA = Path("quora_pairs") / "paragen" / "head_0a142eb"


def quora_questions(shared_data: Path, count: int, start: int = 0) -> list[str]:
    """Quora questions (first side of the validation pairs), distinct, in file order."""
    lines = (shared_data / QUORA / "val.q1").read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(line.strip() for line in lines if line.strip()))[start : start + count]


@pytest.fixture(scope="session")
def tiny_t5_infiller(shared_data, tmp_path_factory) -> Path:
    """A random 2-layer T5 (32-dim) with 40 sentinels and a unigram tokenizer trained on
    Quora questions and BANKING77 texts."""
    pytest.importorskip("torch")
    pytest.importorskip("sentencepiece")
    from augkit.testing import build_t5_model

    texts = quora_questions(shared_data, 2000) + (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text().splitlines()
    return build_t5_model(tmp_path_factory.mktemp("tiny-t5-infiller"), texts, vocab_size=600, extra_ids=40)


@pytest.fixture(scope="session")
def paramac_params(tiny_t5_infiller, tiny_masked_lm, tiny_causal_lm) -> dict:
    """ParaMac on the tiny models, with a small search (3 orders x 2 beams) so tests run fast."""
    return {
        "generator": str(tiny_t5_infiller), "substitution_model": str(tiny_masked_lm),
        "semantic_model": str(tiny_masked_lm), "fluency_model": str(tiny_causal_lm),
        "permutations": 3, "num_beams": 2, "num_return": 2, "max_new_tokens": 12,
    }
