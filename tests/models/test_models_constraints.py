"""The in-place generation constraints give exactly transformers' own outputs: the same
banned tokens, minimum length and forced end, only without rewriting the whole vocabulary
at each step."""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from augkit.models import load_seq2seq  # noqa: E402
from augkit.models.constraints import lean_constraints  # noqa: E402


@pytest.fixture(scope="module")
def model(tiny_marian_pair):
    return load_seq2seq(str(tiny_marian_pair[0]), device="cpu")


def transformers_outputs(model, text, **options):
    encoded = model.tokenizer([text], return_tensors="pt")
    with torch.inference_mode():
        ids = model.model.generate(**encoded, **options)
    return [t.strip() for t in model.tokenizer.batch_decode(ids, skip_special_tokens=True)]


@pytest.mark.parametrize(
    "options",
    [
        {"num_beams": 4, "num_return_sequences": 2},
        {"num_beams": 4, "num_return_sequences": 4, "min_new_tokens": 6, "max_new_tokens": 8},
        {"num_beams": 2, "num_return_sequences": 1, "min_new_tokens": 3},
    ],
)
def test_runtime_generation_equals_transformers_generation(model, banking77_sentences, options):
    texts = banking77_sentences[:8]
    ours = model.generate(
        texts, num_beams=options["num_beams"], num_return=options["num_return_sequences"],
        min_new_tokens=options.get("min_new_tokens"), max_new_tokens=options.get("max_new_tokens"),
    ).texts
    assert ours == [transformers_outputs(model, text, **options) for text in texts]


def test_a_config_limited_by_max_length_only_ends_at_the_same_step(model, banking77_sentences):
    saved = copy.deepcopy(model.model.generation_config)
    try:
        model.model.generation_config.max_new_tokens = None
        model.model.generation_config.max_length = 7
        texts = banking77_sentences[:4]
        ours = model.generate(texts, num_beams=4, num_return=2, min_new_tokens=5).texts
        assert ours == [transformers_outputs(model, t, num_beams=4, num_return_sequences=2, min_new_tokens=5) for t in texts]
    finally:
        model.model.generation_config = saved


def test_whole_vocabulary_processors_are_replaced_only_when_the_replacement_is_exact(model):
    config = model.model.generation_config
    lean = lean_constraints(config, {"num_beams": 4, "min_new_tokens": 4})
    assert lean["bad_words_ids"] is None and lean["min_new_tokens"] is None and lean["forced_eos_token_id"] is None
    assert [type(p).__name__ for p in lean["logits_processor"]] == ["BanTokens", "NoEndBefore", "EndAtLastStep"]
    multi_token = copy.deepcopy(config)
    multi_token.bad_words_ids = [[5, 6]]
    multi_token.min_new_tokens = None
    assert lean_constraints(multi_token, {"num_beams": 4}) == {"num_beams": 4}  # left to transformers
