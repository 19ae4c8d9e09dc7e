"""augkit.models.CausalLM on a tiny random GPT-2: per-token log-probabilities checked against
the model's logits, batch-independent scores, and seeded sampling whose output for a
prompt does not depend on the other prompts."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from augkit.errors import InvalidParameterError  # noqa: E402
from augkit.models import CausalLM, load_causal_lm  # noqa: E402


@pytest.fixture(scope="module")
def causal(tiny_causal_lm) -> CausalLM:
    return load_causal_lm(str(tiny_causal_lm), device="cpu")


def hand_logprobs(folder, text: str) -> list[float]:
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    ids = [tokenizer.bos_token_id] + tokenizer(text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logprobs = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), dim=-1)
    return [logprobs[t, ids[t + 1]].item() for t in range(len(ids) - 1)]


def test_each_token_gets_its_log_probability_given_the_ones_before(causal, tiny_causal_lm, banking77_sentences):
    text = banking77_sentences[3]
    got = causal.token_logprobs([text])[0]
    expected = hand_logprobs(tiny_causal_lm, text)
    assert len(got) == len(causal.tokenizer(text, add_special_tokens=False)["input_ids"]) == len(expected)
    assert got == pytest.approx(expected, abs=1e-4)
    assert causal.mean_logprob([text])[0] == pytest.approx(sum(expected) / len(expected), abs=1e-4)


def test_without_a_start_token_the_first_token_is_only_context(causal, banking77_sentences):
    text = banking77_sentences[3]
    with_start = causal.token_logprobs([text])[0]
    without = causal.token_logprobs([text], add_start_token=False)[0]
    assert len(without) == len(with_start) - 1


def test_nothing_to_score_gives_no_values_and_a_nan_mean(causal):
    assert causal.token_logprobs(["", "card"]) [0] == []
    means = causal.mean_logprob(["", "card"])
    assert math.isnan(means[0]) and math.isfinite(means[1])
    assert causal.token_logprobs([]) == []


def test_scores_do_not_depend_on_the_batch(causal, banking77_sentences):
    texts = banking77_sentences[:60]
    together = causal.token_logprobs(texts)
    alone = [causal.token_logprobs([text])[0] for text in texts]
    small = causal.token_logprobs(texts, token_budget=40)
    capped = causal.token_logprobs(texts, batch_size=3)
    for other in (alone, small, capped):
        for a, b in zip(together, other):
            assert a == pytest.approx(b, abs=1e-5)


def test_a_prompt_samples_the_same_alone_or_in_a_batch(causal, banking77_sentences):
    prompts = banking77_sentences[:6]
    batch = causal.generate(prompts, n=3, seed=11, max_new_tokens=8)
    assert [len(row) for row in batch] == [3] * 6
    for position in (0, 4):
        assert causal.generate([prompts[position]], n=3, seed=11, max_new_tokens=8)[0] == batch[position]
    assert causal.generate(prompts[::-1], n=3, seed=11, max_new_tokens=8)[::-1] == batch
    assert causal.generate(prompts, n=3, seed=12, max_new_tokens=8) != batch


def test_sampling_leaves_the_callers_random_state_alone(causal):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    causal.generate(["where is my card"], n=2, seed=0, max_new_tokens=4)
    assert torch.equal(torch.rand(3), expected)


def test_explicit_seeds_follow_their_prompt(causal):
    prompts = ["where is my card", "top up failed"]
    out = causal.generate(prompts, n=2, seeds=[5, 6], max_new_tokens=3, top_k=0, top_p=0.9)
    assert out[1] == causal.generate(prompts[1:], n=2, seeds=[6], max_new_tokens=3, top_k=0, top_p=0.9)[0]
    assert out[1] == causal.generate(prompts[::-1], n=2, seeds=[6, 5], max_new_tokens=3, top_k=0, top_p=0.9)[0]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"n": 0}, "n must be"),
        ({"top_p": 0.0}, "top_p"),
        ({"top_k": -1}, "top_k"),
        ({"temperature": 0}, "temperature"),
        ({"seeds": [1, 2]}, "one seed per prompt"),
        ({"max_new_tokens": 64}, "no room"),
    ],
)
def test_bad_sampling_options_are_refused(causal, options, message):
    with pytest.raises(InvalidParameterError, match=message):
        causal.generate(["where is my card"], **options)
