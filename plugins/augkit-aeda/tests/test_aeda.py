"""AEDA: marks inserted only before words, as many as the paper's rule allows."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import augkit
from augkit.text import tokenize
from augkit_aeda.aeda import AEDA

MARKS = {".", ",", "!", "?", ";", ":"}
SENTENCES = st.lists(
    st.sampled_from(["I", "lost", "my", "card", "top-up", "can't", "2", "café", ",", "?", "😀"]), max_size=30
).map(" ".join)


def inserted_marks(source: str, candidate: str) -> list[str]:
    """Marks in ``candidate`` that are not in ``source``, checking nothing else changed."""
    before = [t.text for t in tokenize(source).tokens]
    after = [t.text for t in tokenize(candidate).tokens]
    extra = []
    position = 0
    for token in after:
        if position < len(before) and token == before[position]:
            position += 1
        else:
            extra.append(token)
    assert position == len(before), (source, candidate)
    return extra


@given(SENTENCES, st.integers(0, 2**32))
def test_only_marks_are_inserted_within_the_papers_bounds(text, seed):
    words = len(tokenize(text).word_positions())
    out = AEDA().augment(text, 3, random.Random(seed))
    if words == 0:
        assert out == []
        return
    for candidate in out:
        extra = inserted_marks(text, candidate)
        assert set(extra) <= MARKS
        assert 1 <= len(extra) <= min(words, int(0.3 * words + 1))


def test_one_word_and_empty_texts():
    assert AEDA().augment("", 3, random.Random(0)) == []
    assert AEDA().augment("  ", 3, random.Random(0)) == []
    out = AEDA().augment("refund", 10, random.Random(0))
    assert sorted(out) == sorted(f"{m} refund" for m in MARKS)  # only 6 distinct outputs exist


def test_custom_marks_and_ratio(banking77_sentences):
    aeda = AEDA(punc_ratio=1.0, punctuation="#")
    for text in banking77_sentences[:20]:
        for candidate in aeda.augment(text, 2, random.Random(0)):
            assert set(inserted_marks(text, candidate)) == {"#"}


def test_emoji_non_ascii_and_long_text(banking77_sentences):
    text = "Ma carte 😀 est bloquée — pourquoi ?"
    for candidate in AEDA().augment(text, 4, random.Random(2)):
        assert "😀" in candidate and "bloquée" in candidate
    long_text = " ".join(" ".join(banking77_sentences).split()[:5000])
    out = AEDA().augment(long_text, 2, random.Random(0))
    assert len(out) == 2 and all(1 <= len(inserted_marks(long_text, c)) <= 1501 for c in out)


@pytest.mark.parametrize("kwargs", [{"punc_ratio": 0}, {"punc_ratio": 1.2}, {"punctuation": []}, {"punctuation": [" "]}])
def test_invalid_parameters(kwargs):
    with pytest.raises(ValueError):
        AEDA(**kwargs)


def test_registered_through_its_entry_point():
    entry = augkit.get_registry().method("aeda")
    assert entry.plugin.distribution == "augkit-aeda"
    assert {p.name: p.default for p in entry.cls.parameters()}["punc_ratio"] == 0.3
