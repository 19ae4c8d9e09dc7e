"""T5 span infilling around keywords (ParaMac's generation step, e2).

The keywords, in one chosen order, are joined by T5's sentinel tokens, one before the first
keyword, one between each pair and one after the last::

    <extra_id_0> sofa <extra_id_1> wall <extra_id_2> thin blanket <extra_id_3>

with the sentence's preceding and following text around it when the caller gives them. T5
was pre-trained to predict exactly such masked spans; its output names each span by its
sentinel (``<extra_id_0> A large <extra_id_1> was pushed against the <extra_id_2> ...``),
and the spans are put back between the keywords. A span the model leaves out is empty, so
every keyword stays in the output, in the chosen order (the released code instead cut the
text at the first unfilled span, losing the keywords after it).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from augkit.plugin import InvalidParameterError

#: T5's sentinel spelling; ``{}`` is the span number.
SENTINEL = "<extra_id_{}>"
_SENTINEL = re.compile(r"<extra_id_(\d+)>")
_SPACES = re.compile(r"\s+")
#: A space the joined pieces leave before closing punctuation or a clitic ("had n't", "wall .").
_SPACE_BEFORE = re.compile(r"\s+(?=[.,;:!?)\]}%]|n't\b|'(?:s|re|ve|ll|d|m)\b)")
_SPACE_AFTER_OPENING = re.compile(r"(?<=[(\[{])\s+")
#: What stands for a protected keyword while the sentence is tidied: private-use characters,
#: which no rule of :func:`tidy` touches and no model writes.
_KEPT = "\ue000{}\ue001"
_KEPT_MARK = re.compile("\ue000(\\d+)\ue001")


def template(keywords: Sequence[str]) -> str:
    """The keywords joined by sentinels, one before, between and after them."""
    if not keywords:
        raise InvalidParameterError("span infilling needs at least one keyword")
    pieces = [SENTINEL.format(0)]
    for index, keyword in enumerate(keywords, start=1):
        pieces += [keyword, SENTINEL.format(index)]
    return " ".join(pieces)


def model_input(keywords: Sequence[str], before: str = "", after: str = "") -> str:
    """What T5 reads: the preceding context, the template, the following context."""
    return " ".join(part for part in (before.strip(), template(keywords), after.strip()) if part)


def context_before(text: str, limit: int) -> str:
    """The last ``limit`` characters of the text before a sentence, cut at a word boundary."""
    return _cut(text, limit, keep_end=True)


def context_after(text: str, limit: int) -> str:
    """The first ``limit`` characters of the text after a sentence, cut at a word boundary."""
    return _cut(text, limit, keep_end=False)


def _cut(text: str, limit: int, keep_end: bool) -> str:
    text = _SPACES.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    if keep_end:
        piece = text[len(text) - limit :]
        return piece.split(" ", 1)[1] if " " in piece and not text[len(text) - limit - 1].isspace() else piece.strip()
    piece = text[:limit]
    return piece.rsplit(" ", 1)[0] if " " in piece and not text[limit].isspace() else piece.strip()


def spans(output: str, count: int) -> list[str]:
    """The text the model put in each of ``count`` spans (sentinels 0..count-1), "" for a span
    it left out; text before the first sentinel and after a sentinel beyond ``count`` is
    ignored."""
    found = [""] * count
    parts = _SENTINEL.split(output)
    # parts: [before, number, text, number, text, ...]
    for number, text in zip(parts[1::2], parts[2::2]):
        index = int(number)
        if index < count and not found[index]:
            found[index] = text.strip()
    return found


def fill(keywords: Sequence[str], output: str, protected: Collection[int] = ()) -> str:
    """The keywords with the model's spans between them, as one sentence. The keywords at
    the positions ``protected`` (protected spans) are written exactly as given: :func:`tidy`
    neither re-spaces nor capitalises them.

    >>> fill(["h", "fare code"], "<extra_id_0><extra_id_1> is the <extra_id_2> ?", protected=[0])
    'h is the fare code?'
    """
    filled = spans(output, len(keywords) + 1)
    pieces = [filled[0]]
    for position, (keyword, span) in enumerate(zip(keywords, filled[1:])):
        pieces += [_KEPT.format(position) if position in protected else keyword, span]
    tidied = tidy(" ".join(piece for piece in pieces if piece))
    return _KEPT_MARK.sub(lambda found: keywords[int(found.group(1))], tidied) if protected else tidied


def tidy(text: str) -> str:
    """One space between words, none before closing punctuation or a clitic, none after an
    opening bracket; the first letter upper-cased."""
    text = _SPACE_AFTER_OPENING.sub("", _SPACE_BEFORE.sub("", _SPACES.sub(" ", text).strip()))
    return text[:1].upper() + text[1:]


def in_order(text: str, keywords: Sequence[str]) -> bool:
    """Whether ``text`` holds the keywords as whole words, each after the previous one (the
    method's guarantee, for tests and checks); a keyword's first letter may have been
    capitalised at the start of the sentence."""
    position = 0
    for keyword in keywords:
        first = keyword[:1]
        head = f"[{re.escape(first.lower())}{re.escape(first.upper())}]" if first.isalpha() else re.escape(first)
        found = re.compile(rf"(?<!\w){head}{re.escape(keyword[1:])}(?!\w)").search(text, position)
        if found is None:
            return False
        position = found.end()
    return True
