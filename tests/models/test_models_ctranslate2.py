"""The CTranslate2 engine of the seq2seq runtime: converted once into augkit's cache and
reused (a changed model converted again, a converted folder used as it is, a failed
conversion leaving nothing), outputs independent of the batch, scores equal to the
transformers engine's in float32, per-input bans and length limits kept, sampling seeded by
each row's seed (augkit's own draws on CTranslate2's logits, top-k and top-p as transformers
computes them); on the tiny random Marian and T5 models."""

from __future__ import annotations

import math
from pathlib import Path

import ctranslate2  # noqa: F401 (part of the test install: a missing one fails here, never skips)
import pytest

from augkit.errors import InvalidParameterError
from augkit.models import clear_model_cache, load_seq2seq
from augkit.testing import build_marian_model


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch) -> Path:
    """Each test converts into its own cache, and loads afresh."""
    monkeypatch.setenv("AUGKIT_CACHE_DIR", str(tmp_path / "cache"))
    clear_model_cache()
    yield tmp_path / "cache" / "ctranslate2"
    clear_model_cache()


@pytest.fixture(scope="module")
def texts(shared_data) -> list[str]:
    return (shared_data / "banking77" / "jianguoz" / "test" / "seq.in").read_text().splitlines()[:48]


@pytest.fixture(scope="module")
def forward_model(tiny_marian_pair) -> Path:
    return tiny_marian_pair[0]


def test_a_model_is_converted_once_and_a_changed_model_again(forward_model, texts, own_cache, tmp_path, monkeypatch):
    from ctranslate2.converters import TransformersConverter

    conversions = []
    convert = TransformersConverter.convert
    monkeypatch.setattr(TransformersConverter, "convert", lambda self, *a, **k: conversions.append(1) or convert(self, *a, **k))
    first = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type="int8")
    outputs = first.generate(texts[:8]).texts
    clear_model_cache()
    again = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type="int8")
    assert again is not first and again.generate(texts[:8]).texts == outputs
    assert len(conversions) == 1 and [p.name.rsplit("-", 1)[-1] for p in own_cache.iterdir()] == ["int8"]
    load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type="float32")
    assert len(conversions) == 2 and sorted(p.name.rsplit("-", 1)[-1] for p in own_cache.iterdir()) == ["float32", "int8"]
    changed = build_marian_model(tmp_path / "changed", texts * 4, max_positions=64, init_std=1.0, seed=1)
    load_seq2seq(changed, device="cpu", runtime="ctranslate2", compute_type="int8")
    assert len(conversions) == 3, "another model's files: another digest, another conversion"
    converted = next(p for p in own_cache.iterdir() if p.name.startswith("changed") is False and p.name.endswith("int8"))
    clear_model_cache()
    direct = load_seq2seq(converted, device="cpu", runtime="ctranslate2", compute_type="int8")
    assert direct.generate(texts[:8]).texts == outputs and len(conversions) == 3, "a converted folder is used as it is"


def test_a_failed_conversion_leaves_nothing_a_later_run_would_trust(forward_model, own_cache, monkeypatch):
    from ctranslate2.converters import TransformersConverter

    def broken(self, output_dir, **options):
        Path(output_dir).mkdir(parents=True)
        (Path(output_dir) / "model.bin").write_bytes(b"half")
        raise RuntimeError("killed mid-conversion")

    with monkeypatch.context() as patched:
        patched.setattr(TransformersConverter, "convert", broken)
        with pytest.raises(RuntimeError, match="killed mid-conversion"):
            load_seq2seq(forward_model, device="cpu", runtime="ctranslate2")
    assert list(own_cache.iterdir()) == []
    assert load_seq2seq(forward_model, device="cpu", runtime="ctranslate2").generate(["where is my card?"]).texts[0]


