"""Bart-uni (ProtAugment's diverse decoding) in the seq2seq runtime, on tiny random Marian and
T5 models: with probability 1 no output holds a token of its source (checked on the generated
ids), with 0 generation is the plain path, an input's forbidden tokens and outputs depend on
its seed alone (not on the batch, its size or its order), special tokens are never forbidden,
and a bad probability is refused by name."""

from __future__ import annotations

import math
import warnings
from contextlib import contextmanager

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from augkit.errors import InvalidParameterError  # noqa: E402
from augkit.models import load_seq2seq  # noqa: E402
from augkit.models.constraints import BanTokensPerInput  # noqa: E402

#: 3 beams: batches of 1, 2 or 3 inputs get filler rows (see ROW_MULTIPLE), and their bans.
BEAMS = {"num_beams": 3, "num_return": 2, "max_new_tokens": 10}
#: top_k=0, top_p=1: sampling from the whole vocabulary, so plain outputs often hold source tokens.
SAMPLING = {"do_sample": True, "num_return": 4, "top_k": 0, "top_p": 1.0, "max_new_tokens": 10}


@pytest.fixture(scope="module", params=["tiny_marian_pair", "tiny_t5"])
def model(request):
    folder = request.getfixturevalue(request.param)
    return load_seq2seq(str(folder[0] if isinstance(folder, tuple) else folder), device="cpu")


@pytest.fixture(scope="module")
def texts(quora_pairs) -> list[str]:
    return quora_pairs["source"].tolist()[:10]


@contextmanager
def generated_ids(model):
    """Every output's token ids, by the ids of the input (or piece) it was generated for."""
    seen: dict[tuple[int, ...], list[list[int]]] = {}
    original = model.model.generate

    def spy(*args, **kwargs):
        sequences = original(*args, **kwargs)
        inputs = kwargs["input_ids"].tolist()
        per_input = len(sequences) // len(inputs)
        for row, ids in enumerate(inputs):
            key = tuple(t for t in ids if t != model.tokenizer.pad_token_id)
            seen.setdefault(key, sequences[row * per_input:(row + 1) * per_input].tolist())
        return sequences

    model.model.generate = spy
    try:
        yield seen
    finally:
        del model.model.generate  # the instance attribute; the class's method again


def outputs_holding_source_tokens(model, texts, seen) -> int:
    sources = model._token_ids(texts)
    special = set(model.tokenizer.all_special_ids)
    return sum(bool(set(output) & (set(ids) - special)) for ids in sources for output in seen[tuple(ids)])


@pytest.mark.parametrize("decoding", [BEAMS, SAMPLING], ids=["beams", "sampling"])
def test_with_probability_one_no_output_holds_a_token_of_its_source(model, texts, decoding):
    seeds = list(range(len(texts)))
    with generated_ids(model) as plain:
        model.generate(texts, seeds=seeds, **decoding)
    assert outputs_holding_source_tokens(model, texts, plain) > 0  # else this test could not fail
    with generated_ids(model) as forbidden:
        result = model.generate(texts, seeds=seeds, forbid_source_unigrams=1.0, **decoding)
    assert outputs_holding_source_tokens(model, texts, forbidden) == 0
    assert all(len(row) == decoding["num_return"] for row in result.texts)  # a forbidden word never stops generation


def test_with_probability_one_every_non_special_source_token_is_forbidden(model, texts):
    special = set(model.tokenizer.all_special_ids)
    for text, banned in zip(texts, model.forbidden_unigrams(texts, 1.0), strict=True):
        ids = model.tokenizer(text)["input_ids"]
        assert banned == tuple(dict.fromkeys(t for t in ids if t not in special))


@pytest.mark.parametrize("decoding", [BEAMS, SAMPLING], ids=["beams", "sampling"])
def test_probability_zero_is_the_plain_path(model, texts, decoding):
    seeds = list(range(len(texts)))
    plain = model.generate(texts, seeds=seeds, **decoding).texts
    assert model.generate(texts, seeds=seeds, forbid_source_unigrams=0.0, **decoding).texts == plain
    assert model.generate(texts, seeds=seeds, forbid_source_unigrams=0, unigram_sources=texts, **decoding).texts == plain
    assert model.forbidden_unigrams(texts, 0.0) == [()] * len(texts)


@pytest.mark.parametrize("decoding", [BEAMS, SAMPLING], ids=["beams", "sampling"])
def test_same_seed_same_output_whatever_the_batch_size_or_order(model, texts, decoding):
    seeds = [1000 + i for i in range(len(texts))]
    whole = model.generate(texts, seeds=seeds, forbid_source_unigrams=0.7, **decoding).texts
    for size in (1, 3):
        chunked = []
        for start in range(0, len(texts), size):
            chunk = slice(start, start + size)
            chunked += model.generate(texts[chunk], seeds=seeds[chunk], forbid_source_unigrams=0.7, **decoding).texts
        assert chunked == whole, size
    backwards = model.generate(texts[::-1], seeds=seeds[::-1], forbid_source_unigrams=0.7, **decoding).texts
    assert backwards[::-1] == whole
    assert model.forbidden_unigrams(texts[::-1], 0.7, seeds=seeds[::-1])[::-1] == model.forbidden_unigrams(texts, 0.7, seeds=seeds)


