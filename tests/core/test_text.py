"""Words and glue: exact round trips; edits that keep punctuation and never fuse words."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from augkit.steps.augmenter import first_distinct
from augkit.text import (
    delete_words,
    distinct_by_spacing,
    insert_before_word,
    insert_word,
    join_words,
    match_case,
    spacing_key,
    split_words,
)


@given(st.text())
def test_any_text_round_trips_exactly(text):
    sequence = split_words(text)
    assert len(sequence.glue) == len(sequence.words) + 1
    assert join_words(sequence) == text


def test_words_and_glue():
    sequence = split_words("  I can't top-up my card 😀!! \n")
    assert sequence.words == ["I", "can't", "top-up", "my", "card"]
    assert sequence.glue == ["  ", " ", " ", " ", " ", " 😀!! \n"]


@given(st.text(), st.lists(st.booleans(), max_size=60))
def test_deletion_keeps_all_punctuation_and_words_apart(text, flags):
    sequence = split_words(text)
    keep = (flags + [True] * len(sequence.words))[: len(sequence.words)]
    result = delete_words(sequence, [i for i, kept in enumerate(keep) if not kept])
    assert result.words == [w for w, k in zip(sequence.words, keep) if k]
    symbols = lambda glue: "".join(ch for part in glue for ch in part if not ch.isspace())  # noqa: E731
    assert symbols(result.glue) == symbols(sequence.glue)
    assert split_words(join_words(result)).words == result.words  # no two words fused
    assert join_words(sequence) == text  # the input is not modified


def test_deletion_spacing():
    sequence = split_words("  Lost my card?")
    assert join_words(delete_words(sequence, [0, 1])) == "  card?"
    assert join_words(delete_words(sequence, [2])) == "  Lost my?"
    assert join_words(delete_words(split_words("a (b) c"), [1])) == "a () c"


def test_insertions():
    sequence = split_words("Lost card.")
    insert_word(sequence, 0, "help")
    insert_word(sequence, 2, "bank")
    insert_before_word(sequence, 1, ",")
    assert join_words(sequence) == "help , Lost bank card."


def test_match_case():
    assert match_case("CARD", "bill") == "BILL"
    assert match_case("Card", "bill of fare") == "Bill of fare"
    assert match_case("card", "Paris") == "Paris"
    assert match_case("I", "one") == "One"


_TOKENS = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")


@given(st.text(alphabet=st.sampled_from("ab- '’?.\n"), max_size=12), st.text(alphabet=st.sampled_from("ab- '’?.\n"), max_size=12))
def test_spacing_keys_are_equal_exactly_when_words_and_marks_are(first, second):
    """The cheap key (hash of the text without whitespace, tokens compared on a tie) agrees
    with comparing the token lists themselves, including "apart" against "a part"."""
    same_tokens = _TOKENS.findall(first) == _TOKENS.findall(second)
    assert (spacing_key(first) == spacing_key(second)) is same_tokens
    if same_tokens:
        assert hash(spacing_key(first)) == hash(spacing_key(second))
    assert len({spacing_key(first), spacing_key(second)}) == (1 if same_tokens else 2)


def test_spacing_keys_of_respaced_and_split_words():
    assert spacing_key("How far is it to Aspen ?") == spacing_key("How far is it to  Aspen?")
    assert spacing_key("It is apart") != spacing_key("It is a part")
    assert spacing_key("well-known") != spacing_key("well - known")


_SPACING_TEXT = st.text(alphabet=st.sampled_from("ab- '?.\n"), max_size=8)


@st.composite
def _respaced(draw, text: str) -> str:
    """``text`` with whitespace added or removed at drawn places (words joined or split,
    marks moved against their word), or now and then another text."""
    if draw(st.booleans()) and draw(st.booleans()):
        return draw(_SPACING_TEXT)
    chars = [char for char in text if not char.isspace() or draw(st.booleans())]
    return "".join(char + (" " if draw(st.integers(0, 3)) == 0 else "") for char in chars)


@given(st.data(), _SPACING_TEXT, st.integers(min_value=0, max_value=4))
def test_distinct_by_spacing_is_first_distinct_with_spacing_keys(data, source, n):
    """The key-free comparison keeps exactly what comparing spacing keys keeps, in order:
    candidates are mostly the source re-spaced, so that whitespace-free forms often agree
    while the tokens do not ("ab" against "a b")."""
    candidates = data.draw(st.lists(_respaced(source), max_size=6))
    with_keys = first_distinct(source, candidates, n, key=lambda text: spacing_key(text))
    assert distinct_by_spacing(source, candidates, n) == with_keys
    assert first_distinct(source, candidates, n, key=spacing_key) == with_keys


def test_distinct_by_spacing_drops_respaced_copies_and_keeps_split_words():
    kept = distinct_by_spacing("It is apart ?", ["It is apart?", "It is a part ?", "It is  a part?", "it is apart"], 4)
    assert kept == ["It is a part ?", "it is apart"]
