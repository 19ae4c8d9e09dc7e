"""augkit.models.MaskedLM on a tiny random BERT: top-k fills of character spans and of mask
tokens, checked against the model's own logits; batch-independent; bad spans refused."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from augkit.errors import InvalidParameterError  # noqa: E402
from augkit.models import Fill, MaskedLM, load_masked_lm  # noqa: E402


@pytest.fixture(scope="module")
def masked(tiny_masked_lm) -> MaskedLM:
    return load_masked_lm(str(tiny_masked_lm), device="cpu")


def middle_word(text: str) -> tuple[int, int]:
    words, position = [], 0
    for word in text.split():
        start = text.index(word, position)
        words.append((start, start + len(word)))
        position = start + len(word)
    return words[len(words) // 2]


def hand_top_k(folder, masked_text: str, k: int) -> list[list[tuple[str, float]]]:
    """Top-k at every mask of ``masked_text`` from the raw model: log-softmax over the whole
    vocabulary, special tokens left out."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForMaskedLM.from_pretrained(folder).eval()
    ids = tokenizer(masked_text, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        logprobs = torch.log_softmax(model(input_ids=ids).logits[0].double(), dim=-1)
    logprobs[:, tokenizer.all_special_ids] = float("-inf")
    out = []
    for position in (ids[0] == tokenizer.mask_token_id).nonzero().flatten().tolist():
        values, indices = logprobs[position].topk(k)
        out.append(list(zip(tokenizer.convert_ids_to_tokens(indices.tolist()), values.tolist())))
    return out


def test_fills_are_the_k_likeliest_tokens_best_first(masked, tiny_masked_lm, banking77_sentences):
    text = banking77_sentences[0]
    span = middle_word(text)
    fills = masked.fill([text], [[span]], k=7)[0][0]
    assert len(fills) == 7 and all(isinstance(fill, Fill) for fill in fills)
    assert [f.logprob for f in fills] == sorted((f.logprob for f in fills), reverse=True)
    expected = hand_top_k(tiny_masked_lm, masked.mask_spans(text, [span]), 7)[0]
    assert [f.token for f in fills] == [token for token, _ in expected]
    assert [f.logprob for f in fills] == pytest.approx([value for _, value in expected], abs=1e-4)
    assert not {f.token for f in fills} & set(masked.tokenizer.all_special_tokens)


def test_a_smaller_k_is_the_head_of_a_larger_one(masked, banking77_sentences):
    texts = banking77_sentences[:5]
    spans = [[middle_word(text)] for text in texts]
    three, ten = masked.fill(texts, spans, k=3), masked.fill(texts, spans, k=10)
    for short, long in zip(three, ten):
        assert len(short[0]) == 3 and len(long[0]) == 10
        assert [f.token for f in short[0]] == [f.token for f in long[0][:3]]


def test_spans_at_the_start_the_end_and_across_words(masked, tiny_masked_lm):
    text = "I am still waiting on my card"
    start, end, words = (0, 1), (25, 29), (2, 18)  # "I", "card" (the text's last word), "am still waiting"
    assert end[1] == len(text)
    assert masked.mask_spans(text, [start, end, words]) == "[MASK] [MASK] on my [MASK]"
    fills = masked.fill([text], [[end, start, words]], k=4)[0]
    expected = hand_top_k(tiny_masked_lm, "[MASK] [MASK] on my [MASK]", 4)  # masks in text order
    assert [[f.token for f in per_span] for per_span in fills] == [
        [token for token, _ in expected[i]] for i in (2, 0, 1)  # results follow the order the spans were given
    ]


def test_an_empty_span_inserts_a_mask(masked):
    assert masked.mask_spans("lost card", [(5, 5)]) == "lost [MASK]card"
    assert len(masked.fill(["lost card"], [[(5, 5)]], k=2)[0][0]) == 2


def test_texts_that_already_hold_mask_tokens(masked, tiny_masked_lm):
    texts = ["my [MASK] was declined at the [MASK]", "no mask here"]
    fills = masked.fill_masked(texts, k=3)
    assert len(fills[0]) == 2 and fills[1] == []
    expected = hand_top_k(tiny_masked_lm, texts[0], 3)
    assert [[f.token for f in per_mask] for per_mask in fills[0]] == [[t for t, _ in row] for row in expected]


def test_fills_do_not_depend_on_the_batch(masked, banking77_sentences):
    texts = banking77_sentences[:60]
    spans = [[middle_word(text)] for text in texts]
    together = masked.fill(texts, spans, k=5)
    alone = [masked.fill([text], [span], k=5)[0] for text, span in zip(texts, spans)]
    small = masked.fill(texts, spans, k=5, token_budget=48)
    reversed_order = masked.fill(texts[::-1], spans[::-1], k=5)[::-1]
    for other in (alone, small, reversed_order):
        for a, b in zip(together, other):
            assert [f.token for f in a[0]] == [f.token for f in b[0]]
            assert [f.logprob for f in a[0]] == pytest.approx([f.logprob for f in b[0]], abs=1e-5)


@pytest.mark.parametrize(
    ("texts", "spans", "message"),
    [
        (["lost card"], [[(0, 4), (2, 6)]], "overlap"),
        (["lost card"], [[(3, 20)]], "0 <= start <= end <= 9"),
        (["lost card"], [[(4, 2)]], "0 <= start <= end"),
        (["lost card"], [[(0.0, 4)]], "start, end"),
        (["lost card"], [], "one list of spans per text"),
        (["my [MASK] card"], [[(0, 2)]], "fill_masked"),
        ([3], [[(0, 1)]], "item 0 is int"),
    ],
)
def test_bad_spans_are_refused_with_what_is_wrong(masked, texts, spans, message):
    with pytest.raises(InvalidParameterError, match=message):
        masked.fill(texts, spans)


def test_a_bad_k_is_refused(masked):
    for k in (0, -1, True, 2.0):
        with pytest.raises(InvalidParameterError, match="k must be"):
            masked.fill(["lost card"], [[(0, 4)]], k=k)


def test_a_span_beyond_the_model_limit_gets_no_fills_and_a_warning(masked):
    text = "please help " * 40 + "card"  # far past the 64 positions
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fills = masked.fill([text], [[(0, 6), (len(text) - 4, len(text))]], k=2)[0]
    assert len(fills[0]) == 2 and fills[1] == []
    assert any("longer than 64 tokens" in str(w.message) for w in caught)
