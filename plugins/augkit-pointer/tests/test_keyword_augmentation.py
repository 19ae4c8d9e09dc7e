"""Keyword augmentation as Chevasson et al. (2023, section 3.3) describe it: swaps with
probability p_shuf, then WordNet synonyms that fit the sentence with probability p_syn,
verbs re-inflected; m lists per source, from the row's generator alone, whatever the batch.
These tests rank WordNet's candidates (``synonyms="wordnet-ranked"``); the default, safe,
source is tested in test_safe_keyword_synonyms.py."""

from __future__ import annotations

import math
import random

import pytest
from augkit_eda.wordnet import PARTS_OF_SPEECH, default_lexicon
from augkit_pointer.keyword_augmentation import (
    EmbeddingRanker,
    KeywordAugmenter,
    MaskedLMRanker,
    SynonymQuery,
    SynonymRanker,
    synonym_candidates,
)
from augkit_pointer.keywords import Keyword, extract_keywords
from lemminflect import getInflection, getLemma

from augkit.plugin import AugmenterOutputError, InvalidParameterError, load_masked_lm

#: The source these tests rank: every WordNet lemma name, ranked in context (``synonyms=``).
RANKED = "wordnet-ranked"


class RefusingRanker:
    """A ranker that must not be asked."""

    floor = -math.inf

    def score(self, queries):
        raise AssertionError("no synonym should be ranked")


class EqualRanker:
    """Every candidate fits equally: the order is WordNet's sense order."""

    floor = -math.inf

    def __init__(self):
        self.calls = 0

    def score(self, queries):
        self.calls += 1
        return [[0.0] * len(query.candidates) for query in queries]


class CountingMaskedLM:
    """A loaded masked LM that counts its fill calls."""

    def __init__(self, lm):
        self.lm, self.tokenizer, self.calls = lm, lm.tokenizer, 0

    def fill(self, *args, **kwargs):
        self.calls += 1
        return self.lm.fill(*args, **kwargs)


@pytest.fixture(scope="module")
def rows(banking77_sentences) -> tuple[list[str], list[list[Keyword]]]:
    """40 BANKING77 test sentences and their keywords."""
    texts = banking77_sentences[:200:5]
    return texts, [extract_keywords(text, random.Random(row)) for row, text in enumerate(texts)]


@pytest.fixture(scope="module")
def tiny_ranker(tiny_masked_lm) -> MaskedLMRanker:
    return MaskedLMRanker(str(tiny_masked_lm), device="cpu")


@pytest.fixture(scope="module")
def minilm_ranker() -> EmbeddingRanker:
    pytest.importorskip("sentence_transformers")
    return EmbeddingRanker()


def rngs(count: int, offset: int = 0) -> list[random.Random]:
    return [random.Random(offset + row) for row in range(count)]


def shares_a_synset(word: str, candidate: str) -> bool:
    """Whether WordNet has a synset holding a base form of both (the candidate's inflected
    head word taken back to its base: "called off" -> "call_off")."""
    lexicon = default_lexicon()
    parts = candidate.lower().split(" ")
    for pos in PARTS_OF_SPEECH:
        synsets = {s for base in lexicon.base_forms(word.lower().replace(" ", "_"), pos) for s in lexicon.synset_ids(base, pos)}
        for head in {0, len(parts) - 1}:
            for base in lexicon.base_forms(parts[head], pos) or [parts[head]]:
                lemma = "_".join(parts[:head] + [base] + parts[head + 1 :])
                if synsets & set(lexicon.synset_ids(lemma, pos)):
                    return True
    return False


def test_without_swaps_or_synonyms_the_keywords_come_back_m_times(rows):
    texts, keywords = rows
    lists = KeywordAugmenter(RefusingRanker(), synonyms=RANKED, p_syn=0.0, p_shuf=0.0).augment(texts, keywords, 5, rngs(len(texts)))
    assert lists == [[[k.text for k in row]] * 5 for row in keywords]


def test_p_shuf_1_permutes_the_keywords_and_keeps_the_final_mark_last(rows):
    texts, keywords = rows
    lists = KeywordAugmenter(RefusingRanker(), synonyms=RANKED, p_syn=0.0, p_shuf=1.0).augment(texts, keywords, 5, rngs(len(texts)))
    moved = 0
    for row, row_lists in zip(keywords, lists):
        original = [k.text for k in row]
        for words in row_lists:
            assert sorted(words) == sorted(original)
            if row[-1].is_punctuation:
                assert words[-1] == row[-1].text
            moved += words != original
    assert moved > 0.6 * 5 * len(texts)  # a 3-keyword swap sequence lands back on the original 1 time in 9


