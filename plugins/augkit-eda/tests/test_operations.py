"""Properties of EDA's four operations on real BANKING77 words with punctuation and emoji."""

from __future__ import annotations

import random
from collections import Counter

from augkit_eda.eda import EDA
from augkit_eda.operations import (
    PreparedText,
    bernoulli_positions,
    prepare_text,
    random_deletion,
    random_insertion,
    random_swap,
    synonym_replacement,
)
from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_eda.synonyms import SafeSynonyms
from hypothesis import example, given, settings
from hypothesis import strategies as st

from augkit.plugin import WordSequence, join_words, split_words

VOCABULARY = ["I", "lost", "my", "card", "Why", "is", "the", "top-up", "pending", "can't", "exchange",
              "rate", "Transfer", "money", "to", "account", "PIN", "blocked", "refund", "2", "ATM", "café"]
SYMBOLS = [",", ".", "?", "!", "😀", "€", "(", ")"]
SENTENCES = st.lists(st.sampled_from(VOCABULARY + SYMBOLS), min_size=0, max_size=30).map(" ".join)
EDA_DEFAULT = EDA()
SOURCE = SafeSynonyms(EDA_STOP_WORDS)


def prepare(text: str) -> PreparedText:
    return prepare_text(text, SOURCE)


def symbols(sequence: WordSequence) -> str:
    return "".join(ch for part in sequence.glue for ch in part if not ch.isspace())


@given(SENTENCES, st.integers(0, 2**32), st.integers(1, 5))
def test_swap_keeps_the_multiset_of_words_and_the_glue(text, seed, count):
    before = split_words(text)
    after = random_swap(prepare(text), random.Random(seed), count)
    assert Counter(after.words) == Counter(before.words)
    assert after.glue == before.glue
    assert join_words(before) == text  # the input is not modified


@given(SENTENCES, st.integers(0, 2**32), st.floats(0, 1))
def test_deletion_never_empties_and_removes_only_words(text, seed, probability):
    before = split_words(text)
    after = random_deletion(prepare(text), random.Random(seed), probability)
    if before.words:
        assert after.words  # at least one word survives
    iterator = iter(before.words)
    assert all(word in iterator for word in after.words)  # a subsequence, in order
    assert symbols(after) == symbols(before)
    if len(before.words) == 1:
        assert after.words == before.words


@given(SENTENCES, st.integers(0, 2**32), st.integers(1, 4))
@example(text="to rate to rate", seed=0, count=1)  # one key, synonyms allowed at its second occurrence only
def test_synonym_replacement_changes_only_content_words_into_their_synonyms(text, seed, count):
    prepared = prepare(text)
    after = synonym_replacement(prepared, random.Random(seed), count)
    before = prepared.sequence
    assert after.glue == before.glue and len(after.words) == len(before.words)
    replaced: dict[str, set[str]] = {}
    for position, (old, new) in enumerate(zip(before.words, after.words)):
        if old != new:
            assert old.lower() not in EDA_STOP_WORDS
            assert not any(ch.isdigit() for ch in old)
            assert new.lower() in {s.lower() for s in prepared.synonyms[position]}
            replaced.setdefault(prepared.keys[position], set()).add(new.lower())
    assert all(len(v) == 1 for v in replaced.values())  # every occurrence gets the same synonym
    assert len(replaced) <= count


@given(SENTENCES, st.integers(0, 2**32), st.integers(1, 4))
def test_insertion_adds_count_synonyms_of_words_in_the_text(text, seed, count):
    prepared = prepare(text)
    after = random_insertion(prepared, random.Random(seed), count)
    before = prepared.sequence
    eligible = [syns for syns in prepared.synonyms if syns]
    if not eligible:
        assert join_words(after) == text
        return
    added = Counter(after.words) - Counter(before.words)
    assert sum(added.values()) == count
    assert set(added) <= {s for syns in eligible for s in syns}
    assert symbols(after) == symbols(before)


@given(st.integers(0, 2**32), st.integers(0, 40), st.floats(0, 1))
def test_bernoulli_positions_are_sorted_distinct_and_in_range(seed, size, probability):
    hits = bernoulli_positions(random.Random(seed), size, probability)
    assert hits == sorted(set(hits)) and all(0 <= h < size for h in hits)


def test_bernoulli_positions_hit_each_position_with_the_probability():
    rng = random.Random(0)
    counts = Counter(h for _ in range(20000) for h in bernoulli_positions(rng, 10, 0.1))
    assert all(abs(counts[i] / 20000 - 0.1) < 0.01 for i in range(10))


@settings(max_examples=50)
@given(st.text(max_size=200), st.integers(0, 2**32), st.integers(0, 6))
def test_eda_on_arbitrary_text_returns_distinct_non_source_strings(text, seed, n):
    out = EDA_DEFAULT.augment(text, n, random.Random(seed))
    assert isinstance(out, list) and len(out) <= n
    assert len(set(out)) == len(out) and text not in out
