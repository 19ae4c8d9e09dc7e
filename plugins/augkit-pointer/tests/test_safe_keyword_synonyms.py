"""POINTER's keyword synonyms come from augkit-eda's safe rule by default (``synonyms="safe"``):
every synonym offered is one ``EDA.synonyms_of`` accepts for the keyword in its sentence, so the
wrong senses the ranked WordNet source let through on CLINC150 rows ("cold" -> "cold-blooded",
"weather" -> "atmospheric condition", "restaurant" -> "eating house") never come back; the
safe source ranks nothing (no model), refuses a ranker, and gives a row the same lists alone
or in any batch."""

from __future__ import annotations

import math
import random

import pytest
from augkit_eda import EDA
from augkit_pointer import POINTER
from augkit_pointer.keyword_augmentation import KeywordAugmenter
from augkit_pointer.keywords import extract_keywords

from augkit.plugin import InvalidParameterError

#: What the ranked source gave these words on the rows below before the safe rule was the default.
WRONG_SENSES = {"cold": {"cold-blooded", "coldness", "low temperature", "frigidness"},
                "weather": {"atmospheric condition"},
                "restaurant": {"eating house", "eating place", "eatery"}}


@pytest.fixture(scope="module")
def issue_rows(shared_data) -> list[str]:
    """The CLINC150 rows of the issue's examples ("how cold will it be tomorrow" is a training
    row), with the validation and test rows about the weather, restaurants or the cold."""
    folder = shared_data / "clinc150" / "jianguoz"
    training = (folder / "train" / "seq.in").read_text().splitlines()
    rows = [text for text in training if text == "how cold will it be tomorrow"]
    for split in ("valid", "test"):
        lines = (folder / split / "seq.in").read_text().splitlines()
        rows += [text for text in lines if set(text.split()) & set(WRONG_SENSES)][:15]
    return rows


@pytest.fixture(scope="module")
def validation_rows(shared_data) -> list[str]:
    """120 CLINC150 validation rows, every 25th."""
    return (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text().splitlines()[::25][:120]


def keywords_of(texts: list[str]) -> list:
    return [extract_keywords(text, random.Random(row)) for row, text in enumerate(texts)]


def test_the_issues_wrong_senses_never_come_back(issue_rows):
    assert "how cold will it be tomorrow" in issue_rows and len(issue_rows) == 31
    keywords = keywords_of(issue_rows)
    pools = KeywordAugmenter(p_syn=1.0).synonyms(issue_rows, keywords)
    for text, row_keywords, row_pools in zip(issue_rows, keywords, pools, strict=True):
        for keyword, pool in zip(row_keywords, row_pools, strict=True):
            assert not WRONG_SENSES.get(keyword.text, set()) & set(pool), (text, keyword.text, pool)
    lists = POINTER(p_syn=1.0, p_shuf=0.0).keyword_lists(issue_rows, 5, [random.Random(i) for i in range(len(issue_rows))])
    offered = {word for row in lists for words in row for word in words}
    assert not offered & set().union(*WRONG_SENSES.values())


def test_every_synonym_is_one_the_eda_safe_rule_accepts_in_the_sentence(validation_rows):
    keywords = keywords_of(validation_rows)
    pools = KeywordAugmenter().synonyms(validation_rows, keywords)
    eda, offered = EDA(), 0
    for text, row_keywords, row_pools in zip(validation_rows, keywords, pools, strict=True):
        for keyword, pool in zip(row_keywords, row_pools, strict=True):
            if pool:
                offered += 1
                assert set(pool) <= set(eda.synonyms_of(keyword.text, text)), (text, keyword.text, pool)
    assert offered >= 10, "the safe rule still offers synonyms"
    lists = KeywordAugmenter(p_syn=1.0, p_shuf=0.0).augment(validation_rows, keywords, 3,
                                                           [random.Random(i) for i in range(len(validation_rows))])
    replaced = sum(word != keyword.text for row, row_lists in zip(keywords, lists) for words in row_lists
                   for keyword, word in zip(row, words))
    assert replaced >= 3 * offered, "with p_syn=1 every keyword that has a synonym takes one in every list"


def test_a_row_gets_the_same_lists_alone_or_in_any_batch(validation_rows):
    texts = validation_rows[:30]
    keywords = keywords_of(texts)
    augmenter = KeywordAugmenter(p_syn=0.75, p_shuf=0.25)
    together = augmenter.augment(texts, keywords, 4, [random.Random(i) for i in range(len(texts))])
    alone = [augmenter.augment([text], [row], 4, [random.Random(i)])[0] for i, (text, row) in enumerate(zip(texts, keywords))]
    assert together == alone
    assert augmenter.ranker is None, "the safe source ranks nothing: no model is built"


class EqualRanker:
    floor = -math.inf

    def score(self, queries):
        return [[0.0] * len(query.candidates) for query in queries]


def test_the_source_is_named_and_a_ranker_needs_the_ranked_one():
    with pytest.raises(InvalidParameterError, match="unknown synonym source 'wordnet'; did you mean 'wordnet-ranked'"):
        POINTER(synonyms="wordnet")
    with pytest.raises(InvalidParameterError, match="give synonyms='wordnet-ranked' or no ranker"):
        KeywordAugmenter(EqualRanker())
    assert KeywordAugmenter(EqualRanker(), synonyms="wordnet-ranked").synonyms_from == "wordnet-ranked"
