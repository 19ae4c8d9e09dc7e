"""POINTER's insertion stages on a tiny random insertion model: keywords kept whole and in
order, stages that stop, length limits, batch-independent and seeded outputs."""

from __future__ import annotations

import math
import random
import re

import pytest

torch = pytest.importorskip("torch")

from augkit_pointer.insertion import (  # noqa: E402
    InsertionGenerator,
    InsertionSettings,
    _penalise,
    _top_k_top_p,
)

from augkit.plugin import InvalidParameterError, load_masked_lm  # noqa: E402

SAMPLING = InsertionSettings(do_sample=True, temperature=0.8, top_k=10, top_p=0.9)


@pytest.fixture(scope="module")
def insertion_lm(tiny_insertion_model):
    return load_masked_lm(str(tiny_insertion_model), device="cpu")


@pytest.fixture(scope="module")
def keyword_lists(shared_data):
    """Three words of each of 30 BANKING77 test queries (first, middle, last word; a
    multi-word keyword where the middle words are adjacent), the final '?' or '.' kept."""
    lines = (shared_data / "banking77" / "jianguoz" / "test" / "seq.in").read_text(encoding="utf-8").splitlines()[:30]
    lists = []
    for line in lines:
        words = re.findall(r"[\w'-]+", line)
        middle = len(words) // 2
        keywords = [words[0], " ".join(words[middle : middle + 2]), words[-1]]
        if line.rstrip()[-1:] in "?.":
            keywords.append(line.rstrip()[-1])
        lists.append(keywords)
    return lists


def keywords_in_order(text: str, keywords: list[str]) -> bool:
    """Each keyword appears whole (not inside a longer word), after the previous one."""
    position = 0
    for keyword in keywords:
        pattern = re.escape(keyword) if not keyword[0].isalnum() else r"(?<![\w#])" + re.escape(keyword) + r"(?![\w])"
        found = re.compile(pattern).search(text, position)
        if found is None:
            return False
        position = found.end()
    return True


@pytest.mark.parametrize("settings", [InsertionSettings(), SAMPLING], ids=["greedy", "sampling"])
def test_every_output_holds_its_keywords_whole_and_in_order(insertion_lm, keyword_lists, settings):
    outputs = InsertionGenerator(insertion_lm, settings).generate(keyword_lists, seeds=list(range(len(keyword_lists))))
    assert len(outputs) == len(keyword_lists)
    for keywords, output in zip(keyword_lists, outputs, strict=True):
        assert keywords_in_order(output.text, keywords), (keywords, output.text)
        assert len(output.text) > len(" ".join(keywords)), "something was inserted"


def test_a_final_punctuation_keyword_ends_the_sentence_once(insertion_lm, keyword_lists):
    lists = [keywords for keywords in keyword_lists if keywords[-1] in "?."]
    assert len(lists) >= 10
    for keywords, output in zip(lists, InsertionGenerator(insertion_lm).generate(lists), strict=True):
        assert output.text.endswith(keywords[-1]) and not output.text.endswith(" " + keywords[-1])
        assert not output.text[:-1].rstrip().endswith(("?", "!", ".")), f"a second end mark: {output.text!r}"


def test_a_model_that_says_no_insertion_everywhere_stops_after_one_stage(insertion_lm, keyword_lists):
    outputs = InsertionGenerator(insertion_lm, InsertionSettings(noi_bias=1e4)).generate(keyword_lists[:8])
    for keywords, output in zip(keyword_lists[:8], outputs, strict=True):
        assert (output.stages, output.finished) == (1, True)
        words = " ".join(keywords[:-1]) + keywords[-1] if keywords[-1] in "?." else " ".join(keywords)
        assert output.text == words


@pytest.mark.parametrize("max_stages", [1, 2])
def test_stages_stop_at_the_limit_and_stay_within_the_models_length(insertion_lm, keyword_lists, max_stages):
    settings = InsertionSettings(max_stages=max_stages, noi_decay=0, stopword_decay=0)
    outputs = InsertionGenerator(insertion_lm, settings).generate(keyword_lists)
    limit = insertion_lm.max_input_tokens
    for output in outputs:
        assert 1 <= output.stages <= max_stages
        assert len(insertion_lm.tokenizer(output.text)["input_ids"]) <= limit + 8  # keywords re-tokenised may differ slightly


