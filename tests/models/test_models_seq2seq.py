"""The seq2seq runtime on tiny random Marian models: batched generation returns each
input's own outputs whatever the batching, long inputs are split and rejoined, truncation
is reported, sampling is reproducible per seed, and teacher-forced scores are the model's
own log-probabilities."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from augkit.errors import InvalidParameterError  # noqa: E402
from augkit.models import clear_model_cache, load_seq2seq  # noqa: E402


@pytest.fixture(scope="module")
def forward_model(tiny_marian_pair):
    return load_seq2seq(str(tiny_marian_pair[0]), device="cpu")


@pytest.fixture(scope="module")
def sentences(banking77_sentences):
    return banking77_sentences[:40]


def test_models_are_loaded_once_per_process_and_device(tiny_marian_pair, forward_model):
    assert load_seq2seq(str(tiny_marian_pair[0]), device="cpu") is forward_model
    assert load_seq2seq(str(tiny_marian_pair[1]), device="cpu") is not forward_model


def test_generation_returns_each_inputs_own_outputs_in_input_order(forward_model, sentences):
    one_by_one = [forward_model.generate([text], num_beams=4, num_return=2).texts[0] for text in sentences]
    assert len({tuple(outputs) for outputs in one_by_one}) > len(sentences) // 2  # the outputs depend on the input
    for budget in (64, 512, 100_000):
        batched = forward_model.generate(sentences, num_beams=4, num_return=2, token_budget=budget).texts
        assert batched == one_by_one
    reversed_order = forward_model.generate(sentences[::-1], num_beams=4, num_return=2).texts
    assert reversed_order == one_by_one[::-1]


def test_beam_search_returns_num_return_sequences_and_empty_inputs_get_none(forward_model, sentences):
    result = forward_model.generate([sentences[0], "", "   ", sentences[1]], num_beams=4, num_return=3)
    assert [len(outputs) for outputs in result.texts] == [3, 0, 0, 3]
    assert all(isinstance(text, str) for outputs in result.texts for text in outputs)


def test_more_returned_sequences_than_beams_is_refused(forward_model):
    from augkit.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="num_beams"):
        forward_model.generate(["hello"], num_beams=2, num_return=3)


def test_a_long_input_is_split_into_sentences_translated_piecewise_and_rejoined(forward_model, sentences):
    long_text = " ".join(sentences[:12])
    assert len(forward_model.tokenizer(long_text)["input_ids"]) > forward_model.max_input_tokens
    from augkit.models.long_inputs import pack_pieces

    pieces = pack_pieces(long_text, forward_model.max_input_tokens, forward_model._count_tokens)
    expected = [
        " ".join(forward_model.generate([piece.text], num_beams=2, num_return=2).texts[0][i] for piece in pieces)
        for i in range(2)
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = forward_model.generate([sentences[0], long_text], num_beams=2, num_return=2)
    assert len(pieces) > 1 and result.split == [1] and result.truncated == []
    assert result.texts[1] == expected
    assert any("1 of 2 inputs were longer than 64 tokens and were split into sentences" in str(w.message) for w in caught)


def test_a_sentence_longer_than_the_limit_is_cut_and_reported(forward_model, sentences):
    run_on = " and ".join(s.rstrip(".?!") for s in sentences[:10])  # one sentence, far over 64 tokens
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = forward_model.generate([run_on], num_beams=2, num_return=1)
    assert result.truncated == [0] and len(result.texts[0]) == 1
    assert any("cut to its first 64 tokens" in str(w.message) for w in caught)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        forward_model.generate([run_on], num_beams=2, long_inputs="truncate")
    assert any("cut to its first 64 tokens" in str(w.message) for w in caught)


def test_teacher_forced_score_is_the_models_own_sequence_log_probability(forward_model, sentences):
    sources, targets = sentences[:5], sentences[5:10]
    scores = forward_model.score(sources, targets)
    tokenizer, model = forward_model.tokenizer, forward_model.model
    for source, target, score in zip(sources, targets, scores, strict=True):
        batch = tokenizer([source], text_target=[target], return_tensors="pt")
        with torch.no_grad():
            loss = model(**batch).loss  # mean cross-entropy over the target's tokens
        tokens = batch["labels"].shape[1]
        assert score.tokens == tokens
        assert score.logprob == pytest.approx(-float(loss) * tokens, rel=1e-4)
    reversed_scores = forward_model.score(sources[::-1], targets[::-1], token_budget=16)
    assert [s.logprob for s in reversed_scores] == pytest.approx([s.logprob for s in scores[::-1]], rel=1e-5)


def test_the_best_beam_scores_at_least_as_high_as_a_lower_beam(forward_model, sentences):
    outputs = forward_model.generate(sentences[:10], num_beams=4, num_return=4).texts
    firsts = forward_model.score(sentences[:10], [o[0] for o in outputs])
    lasts = forward_model.score(sentences[:10], [o[-1] for o in outputs])
    assert sum(f.logprob >= l.logprob - 1e-3 for f, l in zip(firsts, lasts, strict=True)) >= 8


def test_sampling_is_reproducible_per_seed_whatever_the_batch_and_leaves_global_rng_alone(forward_model, sentences):
    seeds = list(range(100, 110))
    state = torch.random.get_rng_state()
    batched = forward_model.generate(sentences[:10], do_sample=True, top_p=0.9, num_return=3, seeds=seeds).texts
    assert torch.equal(state, torch.random.get_rng_state())
    single = [forward_model.generate([t], do_sample=True, top_p=0.9, num_return=3, seeds=[s]).texts[0] for t, s in zip(sentences[:10], seeds)]
    assert batched == single
    other = forward_model.generate(sentences[:10], do_sample=True, top_p=0.9, num_return=3, seeds=[s + 1 for s in seeds]).texts
    assert other != batched


def test_clearing_the_cache_loads_a_fresh_model(tiny_marian_pair, forward_model):
    clear_model_cache()
    assert load_seq2seq(str(tiny_marian_pair[0]), device="cpu") is not forward_model


def test_top_k_restricts_sampling_and_bad_values_are_refused(forward_model, sentences):
    greedy = forward_model.generate(sentences[:4], do_sample=True, top_k=1, num_return=4, seeds=[1, 2, 3, 4]).texts
    assert all(len(set(row)) == 1 for row in greedy)  # only the likeliest token at each step
    beam_one = forward_model.generate(sentences[:4], num_beams=1, num_return=1).texts
    assert [row[0] for row in greedy] == [row[0] for row in beam_one]
    with pytest.raises(InvalidParameterError, match="top_k must be an integer >= 0"):
        forward_model.generate(sentences[:1], do_sample=True, top_k=-3, seeds=[0])
