"""Argument checks the metrics share: texts are ``str``, pairs line up, references come
one or several per hypothesis.

Every check fails with :class:`~augkit.errors.InvalidParameterError` (a ``ValueError``)
naming the argument and the position of the first bad item.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from augkit.errors import InvalidParameterError
from augkit.steps.params import check_texts

#: A tokenizer for the word-level metrics: text in, tokens out.
Tokenizer = Callable[[str], Sequence[str]]

#: One reference per hypothesis (``str``) or several (a sequence of ``str``).
References = Sequence[str | Sequence[str]]


def whitespace_tokens(text: str) -> list[str]:
    """The default tokenizer of the word-level metrics: ``text.split()``.

    Case and punctuation are kept as written ("Card?" and "card" are different tokens),
    as in ParaMac's released code; inserted punctuation (AEDA) counts as tokens.
    """
    return text.split()


def non_empty_text_list(texts: Sequence[str], name: str) -> list[str]:
    """:func:`~augkit.steps.params.check_texts`, refusing an empty list (a corpus score of nothing is undefined)."""
    items = check_texts(name, texts)
    if not items:
        raise InvalidParameterError(f"{name} is empty; give at least one text")
    return items


def reference_lists(references: References, count: int, name: str = "references") -> list[list[str]]:
    """One list of reference strings per hypothesis: a ``str`` becomes a one-item list;
    a sequence must hold at least one ``str``. ``count`` is the number of hypotheses."""
    if isinstance(references, str):
        raise InvalidParameterError(f"{name} must give one entry per hypothesis, not a single str")
    entries = list(references)
    if len(entries) != count:
        raise InvalidParameterError(f"{name} must give one entry per hypothesis: {count} hypotheses, {len(entries)} {name}")
    out = []
    for position, entry in enumerate(entries):
        refs = [entry] if isinstance(entry, str) else list(entry) if isinstance(entry, Sequence) else None
        if refs is None:
            raise InvalidParameterError(f"{name}[{position}] is {type(entry).__name__}; expected a str or a list of str")
        if not refs:
            raise InvalidParameterError(f"{name}[{position}] is empty; every hypothesis needs at least one reference")
        for inner, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise InvalidParameterError(f"{name}[{position}][{inner}] is {type(ref).__name__}, expected str")
        out.append(refs)
    return out


def same_length(a: list, b: list, name_a: str, name_b: str) -> None:
    """``a`` and ``b`` are paired item by item, so they must be equally long."""
    if len(a) != len(b):
        raise InvalidParameterError(f"{name_a} and {name_b} are paired item by item: got {len(a)} and {len(b)} texts")


def tokenizer_or_default(tokenize: Tokenizer | None) -> Tokenizer:
    """``tokenize`` itself, or :func:`whitespace_tokens` for None."""
    if tokenize is None:
        return whitespace_tokens
    if not callable(tokenize):
        raise InvalidParameterError(f"tokenize must be a function from str to a list of tokens, got {tokenize!r}")
    return tokenize
