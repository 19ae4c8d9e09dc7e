"""What nlpaug would download: tags from the offline tagger, WordNet checked first, hub models
refused by name, and the model-backed mechanics on the project's tiny local models."""

from __future__ import annotations

import random

import pytest
from augkit_nlpaug import BRIDGED
from augkit_nlpaug.offline import offline_pos_tagger, require_wordnet

import augkit
from augkit.plugin import ModelNotAvailableError


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
    # the pattern tagger un-escapes "&slash;" in what it returns: nlpaug must get its own token back
    assert [token for token, _ in tag(["pay", "a&slash;b"])] == ["pay", "a&slash;b"]


def test_missing_wordnet_is_refused_with_the_ways_to_provide_it(monkeypatch, tmp_path):
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(ModelNotAvailableError, match=r"nlpaug.antonym: .*make wordnet-for-nltk.*NLTK_DATA"):
        BRIDGED["nlpaug.antonym"]()


def test_wordnet_is_looked_up_once_per_search_path_and_refused_where_it_is_missing(monkeypatch, tmp_path, wordnet_for_nltk):
    import nltk

    lookups = []
    find = nltk.data.find
    monkeypatch.setattr(nltk.data, "find", lambda resource, *args: lookups.append(resource) or find(resource, *args))
    monkeypatch.setattr(nltk.data, "path", [*nltk.data.path, str(tmp_path)])  # a search path not yet seen
    require_wordnet("nlpaug.synonym")
    require_wordnet("nlpaug.antonym")
    assert lookups == ["corpora/wordnet"]
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    for _ in range(2):
        looked_up = len(lookups)
        with pytest.raises(ModelNotAvailableError, match="nlpaug.synonym: nlpaug reads WordNet through NLTK, and NLTK finds no WordNet"):
            require_wordnet("nlpaug.synonym")
        assert len(lookups) > looked_up  # looked for again: a missing WordNet is not remembered


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
    assert message.startswith(f"{method} needs ") and f"{model!r} (" in message and f"; set by {parameter})" in message
    assert f"e.g. {parameter}=/path/to/folder" in message and "local folder" in message


def test_both_translation_models_are_named_at_once():
    """BackTranslationAug loads two models: both missing, both named in one error, before
    nlpaug tries the first (which took a minute of the hub's retries)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        with pytest.raises(ModelNotAvailableError) as raised:
            augkit.get_registry().create_augmenter("nlpaug.back_translation", {
                "from_model_name": "augkit-tests/no-en-de", "to_model_name": "augkit-tests/no-de-en"})
    message = str(raised.value)
    assert message.startswith("nlpaug.back_translation needs 2 models that are not available here:")
    assert "set by from_model_name" in message and "set by to_model_name" in message


def test_a_masked_lm_substitutes_words_the_same_for_the_same_seed_whatever_the_batch(tiny_masked_lm, banking77_texts):
    """nlpaug's contextual substitution runs through transformers' fill-mask pipeline (its own
    BERT wrapper calls a tokenizer method transformers 5 removed): on the tiny BERT each row
    gets substitutions of its words, the same at batch sizes 1 and 4 for a seed."""
    params = {"model_path": str(tiny_masked_lm), "top_k": 20}
    texts = banking77_texts[:4]
    whole = augkit.augment(texts, "nlpaug.contextual", n=2, seed=0, batch_size=4, **params)
    assert whole == augkit.augment(texts, "nlpaug.contextual", n=2, seed=0, batch_size=1, **params)
    assert all(row for row in whole)
    for text, row in zip(texts, whole):
        for output in row:  # nlpaug's tokenizer re-spaces "hasn't" as "hasn ' t": compare words
            assert set(output.split()) - set(text.split()), output
    assert augkit.augment(texts, "nlpaug.contextual", n=2, seed=1, batch_size=4, **params) != whole


def test_a_local_model_nlpaug_cannot_run_is_refused_naming_the_folder_and_transformers(tiny_masked_lm, monkeypatch):
    """A local folder nlpaug fails on is not a download problem: the refusal names the folder,
    what nlpaug raised and the transformers it runs on, and suggests no download."""
    import nlpaug.model.lang_models as nml
    import transformers

    def broken(*args, **kwargs):
        raise AttributeError("TokenizersBackend has no attribute _convert_token_to_id")

    monkeypatch.setattr(nml, "FmTransformers", broken)
    with pytest.raises(ModelNotAvailableError) as raised:
        augkit.get_registry().create_augmenter("nlpaug.contextual", {"model_path": str(tiny_masked_lm)})
    message = str(raised.value)
    assert f"local folder {str(tiny_masked_lm)!r}" in message
    assert "_convert_token_to_id" in message and f"transformers {transformers.__version__}" in message
    assert "hf download" not in message


@pytest.mark.slow
def test_back_translation_runs_two_local_translation_models(tiny_marian_pair, banking77_texts):
    """nlpaug's BackTranslationAug takes local folders and runs on this transformers: the tiny
    random Marian pair gives a round trip per row, the same whatever the batch."""
    forward, backward = tiny_marian_pair
    params = {"from_model_name": str(forward), "to_model_name": str(backward), "max_new_tokens": 20}
    texts = banking77_texts[:4]
    whole = augkit.augment(texts, "nlpaug.back_translation", n=1, seed=0, batch_size=4, **params)
    assert all(len(row) == 1 and row[0] != text for row, text in zip(whole, texts))
    assert augkit.augment(texts, "nlpaug.back_translation", n=1, seed=0, batch_size=1, **params) == whole


@pytest.fixture(scope="module")
def causal_lm_128(banking77_texts, tmp_path_factory):
    """The project's tiny GPT-2 with 128 positions: nlpaug's continuation runs past the
    64 of the shared fixture."""
    from augkit.testing import build_gpt2_causal_lm

    return build_gpt2_causal_lm(tmp_path_factory.mktemp("gpt2-128") / "tiny-gpt2", banking77_texts, max_positions=128)


def test_a_model_family_nlpaug_cannot_read_from_the_folder_name_asks_for_model_type(causal_lm_128, tmp_path):
    """nlpaug reads GPT-2 or XLNet from model_path's name; a folder named otherwise used to
    fail deep inside nlpaug with "Model name value is unexpected", blamed on transformers."""
    import shutil

    from augkit.plugin import InvalidParameterError

    folder = shutil.copytree(causal_lm_128, tmp_path / "causal-lm")
    with pytest.raises(InvalidParameterError, match=r"nlpaug.contextual_sentence: model_type is empty .*causal-lm'.* "
                                                    r"pass model_type='gpt2' or model_type='xlnet'"):
        augkit.get_registry().create_augmenter("nlpaug.contextual_sentence", {"model_path": str(folder)})
    with pytest.raises(InvalidParameterError, match=r"model_type='distilgpt2' is not one nlpaug runs here: pass model_type='gpt2'"):
        augkit.get_registry().create_augmenter("nlpaug.contextual_sentence", {"model_path": str(folder), "model_type": "distilgpt2"})
    method = augkit.get_registry().create_augmenter(
        "nlpaug.contextual_sentence", {"model_path": str(folder), "model_type": "gpt2", "min_new_tokens": 5, "max_new_tokens": 20})
    assert method.augment("I am still waiting on my card?", 1, random.Random(0))


def test_a_causal_lm_continues_each_text_the_same_for_the_same_seed(causal_lm_128, banking77_texts):
    """nlpaug's sentence continuation on the tiny GPT-2: every output starts with its text
    (nlpaug appends), and a row's outputs depend on its seed only, not on the batch."""
    params = {"model_path": str(causal_lm_128), "min_new_tokens": 5, "max_new_tokens": 20}
    texts = banking77_texts[:4]
    whole = augkit.augment(texts, "nlpaug.contextual_sentence", n=1, seed=3, batch_size=4, **params)
    alone = augkit.augment(texts, "nlpaug.contextual_sentence", n=1, seed=3, batch_size=1, **params)
    assert whole == alone
    assert all(len(row) == 1 and row[0].startswith(text.rstrip()) and row[0] != text for row, text in zip(whole, texts))
    assert augkit.augment(texts, "nlpaug.contextual_sentence", n=1, seed=4, batch_size=4, **params) != whole