def test_the_length_limit_ends_a_row_unfinished_without_exceeding_it(insertion_lm, keyword_lists):
    """The random model never says [NOI] everywhere, so 6 doublings hit the 64-token limit."""
    outputs = InsertionGenerator(insertion_lm).generate(keyword_lists[:6])
    assert all(not output.finished for output in outputs)
    generator = InsertionGenerator(insertion_lm, InsertionSettings(max_tokens=24))
    for output in generator.generate(keyword_lists[:6]):
        assert len(insertion_lm.tokenizer(output.text, add_special_tokens=True)["input_ids"]) <= 24 + 4


@pytest.mark.parametrize("settings", [InsertionSettings(), SAMPLING], ids=["greedy", "sampling"])
def test_outputs_do_not_depend_on_batch_mates_or_order(insertion_lm, keyword_lists, settings):
    generator = InsertionGenerator(insertion_lm, settings)
    seeds = [1000 + i for i in range(len(keyword_lists))]
    together = generator.generate(keyword_lists, seeds)
    one_by_one = [generator.generate([keywords], [seed])[0] for keywords, seed in zip(keyword_lists, seeds, strict=True)]
    order = list(range(len(keyword_lists)))
    random.Random(3).shuffle(order)
    shuffled = generator.generate([keyword_lists[i] for i in order], [seeds[i] for i in order])
    assert one_by_one == together
    assert [shuffled[order.index(i)] for i in range(len(order))] == together


def test_sampling_follows_the_seed(insertion_lm, keyword_lists):
    generator = InsertionGenerator(insertion_lm, SAMPLING)
    lists = keyword_lists[:10]
    first = generator.generate(lists, seeds=list(range(10)))
    assert generator.generate(lists, seeds=list(range(10))) == first
    other = generator.generate(lists, seeds=list(range(10, 20)))
    assert sum(a.text != b.text for a, b in zip(first, other, strict=True)) >= 8
    with pytest.raises(InvalidParameterError, match="one seed per keyword list"):
        generator.generate(lists)


def test_a_model_without_the_no_insertion_token_says_how_to_make_one(tiny_masked_lm):
    with pytest.raises(InvalidParameterError, match=r"no \[NOI\] token.*augkit train pointer"):
        InsertionGenerator(load_masked_lm(str(tiny_masked_lm), device="cpu"))


@pytest.mark.parametrize("bad, message", [
    ({"max_stages": 0}, "max_stages must be an integer >= 1"),
    ({"top_p": 1.5}, "top_p must be a number in"),
    ({"temperature": 0}, "temperature must be a number in"),
    ({"repetition_penalty": 0.5}, "repetition_penalty must be a number >= 1"),
    ({"noi_bias": math.nan}, "noi_bias must be a finite number"),
    ({"do_sample": "yes"}, "do_sample must be True or False"),
    ({"max_tokens": 2}, "max_tokens must be an integer >= 4"),
])
def test_bad_settings_are_refused_by_name(bad, message):
    with pytest.raises(InvalidParameterError, match=message):
        InsertionSettings(**bad).check()


def test_bad_keyword_lists_are_refused(insertion_lm):
    generator = InsertionGenerator(insertion_lm)
    with pytest.raises(InvalidParameterError, match="list of keyword lists"):
        generator.generate("refund card")
    with pytest.raises(InvalidParameterError, match="keyword list 1 must be a list of non-empty strings"):
        generator.generate([["refund"], ["card", " "]])


def test_penalties_lower_every_logit_whatever_its_sign():
    logits = torch.tensor([2.0, -2.0, 0.0])
    assert _penalise(logits, 1.25).tolist() == pytest.approx([1.6, -2.5, 0.0])


def test_top_k_and_top_p_keep_the_best_tokens_only():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    assert torch.isfinite(_top_k_top_p(logits.clone(), 2, 1.0)).tolist() == [[True, True, False, False]]
    assert torch.isfinite(_top_k_top_p(logits.clone(), 0, 0.7)).tolist() == [[True, True, False, False]]
    assert torch.isfinite(_top_k_top_p(logits.clone(), 0, 0.9)).tolist() == [[True, True, True, False]]
