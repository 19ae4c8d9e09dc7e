"""Properties of EDA's four operations on real BANKING77 words with punctuation and emoji."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from augkit.text import TokenizedText, detokenize, tokenize
from augkit_eda.eda import EDA
from augkit_eda.operations import random_deletion, random_insertion, random_swap, synonym_replacement
from augkit_eda.stopwords import EDA_STOP_WORDS

VOCABULARY = ["I", "lost", "my", "card", "Why", "is", "the", "top-up", "pending", "can't", "exchange",
              "rate", "Transfer", "money", "to", "account", "PIN", "blocked", "refund", "2", "ATM", "café"]
SYMBOLS = [",", ".", "?", "!", "😀", "€", "(", ")"]
SENTENCES = st.lists(st.sampled_from(VOCABULARY + SYMBOLS), min_size=0, max_size=30).map(" ".join)
EDA_DEFAULT = EDA()


def words(tokenized: TokenizedText) -> list[str]:
    return [t.text for t in tokenized.tokens if t.is_word]


def symbols(tokenized: TokenizedText) -> list[str]:
    return [t.text for t in tokenized.tokens if not t.is_word]


@given(SENTENCES, st.integers(0, 2**32), st.integers(1, 5))
def test_swap_keeps_the_multiset_of_words_and_the_symbols_in_place(text, seed, count):
    before = tokenize(text)
    after = random_swap(before, random.Random(seed), count)
    assert Counter(words(after)) == Counter(words(before))
    assert [(t.text, i) for i, t in enumerate(after.tokens) if not t.is_word] == [
        (t.text, i) for i, t in enumerate(before.tokens) if not t.is_word
    ]
    assert detokenize(before) == text  # the input is not modified


@given(SENTENCES, st.integers(0, 2**32), st.floats(0, 1))
def test_deletion_never_empties_and_removes_only_words(text, seed, probability):
    before = tokenize(text)
    after = random_deletion(before, random.Random(seed), probability)
    kept, original = words(after), words(before)
    if original:
        assert kept  # at least one word survives
    iterator = iter(original)
    assert all(word in iterator for word in kept)  # a subsequence, in order
    assert symbols(after) == symbols(before)
    if len(original) == 1:
        assert kept == original


@given(SENTENCES, st.integers(0, 2**32), st.integers(1, 4))
def test_synonym_replacement_changes_only_content_words_into_their_synonyms(text, seed, count):
    before = tokenize(text)
    after = synonym_replacement(before, random.Random(seed), count, EDA_DEFAULT.synonyms)
    assert len(after.tokens) == len(before.tokens)
    replaced: dict[str, set[str]] = {}
    for old, new in zip(before.tokens, after.tokens):
        if old.text != new.text:
            assert old.is_word and old.text.lower() not in EDA_STOP_WORDS
            assert not any(ch.isdigit() for ch in old.text)
            assert new.text.lower() in {s.lower() for s in EDA_DEFAULT.synonyms(old.text)}
            replaced.setdefault(old.text.lower(), set()).add(new.text.lower())
    assert all(len(v) == 1 for v in replaced.values())  # every occurrence gets the same synonym
    assert len(replaced) <= count


@given(SENTENCES, st.integers(0, 2**32), st.integers(1, 4))
def test_insertion_adds_count_synonyms_of_words_in_the_text(text, seed, count):
    before = tokenize(text)
    after = random_insertion(before, random.Random(seed), count, EDA_DEFAULT.synonyms)
    eligible = [w for w in words(before) if EDA_DEFAULT.synonyms(w)]
    added = Counter(words(after)) - Counter(words(before))
    if not eligible:
        assert detokenize(after) == text
        return
    assert sum(added.values()) == count
    allowed = {s for w in eligible for s in EDA_DEFAULT.synonyms(w)}
    assert set(added) <= allowed
    assert symbols(after) == symbols(before)


@settings(max_examples=50)
@given(st.text(max_size=200), st.integers(0, 2**32), st.integers(0, 6))
def test_eda_on_arbitrary_text_returns_distinct_non_source_strings(text, seed, n):
    out = EDA_DEFAULT.augment(text, n, random.Random(seed))
    assert isinstance(out, list) and len(out) <= n
    assert len(set(out)) == len(out) and text not in out