@pytest.mark.parametrize("compute_type", ["float32", "int8"])
def test_outputs_do_not_depend_on_the_batch(forward_model, texts, compute_type):
    model = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type=compute_type)
    together = model.generate(texts, num_beams=4, num_return=2).texts
    assert [model.generate([text], num_beams=4, num_return=2).texts[0] for text in texts] == together
    assert model.generate(texts, num_beams=4, num_return=2, token_budget=64).texts == together
    assert all(len(outputs) == 2 for outputs in together)


def test_float32_beam_search_mostly_matches_the_transformers_engine(forward_model, texts):
    reference = load_seq2seq(forward_model, device="cpu").generate(texts, num_beams=4).texts
    converted = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type="float32").generate(texts, num_beams=4).texts
    same = sum(a == b for a, b in zip(reference, converted))
    assert same >= 0.9 * len(texts), f"{same} of {len(texts)} identical"


def test_marian_scores_equal_the_transformers_engine_without_the_padding_token(forward_model, texts):
    """CTranslate2 drops Marian's padding token from the vocabulary (it can never be
    generated), so its probabilities are renormalised over the other tokens: equal to the
    transformers engine's with that one logit removed."""
    import torch

    converted = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type="float32")
    scores = converted.score(texts[:16], texts[16:32])
    reference = load_seq2seq(forward_model, device="cpu")
    pad = reference.tokenizer.pad_token_id
    for source, target, score in zip(texts[:16], texts[16:32], scores):
        encoded = reference.tokenizer([source], text_target=[target], return_tensors="pt")
        with torch.inference_mode():
            logits = reference.model(**encoded).logits[0].double()
            logits[:, pad] = -math.inf
            labels = encoded["labels"][0]
            expected = torch.log_softmax(logits, dim=-1).gather(1, labels.unsqueeze(1)).sum().item()
        assert score.logprob == pytest.approx(expected, abs=1e-3) and score.tokens == len(labels)


def test_t5_scores_and_outputs_follow_the_transformers_engine(tiny_t5, quora_pairs):
    sources, targets = quora_pairs["source"].tolist()[:20], quora_pairs["target"].tolist()[:20]
    reference = load_seq2seq(tiny_t5, device="cpu")
    converted = load_seq2seq(tiny_t5, device="cpu", runtime="ctranslate2", compute_type="float32")
    for ours, theirs in zip(converted.score(sources, targets), reference.score(sources, targets)):
        assert ours.logprob == pytest.approx(theirs.logprob, abs=1e-3) and ours.tokens == theirs.tokens
    generated = converted.generate(sources, num_beams=2, max_new_tokens=12).texts
    assert sum(a == b for a, b in zip(generated, reference.generate(sources, num_beams=2, max_new_tokens=12).texts)) >= 18


def test_per_input_bans_and_length_limits_are_kept(forward_model, texts, monkeypatch):
    model = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type="int8")
    seeds = list(range(len(texts)))
    banned = model.forbidden_unigrams(texts, 0.7, seeds=seeds)
    decoded: dict[str, set[int]] = {}  # each output and the token ids the decoder produced for it
    decode = model._decode
    monkeypatch.setattr(model, "_decode", lambda tokens, skip: decoded.setdefault(
        decode(tokens, skip), set()).update(model.tokenizer.convert_tokens_to_ids(tokens)) or decode(tokens, skip))
    plain = model.generate(texts, num_beams=2).texts
    assert sum(bool(set(bans) & decoded[output]) for bans, (output,) in zip(banned, plain)) > 0, "else this could not fail"
    decoded.clear()
    outputs = model.generate(texts, num_beams=2, forbid_source_unigrams=0.7, seeds=seeds).texts
    assert not any(set(bans) & decoded[output] for bans, (output,) in zip(banned, outputs))
    monkeypatch.undo()
    assert [model.generate([t], num_beams=2, forbid_source_unigrams=0.7, seeds=[s]).texts[0]
            for t, s in zip(texts[:12], seeds[:12])] == outputs[:12]
    lengths = [len(model.tokenizer(o[0])["input_ids"]) - 1 for o in model.generate(texts, min_new_tokens=10, max_new_tokens=12).texts]
    assert min(lengths) >= 9 and max(lengths) <= 12
    produced: list[int] = []  # min = max = 12: 11 tokens and the forced end, as the transformers engine writes
    monkeypatch.setattr(model, "_decode", lambda tokens, skip: produced.append(len(tokens)) or decode(tokens, skip))
    model.generate(texts[:16], min_new_tokens=12, max_new_tokens=12)
    assert produced == [11] * 16


