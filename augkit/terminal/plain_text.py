"""Docstrings as a terminal shows them: the first sentence, in plain text.

``augkit list`` describes each method and filter by the first sentence of its class docstring.
A sentence often runs onto a second line, and docstrings are written in reStructuredText
(``k``, :func:`augkit.augment`, **bold**), which a terminal shows raw.
"""

from __future__ import annotations

import re

#: reStructuredText and Markdown markup, with what a terminal shows instead: a role keeps its
#: target (the last part after ``~``), literals and emphasis keep their text.
_MARKUP = (
    (re.compile(r":[\w:]+:`~[^`]*?([^.`]+)`"), r"\1"),  # :class:`~augkit.Pipeline` -> Pipeline
    (re.compile(r":[\w:]+:`([^`]+)`"), r"\1"),  # :func:`augkit.augment` -> augkit.augment
    (re.compile(r"``([^`]+)``"), r"\1"),
    (re.compile(r"`([^`]+)`"), r"\1"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),
)
#: Words whose final period ends no sentence ("Liu et al. 2022", "e.g. eda").
_ABBREVIATIONS = frozenset({"al", "e.g", "i.e", "etc", "vs", "cf", "approx", "fig", "eq", "no", "resp"})
#: Where a sentence may end: . ! or ? (with a closing quote or bracket), then white space and
#: what starts a sentence.
_SENTENCE_END = re.compile(r"""[.!?]["')\]]*\s+(?=[A-Z0-9"'(])""")


def plain_text(text: str) -> str:
    """``text`` without markup, its white space runs made single spaces.

    >>> plain_text("Keeps the best ``k`` (:func:`~augkit.metrics.bertscore`)")
    'Keeps the best k (bertscore)'
    """
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def first_sentence(doc: str | None) -> str:
    """The first sentence of ``doc``'s first paragraph, whole (however many lines it spans),
    in plain text; the whole paragraph when it holds one sentence.

    >>> first_sentence('''ParaMac (Liu et al. 2022): keyword-anchored
    ...     infilling, ``ranked``. Models load on first use.''')
    'ParaMac (Liu et al. 2022): keyword-anchored infilling, ranked.'
    """
    paragraph = plain_text(re.split(r"\n\s*\n", (doc or "").strip(), maxsplit=1)[0])
    for end in _SENTENCE_END.finditer(paragraph):
        last_word = paragraph[: end.start()].rsplit(" ", 1)[-1].strip("(\"'").lower()
        if last_word not in _ABBREVIATIONS:
            return paragraph[: end.end()].rstrip()
    return paragraph
