"""A whitespace-preserving word tokenizer shared by word-level augmenters.

Word-level operations (swap, delete, insert, replace) must not destroy the text around the
words: casing, punctuation, emoji and the original spacing all survive. A text becomes a
list of :class:`Token` objects (a word or a single non-space symbol, each remembering the
whitespace before it); :func:`detokenize` rebuilds the exact original string from an
unmodified list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A word: letters or digits, with inner hyphens or apostrophes ("e-mail", "don't").
_TOKEN = re.compile(r"(\s*)([^\W_]+(?:[-'’][^\W_]+)*|\S)", re.UNICODE)
_WORD_START = re.compile(r"[^\W_]", re.UNICODE)


@dataclass(slots=True)
class Token:
    """One word or symbol, with the whitespace that preceded it in the text."""

    text: str
    space_before: str
    is_word: bool


@dataclass(slots=True)
class TokenizedText:
    """The tokens of a text plus any whitespace after the last token."""

    tokens: list[Token]
    trailing_space: str

    def word_positions(self) -> list[int]:
        """Indices (into ``tokens``) of the word tokens, in order."""
        return [i for i, token in enumerate(self.tokens) if token.is_word]

    def copy(self) -> TokenizedText:
        return TokenizedText(
            [Token(t.text, t.space_before, t.is_word) for t in self.tokens], self.trailing_space
        )


def tokenize(text: str) -> TokenizedText:
    """Split ``text`` into words and single symbols, keeping all whitespace.

    >>> detokenize(tokenize("Hi, I'm here 😀!")) == "Hi, I'm here 😀!"
    True
    """
    tokens = []
    end = 0
    for match in _TOKEN.finditer(text):
        space, body = match.group(1), match.group(2)
        tokens.append(Token(body, space, bool(_WORD_START.match(body))))
        end = match.end()
    return TokenizedText(tokens, text[end:])


def detokenize(tokenized: TokenizedText) -> str:
    """Join tokens back into a string; two words never fuse for want of a space."""
    parts = []
    previous_is_word = False
    for index, token in enumerate(tokenized.tokens):
        space = token.space_before
        if index and not space and previous_is_word and token.is_word:
            space = " "
        parts.append(space)
        parts.append(token.text)
        previous_is_word = token.is_word
    parts.append(tokenized.trailing_space)
    return "".join(parts)


def insert_token(tokenized: TokenizedText, position: int, text: str, is_word: bool) -> None:
    """Insert a token before ``tokens[position]`` (or at the end), separated by a space.

    The new token takes over the whitespace that preceded the old one, so a text's leading
    whitespace stays leading.
    """
    tokens = tokenized.tokens
    if position >= len(tokens):
        tokens.append(Token(text, " " if tokens else "", is_word))
        return
    displaced = tokens[position]
    tokens.insert(position, Token(text, displaced.space_before, is_word))
    displaced.space_before = " "


def delete_tokens(tokenized: TokenizedText, positions: set[int]) -> None:
    """Remove the tokens at ``positions``; the first survivor inherits leading whitespace."""
    if not positions:
        return
    tokens = tokenized.tokens
    leading = tokens[0].space_before if tokens else ""
    kept = [token for index, token in enumerate(tokens) if index not in positions]
    if kept and 0 in positions:
        kept[0].space_before = leading
    tokenized.tokens = kept


def match_case(model: str, word: str) -> str:
    """Give ``word`` the casing pattern of ``model`` (UPPER, Title or as-is).

    >>> match_case("Bank", "depository financial institution")
    'Depository financial institution'
    """
    if len(model) > 1 and model.isupper():
        return word.upper()
    if model[:1].isupper() and word[:1].islower():
        return word[:1].upper() + word[1:]
    return word
