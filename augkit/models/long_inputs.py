"""Inputs longer than a model's limit: split into sentences (segtok) and pack adjacent
sentences into pieces that fit, so each piece is translated whole; a single sentence that
is still too long is cut, and the caller reports it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from augkit.errors import MissingDependencyError


@dataclass(frozen=True)
class Piece:
    """Part of an input: its text and whether it had to be cut to fit."""

    text: str
    truncated: bool = False


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (segtok's rule-based splitter; newlines split too)."""
    try:
        from segtok.segmenter import split_multi
    except ImportError as error:
        raise MissingDependencyError('splitting long inputs needs segtok: pip install "augkit[models]"') from error
    return [sentence.strip() for sentence in split_multi(text) if sentence.strip()]


def pack_pieces(text: str, limit: int, count_tokens: Callable[[str], int]) -> list[Piece]:
    """``text`` as pieces of whole sentences, each at most ``limit`` tokens by
    ``count_tokens`` when possible; a sentence longer than ``limit`` on its own becomes a
    piece marked ``truncated`` (the model will see only its first ``limit`` tokens)."""
    pieces: list[Piece] = []
    current: list[str] = []
    for sentence in split_sentences(text):
        if count_tokens(sentence) > limit:
            if current:
                pieces.append(Piece(" ".join(current)))
                current = []
            pieces.append(Piece(sentence, truncated=True))
            continue
        if current and count_tokens(" ".join([*current, sentence])) > limit:
            pieces.append(Piece(" ".join(current)))
            current = []
        current.append(sentence)
    if current:
        pieces.append(Piece(" ".join(current)))
    return pieces or [Piece(text, truncated=True)]
