"""Reading a row's protection: the caller's phrases (``protect=``), the row's own value in a
protect column (``protect_column=``: phrases, character spans or BIO tags), and the codes
protected by default (short all-capital and single-letter tokens).

What a protect column may hold, per row:

- nothing (None, NaN, an empty string): no spans of its own;
- BIO tags, one per whitespace-separated word of the text (``O B-playlist I-playlist``), as
  the ``seq.out`` files of slot-annotated intent sets: each ``B-type`` (or an ``I-type`` that
  does not continue one) starts a span of that type, ``I-type`` words continue it;
- phrases: a list of strings, a JSON list (``["judge jules", "study"]``) or one string with
  phrases separated by ``|``; every occurrence of each (whole words, any case) is protected,
  and a phrase the text does not hold is an error;
- character spans: a list of ``(start, end)`` or ``(start, end, type)`` pairs, or of dicts
  with ``start``, ``end`` and optionally ``label``/``type``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from augkit.errors import InputError, InvalidParameterError
from augkit.steps.inputs import is_missing
from augkit.steps.protected_spans import (
    CODE,
    PHRASE,
    SLOT,
    ProtectedSpan,
    RowProtection,
)
from augkit.text import split_words

#: One BIO tag: ``O``, or ``B-``/``I-`` and a slot type.
_BIO_TAG = re.compile(r"(?:O|[BI]-\S+)\Z")
_WHITESPACE_WORD = re.compile(r"\S+")
#: Where phrases in one string are separated (``judge jules|instrumental study``).
PHRASE_SEPARATOR = "|"
#: Single letters that are words, not codes: the article and the pronoun.
_LETTER_WORDS = frozenset("aAiI")
#: Longest all-capital token protected as a code ("ATM", "PIN", "COVID"); longer ones are
#: words in capitals more often than acronyms.
MAX_CODE_CAPITALS = 5


def read_protection(
    text: str,
    *,
    phrases: Sequence[str] = (),
    value: Any = None,
    codes: bool = True,
    where: str = "",
) -> tuple[RowProtection, bool]:
    """The protected spans of ``text`` and whether ``value`` was BIO tags (whose re-aligned
    tags the output then carries). ``where`` names the row in errors (``"column 'slots', row 3"``)."""
    tagged, is_bio = _value_spans(text, value, where)
    spans = list(tagged)
    if phrases:
        spans += _merge_same_kind([span for span in find_phrases(text, tuple(phrases)) if not _overlaps_any(span, tagged)])
    if codes:
        spans += [span for span in code_spans(text) if not _overlaps_any(span, spans)]
    return tuple(sorted(spans, key=lambda span: span.start)), is_bio


def is_bio_value(value: Any) -> bool:
    """Whether a protect-column value is a string of BIO tags."""
    if not isinstance(value, str):
        return False
    tags = value.split()
    return bool(tags) and all(_BIO_TAG.match(tag) for tag in tags)


def phrase_list(protect: Any, owner: str = "protect") -> tuple[str, ...]:
    """The caller's ``protect=`` as phrases: None is none, a string is a ``|``-separated
    list (the command line's ``--protect 'fare code|first class'``), any other collection
    must hold non-blank strings."""
    if protect is None:
        return ()
    items = protect.split(PHRASE_SEPARATOR) if isinstance(protect, str) else protect
    if isinstance(items, (bytes, Mapping)) or not isinstance(items, Iterable):
        raise InvalidParameterError(f"{owner} must be a list of words or phrases (or one string of them separated by "
                         f"'{PHRASE_SEPARATOR}'), got {type(protect).__name__}")
    phrases = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise InvalidParameterError(f"{owner} must hold non-blank words or phrases, got {item!r}")
        phrases.append(" ".join(item.split()))
    return tuple(dict.fromkeys(phrases))


def find_phrases(text: str, phrases: tuple[str, ...]) -> list[ProtectedSpan]:
    """Every occurrence of each phrase in ``text``: whole words, any case, any spacing."""
    spans = []
    for match in _phrase_pattern(phrases).finditer(text):
        spans.append(ProtectedSpan(match.start(), match.end(), match.group(), PHRASE))
    return spans


@functools.lru_cache(maxsize=64)
def _phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    # Longest first, so that "new york city" wins over "new york" at the same place.
    alternatives = [r"\s+".join(map(re.escape, phrase.split())) for phrase in sorted(phrases, key=len, reverse=True)]
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", re.IGNORECASE)


#: A word as :func:`augkit.text.split_words` cuts them (a possessive "'s" left out: "GO's"),
#: when it may be a code: a single letter, 2 to 5 capitals, or letters and digits mixed. :func:`_is_code` decides; most texts have
#: no such word, and one search over the text tells.
_MAYBE_CODE = re.compile(
    r"(?<![\w'’-])(?:"
    r"[^\W\d_]"  # a single letter
    r"|[A-Z\u00c0-\u00de]{2,%d}"  # capitals
    r"|(?=[\w'’-]*\d)(?=[\w'’-]*[^\W\d_])\w+(?:[-'’]\w+)*"  # letters and digits
    r")(?=['’][sS](?![\w'’-])|(?![\w'’-]))" % MAX_CODE_CAPITALS  # the word ends, or its possessive does
)


def code_spans(text: str) -> list[ProtectedSpan]:
    """The tokens protected by default: single letters other than "a" and "I" (a fare code
    "h", a class "B"), all-capital tokens of 2 to 5 letters ("ATM", "PIN", "UK") unless the
    text is written in capitals, and words mixing letters and digits ("b737", "ua123", "4g").

    >>> [span.text for span in code_spans("what is fare code h for the ATM in terminal b2")]
    ['h', 'ATM', 'b2']
    """
    found = [match for match in _MAYBE_CODE.finditer(text) if _is_code(match.group())]
    if not found:
        return []
    if any(len(match.group()) > 1 and match.group().isalpha() for match in found) and _written_in_capitals(text):
        found = [match for match in found if not (len(match.group()) > 1 and match.group().isalpha())]
    return [ProtectedSpan(match.start(), match.end(), match.group(), CODE) for match in found]


def _is_code(word: str) -> bool:
    if len(word) == 1:
        return word not in _LETTER_WORDS
    return not word.isalpha() or word.isupper()


def _written_in_capitals(text: str) -> bool:
    """Most of the text's words of two letters or more are in capitals: casing says nothing."""
    lettered = [word for word in split_words(text).words if word[:1].isalpha() and len(word) > 1]
    return len(lettered) >= 3 and 2 * sum(word.isupper() for word in lettered) > len(lettered)


def _value_spans(text: str, value: Any, where: str) -> tuple[list[ProtectedSpan], bool]:
    if value is None or (not isinstance(value, (str, list, tuple)) and _is_missing_scalar(value)):
        return [], False
    if isinstance(value, str):
        stripped = value.strip()
        if not stripped:
            return [], False
        if is_bio_value(stripped):
            return bio_spans(text, stripped.split(), where), True
        if stripped.startswith("["):
            try:
                value = json.loads(stripped)
            except json.JSONDecodeError as error:
                raise InputError(f"{where}: the protect value {_cut(stripped)!r} starts like a JSON list but is not one "
                                 f"({error.msg} at character {error.pos})") from None
        else:
            value = stripped.split(PHRASE_SEPARATOR)
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):
        value = value.tolist()  # a NumPy array from a DataFrame or an Arrow column
    if not isinstance(value, (list, tuple)):
        raise InputError(f"{where}: a protect value must be BIO tags, phrases or character spans; "
                         f"got {type(value).__name__} {_cut(repr(value))}")
    return _listed_spans(text, list(value), where), False


