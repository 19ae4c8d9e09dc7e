"""AEDA: marks inserted only before words, as many as the paper's rule allows."""

from __future__ import annotations

import random

import pytest
from augkit_aeda.aeda import AEDA
from hypothesis import given
from hypothesis import strategies as st

import augkit
from augkit.plugin import split_words

MARKS = {".", ",", "!", "?", ";", ":"}
SENTENCES = st.lists(
    st.sampled_from(["I", "lost", "my", "card", "top-up", "can't", "2", "café", ",", "?", "😀"]), max_size=30
).map(" ".join)


def inserted_marks(source: str, candidate: str) -> list[str]:
    """Marks AEDA put into ``candidate``, checking that nothing else changed: the same
    words, and each gap's glue is the source's plus at most one "mark " suffix."""
    before, after = split_words(source), split_words(candidate)
    assert after.words == before.words, (source, candidate)
    extra = []
    for old, new in zip(before.glue, after.glue):
        assert new.startswith(old), (source, candidate)
        if new != old:
            mark, space = new[len(old):-1], new[-1]
            assert space == " " and mark.strip() == mark
            extra.append(mark)
    return extra


@given(SENTENCES, st.integers(0, 2**32))
def test_only_marks_are_inserted_within_the_papers_bounds(text, seed):
    words = len(split_words(text).words)
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
    assert (entry.plugin.name, entry.plugin.distribution) == ("aeda", "augkit")  # built into augkit
    assert {p.name: p.default for p in entry.cls.parameters()}["punc_ratio"] == 0.3