def test_a_summary_is_kept_up_to_its_last_sentence_end_and_no_row_is_lost(tiny_t5, banking77_texts):
    """nlpaug keeps a summary only up to its last sentence end (., !, ?) and gives nothing
    for a summary without one; the tiny random T5 ends some and not others: the rows
    without a summary keep their originals and count as not augmented."""
    import pandas as pd

    frame = pd.DataFrame({"text": banking77_texts[:6], "label": list("abcdef")})
    params = {"model_path": str(tiny_t5), "tokenizer_path": str(tiny_t5), "min_new_tokens": 3, "max_new_tokens": 10}
    out, report = augkit.augment_with_report(frame, "nlpaug.summarize", n=1, seed=0, **params)
    originals = out[out["augkit_method"].isna()]
    assert originals[["text", "label"]].values.tolist() == frame.values.tolist()
    augmented = out[out["augkit_method"] == "nlpaug.summarize"]
    assert all(text.rstrip()[-1] in ".!?" for text in augmented["text"])
    assert report.rows_augmented == augmented["augkit_source"].nunique()
    assert sum(report.without_augmentation.values()) == len(frame) - report.rows_augmented


def test_each_instance_has_its_own_model_and_settings(causal_lm_128, banking77_texts, tmp_path):
    """nlpaug caches models by the folder's base name and rewrites a cached model's settings
    for each new augmenter; the bridge loads a model per instance: a second instance with
    other settings leaves the first one's outputs alone, and a folder of the same name
    elsewhere is its own model."""
    from augkit.testing import build_gpt2_causal_lm

    text = banking77_texts[0]
    registry = augkit.get_registry()
    first = registry.create_augmenter("nlpaug.contextual_sentence", {"model_path": str(causal_lm_128), "top_k": 50})
    before = first.augment(text, 1, random.Random(5))
    registry.create_augmenter("nlpaug.contextual_sentence", {"model_path": str(causal_lm_128), "top_k": 2, "top_p": 0.5})
    assert first.augment(text, 1, random.Random(5)) == before
    namesake = build_gpt2_causal_lm(tmp_path / "tiny-gpt2", banking77_texts, max_positions=128, seed=1)
    other = registry.create_augmenter("nlpaug.contextual_sentence", {"model_path": str(namesake)})
    assert other._nlpaug.model.model_path == str(namesake)
    assert first._nlpaug.model.model_path == str(causal_lm_128)