def test_different_seeds_forbid_different_tokens(model, texts):
    text = max(texts, key=len)
    sets = {model.forbidden_unigrams([text], 0.7, seeds=[seed])[0] for seed in range(10)}
    assert len(sets) > 5
    everything = set(model.forbidden_unigrams([text], 1.0)[0])
    assert all(set(banned) < everything for banned in sets)
    share = sum(len(banned) for banned in sets) / (len(sets) * len(everything))
    assert 0.4 < share < 0.95  # about 0.7 of the distinct tokens
    by_seed = [model.generate(texts, seeds=[seed] * len(texts), forbid_source_unigrams=0.7, **BEAMS).texts for seed in range(10)]
    assert any(len({str(outputs[i]) for outputs in by_seed}) > 1 for i in range(len(texts)))  # beam search, yet seeds matter


def test_without_seeds_the_draws_are_those_of_seed_zero(model, texts):
    assert model.forbidden_unigrams(texts, 0.7) == model.forbidden_unigrams(texts, 0.7, seeds=[0] * len(texts))
    assert model.generate(texts, forbid_source_unigrams=0.7, **BEAMS).texts == \
        model.generate(texts, seeds=[0] * len(texts), forbid_source_unigrams=0.7, **BEAMS).texts


def test_special_tokens_end_of_sequence_and_padding_are_never_forbidden(model):
    tokenizer = model.tokenizer
    specials = " ".join(tokenizer.all_special_tokens)
    text = f"{specials} Where is my card {specials} ?"
    ids = tokenizer(text)["input_ids"]
    special_ids = set(tokenizer.all_special_ids) | {tokenizer.eos_token_id, tokenizer.pad_token_id,
                                                    model.model.config.decoder_start_token_id}
    assert set(ids) & special_ids  # the source holds them
    banned = model.forbidden_unigrams([text], 1.0)[0]
    assert banned and not set(banned) & special_ids
    assert set(banned) == set(ids) - special_ids


def test_unigram_sources_leave_a_prompts_own_words_allowed(model):
    prompt, question = "paraphrase: ", "Where is my card?"
    own = set(model.forbidden_unigrams([question], 1.0)[0])
    prompted = set(model.forbidden_unigrams([prompt + question], 1.0)[0])
    assert prompted - own  # the prompt's words would be forbidden too
    assert set(model.forbidden_unigrams([prompt + question], 1.0, unigram_sources=[question])[0]) == own
    with generated_ids(model) as seen:
        model.generate([prompt + question], forbid_source_unigrams=1.0, unigram_sources=[question], **BEAMS)
    assert not any(set(output) & own for output in next(iter(seen.values())))


def test_a_long_input_split_into_pieces_forbids_its_tokens_in_every_piece(model, texts):
    long_text = " ".join(text.replace(" ?", "?") for text in texts)
    with generated_ids(model) as seen, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = model.generate([long_text], max_input_tokens=40, forbid_source_unigrams=1.0, **BEAMS)
    assert any("split into sentences" in str(warning.message) for warning in caught)
    banned = set(model.forbidden_unigrams([long_text], 1.0)[0])
    assert result.split == [0] and len(seen) > 1
    assert not any(set(output) & banned for outputs in seen.values() for output in outputs)


@pytest.mark.parametrize("bad", [-0.1, 1.5, "x", True, math.nan, None])
def test_a_bad_probability_is_refused_by_name(model, bad):
    with pytest.raises(InvalidParameterError, match=r"forbid_source_unigrams must be a probability between 0 and 1.*got"):
        model.generate(["Where is my card?"], forbid_source_unigrams=bad)
    with pytest.raises(InvalidParameterError, match="forbid_source_unigrams"):
        model.forbidden_unigrams(["Where is my card?"], bad)


def test_bad_unigram_sources_are_refused(model):
    with pytest.raises(InvalidParameterError, match="unigram_sources must have one text per input: 1 sources for 2 texts"):
        model.generate(["a card", "a refund"], forbid_source_unigrams=0.5, unigram_sources=["a card"])
    with pytest.raises(InvalidParameterError, match="unigram_sources must be texts"):
        model.generate(["a card"], forbid_source_unigrams=0.5, unigram_sources=[3])


def test_the_per_input_processor_writes_minus_infinity_in_its_inputs_rows_and_columns_only():
    scores = torch.zeros(6, 10)  # 3 inputs x 2 rows (beams or samples) each
    BanTokensPerInput([(1, 4), (), (9,)])(torch.zeros(6, 1, dtype=torch.long), scores)
    expected = torch.zeros(6, 10)
    expected[0:2, [1, 4]] = -math.inf
    expected[4:6, 9] = -math.inf
    assert torch.equal(scores, expected)