def _is_missing_scalar(value: Any) -> bool:
    try:
        return is_missing(value)
    except (TypeError, ValueError):
        return False


def bio_spans(text: str, tags: Sequence[str], where: str = "") -> list[ProtectedSpan]:
    """The slots BIO ``tags`` mark in ``text`` (one tag per whitespace-separated word).

    >>> [(s.text, s.label) for s in bio_spans("add step to me to the 50 clasicos playlist",
    ...     "O B-entity_name I-entity_name I-entity_name O O B-playlist I-playlist O".split())]
    [('step to me', 'entity_name'), ('50 clasicos', 'playlist')]
    """
    words = list(_WHITESPACE_WORD.finditer(text))
    if len(words) != len(tags):
        raise InputError(f"{where}: {len(tags)} BIO tags for the {len(words)} whitespace-separated words of "
                         f"{_cut(text)!r}; a BIO column needs one tag per word")
    spans: list[ProtectedSpan] = []
    start = end = None
    slot = ""
    for word, tag in zip(words, tags):
        if tag.startswith("I-") and start is not None and tag[2:] == slot:
            end = word.end()
            continue
        if start is not None:
            spans.append(ProtectedSpan(start, end, text[start:end], SLOT, slot))
            start = None
        if tag != "O":
            start, end, slot = word.start(), word.end(), tag[2:]
    if start is not None:
        spans.append(ProtectedSpan(start, end, text[start:end], SLOT, slot))
    return spans


