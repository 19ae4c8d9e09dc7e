"""augkit.testing.marian: random MarianMT models that load like a local opus-mt copy."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from augkit.testing import build_marian_model, build_marian_pair, opus_mt_shape

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("sentencepiece")
safetensors_torch = pytest.importorskip("safetensors.torch")


@pytest.fixture(scope="module")
def banking_texts(shared_data) -> list[str]:
    return (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()


def load(folder: Path):
    model, info = transformers.AutoModelForSeq2SeqLM.from_pretrained(
        folder, use_safetensors=True, trust_remote_code=False, output_loading_info=True
    )
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    return model, info, tokenizer


def weights(folder: Path) -> dict:
    return safetensors_torch.load_file(folder / "model.safetensors")


def test_pair_is_named_for_its_directions(tiny_marian_pair):
    forward, backward = tiny_marian_pair
    assert (forward.name, backward.name) == ("en-xx", "xx-en")
    assert forward.parent == backward.parent


def test_pair_passes_model_arguments_to_both_directions(banking_texts, tmp_path):
    forward, backward = build_marian_pair(tmp_path, banking_texts[:200], pivot="de", d_model=16, seed=7)
    assert (forward, backward) == (tmp_path / "en-de", tmp_path / "de-en")
    for folder in (forward, backward):
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        assert config["d_model"] == 16
    alone = build_marian_model(tmp_path / "alone", banking_texts[:200], d_model=16, seed=8)
    assert (alone / "model.safetensors").read_bytes() == (backward / "model.safetensors").read_bytes()


@pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")
def test_pair_loads_like_a_local_opus_mt_copy(tiny_marian_pair):
    for folder in tiny_marian_pair:
        assert (folder / "model.safetensors").is_file()
        assert not (folder / "pytorch_model.bin").exists()
        for name in ("config.json", "generation_config.json", "source.spm", "target.spm", "vocab.json"):
            assert (folder / name).is_file(), name
        model, info, tokenizer = load(folder)
        assert type(model).__name__ == "MarianMTModel"
        assert type(tokenizer).__name__ == "MarianTokenizer"
        assert not info["missing_keys"] and not info["unexpected_keys"] and not info["mismatched_keys"]
        vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
        # opus-mt's layout: </s> first, <unk> second, <pad> last (and the decoder start).
        assert vocab["</s>"] == 0 and vocab["<unk>"] == 1 and vocab["<pad>"] == len(vocab) - 1
        assert sorted(vocab.values()) == list(range(len(vocab)))
        assert (tokenizer.eos_token_id, tokenizer.pad_token_id) == (0, len(vocab) - 1)
        config = model.config
        assert config.vocab_size == len(vocab) == len(tokenizer)
        assert config.decoder_start_token_id == config.pad_token_id == len(vocab) - 1
        assert config.eos_token_id == config.forced_eos_token_id == 0
        assert config.max_position_embeddings == tokenizer.model_max_length == 64
        assert model.get_input_embeddings().weight.shape == (len(vocab), 32)


@pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")
def test_tokenizer_round_trips_banking77_and_ends_with_eos(tiny_marian_pair, banking_texts):
    _, _, tokenizer = load(tiny_marian_pair[0])
    for text in banking_texts[:50]:
        ids = tokenizer(text).input_ids
        assert ids[-1] == tokenizer.eos_token_id
        assert tokenizer.unk_token_id not in ids, text
        # SentencePiece's NFKC normalisation collapses runs of whitespace, nothing else here.
        assert tokenizer.decode(ids, skip_special_tokens=True) == " ".join(text.split())


@pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")
def test_long_inputs_are_not_truncated_for_the_caller(tiny_marian_pair, banking_texts):
    _, _, tokenizer = load(tiny_marian_pair[0])
    ids = tokenizer(" ".join(banking_texts[:10])).input_ids
    assert len(ids) > tokenizer.model_max_length == 64


@pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")
def test_generate_stays_within_max_new_tokens(tiny_marian_pair, banking_texts):
    model, _, tokenizer = load(tiny_marian_pair[0])
    assert model.generation_config.num_beams == 4
    limit = model.generation_config.max_new_tokens
    assert limit == 16
    batch = tokenizer(banking_texts[:3], return_tensors="pt", padding=True)
    with torch.no_grad():
        out = model.generate(**batch)
    assert out.shape[0] == 3
    assert 1 < out.shape[1] <= 1 + limit
    assert (out[:, 0] == model.config.decoder_start_token_id).all()
    texts = tokenizer.batch_decode(out, skip_special_tokens=True)
    assert all(isinstance(text, str) and text for text in texts)


def test_the_two_directions_share_a_tokenizer_but_not_weights(tiny_marian_pair):
    forward, backward = tiny_marian_pair
    for name in ("source.spm", "target.spm", "vocab.json"):
        assert (forward / name).read_bytes() == (backward / name).read_bytes(), name
    first, second = weights(forward), weights(backward)
    assert first.keys() == second.keys()
    learned = [key for key in first if key.endswith(".weight") and "layer_norm" not in key and "positions" not in key]
    assert learned
    assert all(not torch.equal(first[key], second[key]) for key in learned)


def test_same_seed_gives_identical_files_and_leaves_global_rng_alone(banking_texts, tmp_path):
    texts = banking_texts[:1000]
    before = torch.random.get_rng_state()
    one = build_marian_model(tmp_path / "one", texts, seed=3)
    two = build_marian_model(tmp_path / "two", texts, seed=3)
    assert torch.equal(torch.random.get_rng_state(), before)
    first, second = weights(one), weights(two)
    assert first.keys() == second.keys()
    assert all(torch.equal(first[key], second[key]) for key in first)
    for name in ("model.safetensors", "source.spm", "vocab.json", "config.json", "generation_config.json"):
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    other = weights(build_marian_model(tmp_path / "other", texts, seed=4))
    assert not torch.equal(first["model.shared.weight"], other["model.shared.weight"])


@pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")
def test_padded_vocabulary_has_the_requested_rows_and_fillers_decode(banking_texts, tmp_path):
    folder = build_marian_model(tmp_path / "padded", banking_texts[:1000], padded_vocab_size=1000)
    model, _, tokenizer = load(folder)
    assert model.get_input_embeddings().weight.shape[0] == 1000
    assert model.lm_head.weight.shape[0] == 1000
    assert len(tokenizer) == 1000 and tokenizer.pad_token_id == 999
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    fillers = {index for piece, index in vocab.items() if piece.startswith("▁tok")}
    assert fillers and max(fillers) == 998
    assert tokenizer.decode([min(fillers), max(fillers)]) == f"tok{min(fillers)} tok998"
    with torch.no_grad():
        out = model.generate(**tokenizer(banking_texts[:3], return_tensors="pt", padding=True))
    assert fillers & set(out.flatten().tolist()), "random weights should pick some filler ids"
    assert all(isinstance(text, str) for text in tokenizer.batch_decode(out, skip_special_tokens=True))
    assert isinstance(tokenizer.decode(list(range(1000))), str)


def test_padded_vocab_size_smaller_than_the_trained_vocabulary_is_refused(banking_texts, tmp_path):
    with pytest.raises(ValueError, match="padded_vocab_size=10"):
        build_marian_model(tmp_path / "small", banking_texts[:200], padded_vocab_size=10)


def test_a_handful_of_texts_is_enough(tmp_path):
    texts = ["i lost my card", "where is my refund?", "my card was declined"]
    folder = build_marian_model(tmp_path / "few", texts, vocab_size=400)
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    assert 3 < len(vocab) < 400


def test_generation_settings_are_merged_over_the_defaults(banking_texts, tmp_path):
    folder = build_marian_model(
        tmp_path / "bench", banking_texts[:200], generation={"min_new_tokens": 5, "max_new_tokens": 5}
    )
    settings = json.loads((folder / "generation_config.json").read_text(encoding="utf-8"))
    assert (settings["num_beams"], settings["min_new_tokens"], settings["max_new_tokens"]) == (4, 5, 5)
    assert settings["bad_words_ids"] == [[settings["pad_token_id"]]]


def test_opus_mt_shape_is_opus_mt_en_de():
    shape = opus_mt_shape()
    assert shape == {
        "d_model": 512, "layers": 6, "heads": 8, "ffn_dim": 2048,
        "max_positions": 512, "padded_vocab_size": 58101,
    }
    assert set(shape) <= set(inspect.signature(build_marian_model).parameters)
    assert opus_mt_shape() is not shape  # a fresh dict each call, safe to modify