@pytest.mark.parametrize("compute_type", ["float32", "int8"])
def test_samples_follow_each_rows_seed_whatever_the_batch(forward_model, texts, compute_type):
    model = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type=compute_type)
    rows, seeds = texts[:8], list(range(100, 108))
    together = model.generate(rows, do_sample=True, num_return=3, seeds=seeds, max_new_tokens=10).texts
    assert all(len(outputs) == 3 for outputs in together)
    assert model.generate(rows[2:5], do_sample=True, num_return=3, seeds=seeds[2:5], max_new_tokens=10).texts == together[2:5]
    assert model.generate(rows, do_sample=True, num_return=3, seeds=seeds, max_new_tokens=10).texts == together
    other_seeds = model.generate(rows, do_sample=True, num_return=3, seeds=[s + 1 for s in seeds], max_new_tokens=10).texts
    assert other_seeds != together
    assert sum(len(set(outputs)) for outputs in together) > len(rows), "the three samples of a row differ"


def test_sampling_from_the_likeliest_token_only_is_greedy_search(forward_model, texts):
    model = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type="float32")
    greedy = model.generate(texts[:16], num_beams=1).texts
    assert model.generate(texts[:16], do_sample=True, top_k=1, seeds=list(range(16))).texts == greedy
    assert model.generate(texts[:16], do_sample=True, top_p=1e-9, seeds=list(range(16))).texts == greedy


@pytest.mark.parametrize(("top_k", "top_p", "temperature"), [(None, 1.0, 1.0), (5, 1.0, 1.0), (None, 0.9, 1.0), (50, 0.8, 0.7)])
def test_the_sampling_distribution_is_transformers_one(top_k, top_p, temperature):
    import numpy as np
    import torch
    from transformers.generation.logits_process import (
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    from augkit.models.ct2_sampling import SamplingSettings, next_token_probabilities

    logits = np.random.default_rng(7).normal(scale=3.0, size=(6, 400))
    settings = SamplingSettings(top_k=top_k, top_p=top_p, temperature=temperature, max_new=8, min_new=0, end_token="</s>",
                                forced_end=False)
    warped = torch.tensor(logits)
    for warper in [TemperatureLogitsWarper(temperature), *([TopKLogitsWarper(top_k)] if top_k else []),
                   *([TopPLogitsWarper(top_p)] if top_p < 1 else [])]:
        warped = warper(None, warped)
    expected = torch.softmax(warped, dim=-1).numpy()
    ours = np.stack([next_token_probabilities(row, settings) for row in logits])
    np.testing.assert_allclose(ours, expected, atol=1e-9)
    assert ((ours > 0).sum(axis=1) < 400).all() == (top_k is not None or top_p < 1)


def test_wrong_settings_and_long_inputs_are_explained(forward_model, texts):
    model = load_seq2seq(forward_model, device="cpu", runtime="ctranslate2")
    with pytest.raises(InvalidParameterError, match="compute_type must be one of auto, int8"):
        load_seq2seq(forward_model, device="cpu", runtime="ctranslate2", compute_type="int4")
    with pytest.raises(InvalidParameterError, match="runtime must be one of transformers, ctranslate2"):
        load_seq2seq(forward_model, device="cpu", runtime="onnx")
    long = " ".join(texts[:12])
    with pytest.warns(RuntimeWarning, match="split into sentences"):
        result = model.generate([long, texts[0]])
    assert result.split == [0] and result.texts[1] == model.generate([texts[0]]).texts[0]