def test_p_shuf_0_keeps_the_order_and_synonyms_replace_in_place(rows, minilm_ranker):
    texts, keywords = rows
    lists = KeywordAugmenter(minilm_ranker, synonyms=RANKED, p_syn=1.0, p_shuf=0.0).augment(texts, keywords, 3, rngs(len(texts)))
    replaced = 0
    for row, row_lists in zip(keywords, lists):
        for words in row_lists:
            assert len(words) == len(row)
            for keyword, word in zip(row, words):
                if word != keyword.text:
                    replaced += 1
                    assert shares_a_synset(keyword.text, word), (keyword.text, word)
    assert replaced > len(texts)  # about one keyword in two has a synonym that fits


def test_synonyms_are_never_the_word_itself_nor_an_antonym(rows, minilm_ranker):
    texts, keywords = rows
    lexicon = default_lexicon()
    pools = KeywordAugmenter(minilm_ranker, synonyms=RANKED, p_syn=1.0).synonyms(texts, keywords)
    for row, row_pools in zip(keywords, pools):
        for keyword, pool in zip(row, row_pools):
            for synonym in pool:
                assert synonym.lower() != keyword.text.lower()
                assert not lexicon.is_antonym(keyword.text, synonym), (keyword.text, synonym)
                assert not set(synonym.lower().split()) & set(keyword.text.lower().split())
    assert not any("increase" in s for s in synonym_candidates("decrease", "VB"))
    assert "fall" in synonym_candidates("decrease", "VB")


def test_verbs_keep_their_inflection():
    for tag in ("VBD", "VBN"):
        candidates = synonym_candidates("cancelled", tag)
        assert "called off" in candidates and "call off" not in candidates
        for candidate in candidates:
            head = candidate.split(" ")[0]
            assert head in getInflection(getLemma(head, "VERB")[0], tag), candidate
    assert all(c.split(" ")[0].endswith("ing") for c in synonym_candidates("failing", "VBG"))
    assert all(c.split(" ")[0].endswith("s") for c in synonym_candidates("keeps", "VBZ"))
    plurals = synonym_candidates("charges", "NNS", limit=None)
    assert {"complaints", "accusations", "armorial bearings"} <= set(plurals) and "complaint" not in plurals
    assert synonym_candidates("bigger", "JJR")[:1] == ["larger"]


def test_a_cancelled_card_gets_a_past_participle(minilm_ranker):
    text = "My card was cancelled yesterday!"
    keywords = [extract_keywords(text, random.Random(0))]
    assert [k.text for k in keywords[0]] == ["card", "cancelled", "yesterday", "!"]
    lists = KeywordAugmenter(minilm_ranker, synonyms=RANKED, p_syn=1.0, p_shuf=0.0).augment([text], keywords, 5, rngs(1))
    assert {words[1] for words in lists[0]} == {"called off"}


def test_negations_names_stop_words_and_the_final_mark_are_never_replaced(tiny_ranker):
    text = "I did not get my Apple Pay refund, is it lost?"
    keywords = [[Keyword("not", 6, 9), Keyword("Apple Pay", 17, 26), Keyword("refund", 27, 33), Keyword("is", 35, 37),
                 Keyword("lost", 41, 45), Keyword("?", 45, 46)]]
    lists = KeywordAugmenter(tiny_ranker, synonyms=RANKED, p_syn=1.0, p_shuf=0.0).augment([text], keywords, 5, rngs(1))
    for words in lists[0]:
        assert words[:2] == ["not", "Apple Pay"] and words[3] == "is" and words[5] == "?"
        assert words[2] != "refund" and words[4] != "lost"  # the rest is replaced when p_syn is 1


def test_synonyms_are_given_out_in_turn_over_the_m_lists():
    text = "Why was my order cancelled?"
    keywords = [[Keyword("cancelled", 17, 26)]]
    augmenter = KeywordAugmenter(EqualRanker(), synonyms=RANKED, p_syn=1.0, p_shuf=0.0)
    assert augmenter.synonyms([text], keywords) == [[["called off", "scratched", "scrubbed"]]]  # WordNet's first sense
    lists = augmenter.augment([text], keywords, 3, rngs(1))
    assert sorted(words[0] for words in lists[0]) == ["called off", "scratched", "scrubbed"]


def test_all_rows_are_ranked_in_one_call(rows, tiny_masked_lm):
    texts, keywords = rows
    counting = CountingMaskedLM(load_masked_lm(tiny_masked_lm, device="cpu"))
    KeywordAugmenter(MaskedLMRanker(counting), synonyms=RANKED, p_syn=0.75).augment(texts, keywords, 5, rngs(len(texts)))
    assert counting.calls == 1
    ranker = EqualRanker()
    KeywordAugmenter(ranker, synonyms=RANKED).augment(texts, keywords, 5, rngs(len(texts)))
    assert ranker.calls == 1


