"""Reading the JSON list of strings that the prompts ask a chat model for.

Models follow "answer with a JSON list of strings" loosely: they wrap the list in a Markdown
fence, put a sentence before or after it, return ``{"paraphrases": [...]}``, leave a trailing
comma, or use Python's single quotes. :func:`parse_texts` accepts each of these when only one
reading is possible and otherwise says, in a few words, what was wrong; it never returns None
and never raises on a reply.

>>> parse_texts('Sure! ```json\\n["I lost my card", "My card is gone",]\\n```')
Parsed(texts=['I lost my card', 'My card is gone'], problem=None)
>>> parse_texts('["a"] or maybe ["b"]').problem
'the reply holds 2 lists'
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Parsed", "parse_texts"]

NO_LIST = "no JSON list in the reply"
EMPTY_REPLY = "the reply is empty"
EMPTY_LIST = "the list is empty"
NO_STRINGS = "the list holds no strings"
UNCLOSED = "the reply ends inside the list (cut off at max_new_tokens?)"
#: The deepest a list can sit and still be read as the answer: 0 for a bare list, 1 for the
#: value of an object (``{"paraphrases": [...]}``).
MAX_ANSWER_DEPTH = 1


@dataclass(frozen=True)
class Parsed:
    """What a reply held: ``texts`` (stripped, non-empty strings, in the reply's order; an
    empty list when nothing usable was found) and ``problem`` (None, or a short reason why
    ``texts`` is empty, such as ``"no JSON list in the reply"``)."""

    texts: list[str] = field(default_factory=list)
    problem: str | None = None


def parse_texts(content: str | None) -> Parsed:
    """The strings of the one JSON list in a model's reply ``content``.

    Accepted: a JSON list of strings; the same inside a ```` ```json ```` fence or with prose
    before and after it; an object with exactly one list value (``{"paraphrases": [...]}``);
    trailing commas; Python-style single quotes; items that are objects with exactly one
    string value (``[{"text": "..."}]``). Items are stripped; empty and non-string items are
    dropped. Two different lists in one reply are ambiguous and yield a problem, not a guess.
    """
    if not isinstance(content, str) or not content.strip():
        return Parsed([], EMPTY_REPLY)
    lists, unclosed = _candidate_lists(content)
    if not lists:
        return Parsed([], UNCLOSED if unclosed else NO_LIST)
    readings = [_strings_of(items) for items in lists]
    with_strings = [texts for texts in readings if texts]
    distinct = [texts for i, texts in enumerate(with_strings) if texts not in with_strings[:i]]
    if len(distinct) > 1:
        return Parsed([], f"the reply holds {len(distinct)} lists")
    if distinct:
        return Parsed(distinct[0], None)
    return Parsed([], EMPTY_LIST if all(not items for items in lists) else NO_STRINGS)


def _candidate_lists(text: str) -> tuple[list[list[Any]], bool]:
    """Every list found at the top level of ``text`` (a whole-reply JSON value, else each
    balanced ``[...]`` or ``{...}`` block that decodes), and whether a list was left open."""
    whole = _decode(text.strip())
    if whole is not _NOT_JSON:
        found = _lists_in(whole)
        if found is not None:
            return found, False
    lists: list[list[Any]] = []
    unclosed = False
    read_until = -1
    for start, end, depth in _bracket_blocks(text):
        # Blocks nested deeper than an object's values are never the answer; skipping them
        # keeps a pathological reply ("[[[[...") linear to read.
        if start <= read_until or depth > MAX_ANSWER_DEPTH:
            continue
        if end is None:
            unclosed = unclosed or text[start] == "["
            continue
        value = _decode(text[start : end + 1])
        found = None if value is _NOT_JSON else _lists_in(value)
        if found is not None:
            lists += found
            read_until = end
        # else: not JSON, or JSON without a list; the blocks inside it are read next (an
        # object with unquoted keys still holds a valid list).
    return lists, unclosed and not lists


def _lists_in(value: Any) -> list[list[Any]] | None:
    """``[value]`` for a list; the lists among an object's values (so an object with two list
    values counts as two lists: ambiguous); None for anything else."""
    if isinstance(value, list):
        return [value]
    if isinstance(value, dict):
        lists = [item for item in value.values() if isinstance(item, list)]
        return lists or None
    return None


def _strings_of(items: list[Any]) -> list[str]:
    """The stripped, non-empty string items; an object item with exactly one string value
    counts as that string."""
    texts = []
    for item in items:
        if isinstance(item, dict):
            strings = [value for value in item.values() if isinstance(value, str)]
            item = strings[0] if len(strings) == 1 else None
        if isinstance(item, str) and item.strip():
            texts.append(item.strip())
    return texts


_NOT_JSON = object()


def _decode(block: str) -> Any:
    """``block`` decoded as JSON (control characters allowed inside strings), else with its
    trailing commas removed, else as a Python literal (single quotes); ``_NOT_JSON`` when none
    of these reads it."""
    for repair in (None, _without_trailing_commas):  # the repair only when plain JSON fails (6x cheaper for most replies)
        try:
            return json.loads(block if repair is None else repair(block), strict=False)
        except (ValueError, RecursionError):
            pass
    if block[:1] in "[{":
        try:
            return ast.literal_eval(block)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    return _NOT_JSON


def _without_trailing_commas(block: str) -> str:
    """``block`` without the commas that directly precede ``]`` or ``}`` outside strings."""
    out = []
    for i, char, quoted in _outside_strings(block, lambda: True):
        if not quoted and char == "," and block[i + 1 :].lstrip()[:1] in ("]", "}"):
            continue
        out.append(char)
    return "".join(out)


def _outside_strings(text: str, strings_count: Callable[[], bool]) -> Iterator[tuple[int, str, bool]]:
    """``(index, char, quoted)`` for each character of ``text``: ``quoted`` when it is part of
    a double-quoted JSON string (its quotes included). A quote opens a string only when
    ``strings_count()`` says strings count there (inside a bracket block, for the scanner)."""
    in_string = escaped = False
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            yield i, char, True
        elif char == '"' and strings_count():
            in_string = True
            yield i, char, True
        else:
            yield i, char, False


def _bracket_blocks(text: str) -> list[tuple[int, int | None, int]]:
    """``(start, end, depth)`` of every ``[`` and ``{`` in ``text``, in order: the index of its
    closing bracket (None when the text ends first or the brackets do not pair) and how many
    brackets enclose it. Brackets inside double-quoted strings within a block do not count;
    quotes in the prose between blocks are ignored."""
    closers = {"[": "]", "{": "}"}
    blocks: list[list[Any]] = []
    open_blocks: list[int] = []
    for i, char, quoted in _outside_strings(text, lambda: bool(open_blocks)):
        if quoted:
            continue
        if char in closers:
            open_blocks.append(len(blocks))
            blocks.append([i, None, len(open_blocks) - 1])
        elif char in "]}" and open_blocks:
            opened = blocks[open_blocks[-1]]
            if closers[text[opened[0]]] == char:
                opened[1] = i
                open_blocks.pop()
            else:
                open_blocks.clear()  # a stray closer: every open bracket stays unpaired
    return [tuple(block) for block in blocks]
