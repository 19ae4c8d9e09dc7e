"""augkit.testing's BERT masked-LM, GPT-2 and pair-classifier builders: safetensors model
directories that load like a user's copy, tokenizers trained on the fly, reproducible."""

from __future__ import annotations

import hashlib
import json

import pytest

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from augkit.testing import (  # noqa: E402
    build_bert_masked_lm,
    build_gpt2_causal_lm,
    build_pair_classifier,
)

BUILDERS = [build_bert_masked_lm, build_gpt2_causal_lm, build_pair_classifier]


@pytest.fixture(scope="module")
def texts(banking77_sentences) -> list[str]:
    return banking77_sentences[:150]


def digest(folder) -> str:
    return hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()


@pytest.mark.parametrize("build", BUILDERS)
def test_same_arguments_same_weights_and_safetensors_only(tmp_path, texts, build):
    first, second = build(tmp_path / "a", texts, seed=3), build(tmp_path / "b", texts, seed=3)
    assert digest(first) == digest(second)
    assert digest(build(tmp_path / "c", texts, seed=4)) != digest(first)
    assert not list(first.glob("*.bin")) and (first / "config.json").is_file()


def test_bert_tokenizer_lowercases_and_keeps_the_mask_token(tmp_path, texts):
    tokenizer = transformers.AutoTokenizer.from_pretrained(build_bert_masked_lm(tmp_path / "bert", texts))
    ids = tokenizer("I LOST my [MASK]")["input_ids"]
    assert ids[0] == tokenizer.cls_token_id and ids[-1] == tokenizer.sep_token_id
    assert ids[-2] == tokenizer.mask_token_id
    assert tokenizer.decode(ids[1:-2]) == "i lost my"
    pair = tokenizer("a card", "my refund")
    assert set(pair["token_type_ids"]) == {0, 1}


def test_gpt2_tokenizer_round_trips_any_text(tmp_path, texts):
    tokenizer = transformers.AutoTokenizer.from_pretrained(build_gpt2_causal_lm(tmp_path / "gpt2", texts))
    for text in (*texts[:5], "naïve 💳 ¿dónde?"):
        assert tokenizer.decode(tokenizer(text)["input_ids"]) == text
    assert tokenizer.bos_token == tokenizer.eos_token == "<|endoftext|>"


@pytest.mark.parametrize("build", [build_bert_masked_lm, build_gpt2_causal_lm])
def test_a_padded_vocabulary_reaches_the_asked_size(tmp_path, texts, build):
    folder = build(tmp_path / "padded", texts, padded_vocab_size=1500)
    assert json.loads((folder / "config.json").read_text())["vocab_size"] == 1500
    assert len(transformers.AutoTokenizer.from_pretrained(folder)) == 1500


def test_pair_classifier_labels_and_refusals(tmp_path, texts):
    folder = build_pair_classifier(tmp_path / "nli", texts)
    config = json.loads((folder / "config.json").read_text())
    assert config["id2label"] == {"0": "entailment", "1": "neutral", "2": "contradiction"}
    for labels in (("only",), ("a", "a"), ("a", "")):
        with pytest.raises(ValueError, match="labels"):
            build_pair_classifier(tmp_path / "bad", texts, labels=labels)