def _listed_spans(text: str, items: list, where: str) -> list[ProtectedSpan]:
    spans: list[ProtectedSpan] = []
    phrases = []
    for item in items:
        if isinstance(item, str):
            if not item.strip():
                continue
            phrases.append(" ".join(item.split()))
        else:
            spans.append(_character_span(text, item, where))
    if phrases:
        found = find_phrases(text, tuple(phrases))
        missing = [phrase for phrase in phrases if not any(span.text.lower().split() == phrase.lower().split() for span in found)]
        if missing:
            raise InputError(f"{where}: the protected phrase {missing[0]!r} does not occur in the text {_cut(text)!r} "
                             "(whole words, any case)")
        spans += [span for span in found if not _overlaps_any(span, spans)]
    return _merge_same_kind(sorted(spans, key=lambda span: span.start))


def _character_span(text: str, item: Any, where: str) -> ProtectedSpan:
    if isinstance(item, Mapping):
        start, end = item.get("start"), item.get("end")
        label = item.get("label", item.get("type", ""))
    elif isinstance(item, (list, tuple)) and len(item) in (2, 3):
        start, end = item[0], item[1]
        label = item[2] if len(item) == 3 else ""
    else:
        raise InputError(f"{where}: a protected span is a phrase, (start, end[, type]) or a dict with start and end; "
                         f"got {_cut(repr(item))}")
    if not all(isinstance(number, int) and not isinstance(number, bool) for number in (start, end)) or not 0 <= start < end <= len(text):
        raise InputError(f"{where}: the protected span {_cut(repr(item))} is not a character range of the "
                         f"{len(text)}-character text {_cut(text)!r}")
    return ProtectedSpan(start, end, text[start:end], PHRASE, "" if label is None else str(label))


def _overlaps_any(span: ProtectedSpan, others: Iterable[ProtectedSpan]) -> bool:
    return any(span.start < other.end and other.start < span.end for other in others)


def _merge_same_kind(spans: list[ProtectedSpan]) -> list[ProtectedSpan]:
    """Spans of one kind that overlap, as one span covering both (two listed phrases
    "fare code" and "code h" protect "fare code h")."""
    merged: list[ProtectedSpan] = []
    for span in sorted(spans, key=lambda s: s.start):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            end = max(last.end, span.end)
            text = last.text + span.text[last.end - span.start:] if end > last.end else last.text
            merged[-1] = ProtectedSpan(last.start, end, text, last.kind, last.label)
        else:
            merged.append(span)
    return merged


@dataclass(frozen=True)
class ProtectionRequest:
    """What a run protects: the caller's ``phrases`` (every row), the ``column`` holding each
    row's own spans, phrases or BIO tags (None: none), and whether the default ``codes`` are
    protected."""

    phrases: tuple[str, ...] = ()
    codes: bool = True
    column: str | None = None

    @property
    def active(self) -> bool:
        return bool(self.phrases) or self.codes or self.column is not None


@dataclass
class RunProtection:
    """The protection of every row of a run (or of a part of it), aligned with its values:
    ``spans[i]`` for row ``i`` (empty for a row without any, or not augmented), and
    ``bio[i]``: whether its protect value was BIO tags (its augmentations then get re-aligned
    tags in that column). ``spans`` is None when no row has a protected span."""

    spans: list[RowProtection] | None
    bio: list[bool]


def read_rows(texts: Sequence[str | None], values: Sequence[Any] | None, request: ProtectionRequest,
              describe_row: Callable[[int], str]) -> RunProtection:
    """Each row's protection (``texts[i]`` None for a row that is not augmented; ``values``
    the protect column's values, aligned, or None)."""
    if not request.active:
        return RunProtection(None, [False] * len(texts))
    if values is not None and len(values) != len(texts):
        raise InputError(f"protect column {request.column!r} has {len(values)} values for {len(texts)} rows")
    spans: list[RowProtection] = []
    bio: list[bool] = []
    for index, text in enumerate(texts):
        if text is None:
            spans.append(())
            bio.append(False)
            continue
        where = f"protect column {request.column!r}, {describe_row(index)}" if request.column else describe_row(index)
        row, is_bio = read_protection(text, phrases=request.phrases, value=None if values is None else values[index],
                                      codes=request.codes, where=where)
        spans.append(row)
        bio.append(is_bio)
    return RunProtection(spans if any(spans) else None, bio)


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
