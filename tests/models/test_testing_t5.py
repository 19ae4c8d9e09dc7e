"""augkit.testing.build_t5_model: a random T5 that loads like a user's t5 copy, in T5's
tokenizer layout; and augkit.models.load_for_training, the private copy that training uses."""

from __future__ import annotations

import hashlib

import pytest

torch = pytest.importorskip("torch")

from augkit.models import load_for_training, load_seq2seq  # noqa: E402
from augkit.testing import build_t5_model  # noqa: E402


@pytest.fixture(scope="module")
def texts(banking77_sentences) -> list[str]:
    return banking77_sentences[:200]


def test_builds_a_t5_that_loads_and_generates(tmp_path, texts):
    folder = build_t5_model(tmp_path / "t5", texts)
    model = load_seq2seq(str(folder), device="cpu")
    assert type(model.model).__name__ == "T5ForConditionalGeneration"
    tokenizer = model.tokenizer
    assert (tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id) == (0, 1, 2)
    ids = tokenizer(f"paraphrase: {texts[0]} </s>")["input_ids"]
    assert ids[-2:] == [1, 1]  # the literal </s> is T5's end token, and the tokenizer adds one
    assert tokenizer.decode(tokenizer(texts[1])["input_ids"], skip_special_tokens=True) == texts[1]
    out = model.generate(texts[:2], do_sample=True, num_return=2, seeds=[0, 1], max_new_tokens=6).texts
    assert [len(row) for row in out] == [2, 2]


def test_same_arguments_same_files(tmp_path, texts):
    digests = []
    for name in ("a", "b"):
        folder = build_t5_model(tmp_path / name, texts, seed=3)
        digests.append(hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    other = build_t5_model(tmp_path / "c", texts, seed=4)
    assert hashlib.sha256((other / "model.safetensors").read_bytes()).hexdigest() != digests[0]


def test_training_gets_a_private_float32_copy_in_train_mode(tmp_path, texts):
    folder = build_t5_model(tmp_path / "t5", texts)
    shared = load_seq2seq(str(folder), device="cpu").model
    trainable, tokenizer = load_for_training(str(folder), device="cpu")
    assert trainable is not shared and trainable.training and not shared.training
    assert next(trainable.parameters()).dtype == torch.float32
    with torch.no_grad():
        next(trainable.parameters()).add_(1.0)
    assert not torch.equal(next(trainable.parameters()), next(shared.parameters()))


def test_the_vocabulary_is_padded_to_t5s_size_with_fillers_before_the_sentinels(tmp_path, texts):
    from augkit.testing import t5_base_shape

    folder = build_t5_model(tmp_path / "t5", texts, vocab_size=300, padded_vocab_size=1000, extra_ids=10)
    model = load_seq2seq(str(folder), device="cpu")
    tokenizer = model.tokenizer
    assert len(tokenizer) == model.model.config.vocab_size == 1000
    assert tokenizer.convert_tokens_to_ids([f"<extra_id_{i}>" for i in range(10)]) == list(range(990, 1000))
    assert tokenizer.decode(tokenizer(texts[1])["input_ids"], skip_special_tokens=True) == texts[1]  # fillers never needed
    assert tokenizer.decode([989]).startswith("filler")
    with pytest.raises(ValueError, match="smaller than"):
        build_t5_model(tmp_path / "small", texts, vocab_size=300, padded_vocab_size=50, extra_ids=10)
    shape = t5_base_shape()
    assert (shape["d_model"], shape["layers"], shape["heads"], shape["ffn_dim"], shape["padded_vocab_size"], shape["extra_ids"]) == (
        768, 12, 12, 3072, 32100, 100)
