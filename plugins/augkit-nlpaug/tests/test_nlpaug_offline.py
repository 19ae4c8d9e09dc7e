"""What nlpaug would download: tags from the offline tagger, WordNet checked first, hub models
refused by name, and the model-backed mechanics on the project's tiny local models."""

from __future__ import annotations

import random

import pytest

import augkit
from augkit.plugin import ModelNotAvailableError
from augkit_nlpaug import BRIDGED
from augkit_nlpaug.offline import offline_pos_tagger


def test_synonyms_are_tagged_without_nltks_tagger(monkeypatch, banking77_texts, wordnet_for_nltk):
    import nltk

    def no_tagger_data(*args, **kwargs):
        raise LookupError("averaged_perceptron_tagger is not installed")

    monkeypatch.setattr(nltk, "pos_tag", no_tagger_data)
    method = BRIDGED["nlpaug.synonym"](aug_p=0.5)
    assert any(method.augment(text, 2, random.Random(0)) for text in banking77_texts[:5])


def test_the_offline_tagger_tags_each_token_once_like_nltk_pos_tag(banking77_texts):
    tag = offline_pos_tagger()
    for text in banking77_texts[:10]:
        tokens = text.split(" ")
        tagged = tag(tokens)
        assert [token for token, _ in tagged] == tokens
    assert dict(tag(["I", "want", "to", "book", "a", "flight"]))["flight"].startswith("NN")
    assert [token for token, _ in tag(["top", "", "up"])] == ["top", "", "up"]  # a blank token keeps its place


def test_missing_wordnet_is_refused_with_the_ways_to_provide_it(monkeypatch, tmp_path):
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(ModelNotAvailableError, match=r"nlpaug.antonym: .*make wordnet-for-nltk.*NLTK_DATA"):
        BRIDGED["nlpaug.antonym"]()


@pytest.mark.parametrize(
    "method, params, model, parameter",
    [
        ("nlpaug.contextual", {}, "bert-base-uncased", "model_path"),
        ("nlpaug.back_translation", {}, "facebook/wmt19-en-de", "from_model_name"),
        ("nlpaug.summarize", {}, "t5-base", "model_path"),
        ("nlpaug.contextual_sentence", {"model_path": "distilgpt2"}, "distilgpt2", "model_path"),
    ],
)
def test_hub_models_that_cannot_be_loaded_are_refused_naming_the_model(monkeypatch, method, params, model, parameter):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotAvailableError) as raised:
        augkit.get_registry().create_augmenter(method, params)
    message = str(raised.value)
    assert f"cannot load the model {model!r}" in message
    assert f"{parameter}=DIR" in message and "local folder" in message


def test_a_local_model_nlpaug_cannot_run_is_refused_naming_the_folder_and_transformers(tiny_masked_lm, banking77_texts):
    """nlpaug 1.1.11 takes a local folder, but its masked-LM code calls tokenizer methods
    that transformers 5 removed: the refusal says so instead of suggesting a download."""
    import transformers

    try:
        method = augkit.get_registry().create_augmenter("nlpaug.contextual", {"model_path": str(tiny_masked_lm), "top_k": 20})
    except ModelNotAvailableError as error:
        message = str(error)
        assert f"local folder {str(tiny_masked_lm)!r}" in message
        assert f"transformers {transformers.__version__}" in message
        assert "huggingface-cli download" not in message
    else:  # a transformers nlpaug can run: then the mechanics are checked for real
        texts = banking77_texts[:4]
        first = [method.augment(text, 2, random.Random(1)) for text in texts]
        assert any(first)
        assert [method.augment(text, 2, random.Random(1)) for text in texts] == first


@pytest.mark.slow
def test_back_translation_runs_two_local_translation_models(tiny_marian_pair, banking77_texts):
    """nlpaug's BackTranslationAug takes local folders and runs on this transformers: the tiny
    random Marian pair gives a round trip per row, the same whatever the batch."""
    forward, backward = tiny_marian_pair
    params = {"from_model_name": str(forward), "to_model_name": str(backward), "max_length": 20}
    texts = banking77_texts[:4]
    whole = augkit.augment(texts, "nlpaug.back_translation", n=1, seed=0, batch_size=4, **params)
    assert all(len(row) == 1 and row[0] != text for row, text in zip(whole, texts))
    assert augkit.augment(texts, "nlpaug.back_translation", n=1, seed=0, batch_size=1, **params) == whole
