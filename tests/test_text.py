"""The whitespace-preserving tokenizer: exact round trips, words and symbols apart."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from augkit.text import delete_tokens, detokenize, insert_token, match_case, tokenize


@given(st.text())
def test_any_text_round_trips_exactly(text):
    assert detokenize(tokenize(text)) == text


def test_words_symbols_and_spacing(banking77_sentences):
    tokenized = tokenize("  I can't top-up my card 😀!! \n")
    assert [(t.text, t.is_word) for t in tokenized.tokens] == [
        ("I", True), ("can't", True), ("top-up", True), ("my", True), ("card", True),
        ("😀", False), ("!", False), ("!", False),
    ]
    assert tokenized.tokens[0].space_before == "  " and tokenized.trailing_space == " \n"


def test_insert_and_delete_keep_leading_space_and_never_fuse_words():
    tokenized = tokenize("  Lost card.")
    insert_token(tokenized, 0, "Help", is_word=True)
    assert detokenize(tokenized) == "  Help Lost card."
    delete_tokens(tokenized, {0, 1})
    assert detokenize(tokenized) == "  card."
    fused = tokenize("a😀b")
    delete_tokens(fused, {1})
    assert detokenize(fused) == "a b"


def test_match_case():
    assert match_case("CARD", "bill") == "BILL"
    assert match_case("Card", "bill of fare") == "Bill of fare"
    assert match_case("card", "Paris") == "Paris"
    assert match_case("I", "one") == "One"