def test_masked_lm_scores_are_log_probabilities_of_each_candidate(tiny_ranker):
    queries = [SynonymQuery("My card was cancelled yesterday!", 12, 21, ("called off", "scrubbed")),
               SynonymQuery("I bought an item", 2, 8, ("purchased",))]
    scores = tiny_ranker.score(queries)
    assert [len(s) for s in scores] == [2, 1]
    assert all(value <= 0 for row in scores for value in row)
    assert isinstance(tiny_ranker, SynonymRanker)


@pytest.mark.parametrize("ranker_name", ["tiny_ranker", "minilm_ranker"])
def test_rows_get_the_same_lists_alone_or_in_any_batch(rows, ranker_name, request):
    texts, keywords = rows[0][:16], rows[1][:16]
    augmenter = KeywordAugmenter(request.getfixturevalue(ranker_name), synonyms=RANKED, p_syn=0.75, p_shuf=0.25)
    together = augmenter.augment(texts, keywords, 5, rngs(len(texts)))
    alone = [augmenter.augment([text], [row], 5, [random.Random(index)])[0]
             for index, (text, row) in enumerate(zip(texts, keywords))]
    assert together == alone
    reversed_batch = augmenter.augment(texts[::-1], keywords[::-1], 5, rngs(len(texts))[::-1])
    assert reversed_batch[::-1] == together


def test_the_same_generators_give_the_same_lists_and_others_differ(rows, tiny_ranker):
    texts, keywords = rows
    augmenter = KeywordAugmenter(tiny_ranker, synonyms=RANKED, p_syn=0.75, p_shuf=0.25)
    random.seed(99)
    state = random.getstate()
    first = augmenter.augment(texts, keywords, 5, rngs(len(texts)))
    assert augmenter.augment(texts, keywords, 5, rngs(len(texts))) == first
    assert augmenter.augment(texts, keywords, 5, rngs(len(texts), offset=1000)) != first
    assert random.getstate() == state  # no global randomness


def test_bad_parameters_are_rejected(rows):
    texts, keywords = rows
    for name in ("p_syn", "p_shuf"):
        for value in (-0.1, 1.5, True, "0.5", None):
            with pytest.raises(InvalidParameterError, match=f"{name} must be a probability in \\[0, 1\\]"):
                KeywordAugmenter(**{name: value})
    with pytest.raises(InvalidParameterError, match="top_synonyms must be an integer >= 1"):
        KeywordAugmenter(top_synonyms=0)
    with pytest.raises(InvalidParameterError, match="ranker must be a SynonymRanker"):
        KeywordAugmenter(ranker="bert-base-uncased")
    with pytest.raises(InvalidParameterError, match="min_share"):
        EmbeddingRanker(min_share=2)
    with pytest.raises(InvalidParameterError, match="min_logprob"):
        MaskedLMRanker(min_logprob=1.0)
    augmenter = KeywordAugmenter(RefusingRanker(), synonyms=RANKED, p_syn=0.0)
    with pytest.raises(InvalidParameterError, match="m must be an integer >= 1"):
        augmenter.augment(texts, keywords, 0, rngs(len(texts)))
    with pytest.raises(InvalidParameterError, match="one keyword list and one rng per text"):
        augmenter.augment(texts, keywords[:-1], 5, rngs(len(texts)))
    with pytest.raises(InvalidParameterError, match="one keyword list and one rng per text"):
        augmenter.augment(texts, keywords, 5, rngs(3))
    with pytest.raises(InvalidParameterError, match="is not a Keyword spanning its text"):
        augmenter.augment(["lost card"], [[Keyword("card", 0, 4)]], 5, rngs(1))
    with pytest.raises(InvalidParameterError, match="random.Random"):
        augmenter.augment(["lost card"], [[Keyword("card", 5, 9)]], 5, [7])
    with pytest.raises(InvalidParameterError, match="not one string"):
        augmenter.augment("lost card", [[Keyword("card", 5, 9)]], 5, rngs(1))


def test_a_ranker_that_miscounts_is_reported(rows):
    class Miscounting(EqualRanker):
        def score(self, queries):
            return [[0.0] for _ in queries]

    texts, keywords = rows
    with pytest.raises(AugmenterOutputError, match="one per candidate"):
        KeywordAugmenter(Miscounting(), synonyms=RANKED).synonyms(texts, keywords)
