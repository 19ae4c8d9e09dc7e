"""EDA's four operations on a tokenized text (Wei and Zou 2019, section 2).

Each function takes a :class:`~augkit.text.TokenizedText`, a ``random.Random`` and the
operation's strength, and returns a new TokenizedText; the input is never modified.
Punctuation, emoji and spacing are separate tokens and stay where they are: the operations
move, replace or remove word tokens only.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from augkit.text import TokenizedText, delete_tokens, insert_token, match_case

#: Maps a word to its synonyms; empty for stop words and words WordNet does not know.
SynonymLookup = Callable[[str], tuple[str, ...]]


def synonym_replacement(text: TokenizedText, rng: random.Random, count: int, synonyms: SynonymLookup) -> TokenizedText:
    """Replace ``count`` distinct words (that have synonyms) by a random synonym each; every
    occurrence of a chosen word changes, keeping each occurrence's casing."""
    result = text.copy()
    forms: dict[str, None] = {}
    for position in result.word_positions():
        form = result.tokens[position].text.lower()
        if form not in forms and synonyms(form):
            forms[form] = None
    chosen = list(forms)
    rng.shuffle(chosen)
    for form in chosen[:count]:
        replacement = rng.choice(synonyms(form))
        for token in result.tokens:
            if token.is_word and token.text.lower() == form:
                token.text = match_case(token.text, replacement)
    return result


def random_insertion(text: TokenizedText, rng: random.Random, count: int, synonyms: SynonymLookup) -> TokenizedText:
    """``count`` times, insert a random synonym of a random word (that has synonyms) before
    a random word of the text."""
    result = text.copy()
    sources = [result.tokens[p].text for p in result.word_positions() if synonyms(result.tokens[p].text)]
    if not sources:
        return result
    for _ in range(count):
        synonym = rng.choice(synonyms(rng.choice(sources)))
        positions = result.word_positions()
        insert_token(result, positions[rng.randrange(len(positions))], synonym, is_word=True)
    return result


def random_swap(text: TokenizedText, rng: random.Random, count: int) -> TokenizedText:
    """``count`` times, swap two random words (punctuation stays in place)."""
    result = text.copy()
    positions = result.word_positions()
    if len(positions) < 2:
        return result
    tokens = result.tokens
    for _ in range(count):
        first, second = rng.sample(positions, 2)
        tokens[first].text, tokens[second].text = tokens[second].text, tokens[first].text
    return result


def random_deletion(text: TokenizedText, rng: random.Random, probability: float) -> TokenizedText:
    """Delete each word with ``probability``; a one-word text is left alone and at least one
    word always survives."""
    result = text.copy()
    positions = result.word_positions()
    if len(positions) < 2:
        return result
    doomed = {p for p in positions if rng.random() < probability}
    if len(doomed) == len(positions):
        doomed.discard(rng.choice(positions))
    delete_tokens(result, doomed)
    return result
