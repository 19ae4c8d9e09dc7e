"""The prompts augkit sends to a chat model, as templates with named fields.

Defaults ask for a JSON list of strings, which :mod:`augkit_llm.parsing` reads (and repairs
when the repair is unambiguous). Users pass their own templates with the same fields;
a field a template does not know, or a malformed template, is refused when the method is
built, not in the middle of a run.

Fields
    ``{text}`` the row's text (paraphrasing), ``{n}`` how many outputs, ``{label}`` the row's
    label (empty when the run names no label column), ``{examples}`` the label's examples, one
    per line with "- " (generation), ``{contrast}`` the labels most easily confused with the
    row's label, examples of each and the sentence saying the new examples belong to the label
    and not to them (generation; empty when none are shown; ``{avoid}`` is its old name, accepted
    until augkit 0.3), ``{feedback}`` the row's earlier examples a filter rejected, with the
    filter's reasons (generation, in a feedback round; empty otherwise, so a first request and
    its cache entry stay what they were; a template without it gets the block at the end of its
    user message), ``{keep}`` the row's protected spans, to be kept
    exactly as written (:data:`KEEP_BLOCK`, :data:`USE_BLOCK`; empty for a row without any,
    so that its request, and its cache entry, are the same as without protection). A
    template without ``{keep}`` gets the line at the end of its user message.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable

from augkit.plugin import InvalidParameterError

PARAPHRASE_SYSTEM = (
    "You rewrite sentences for a labelled text dataset. A rewrite must keep the meaning, the intent "
    "and every name, number and negation of the original, so that it keeps the original's label; it "
    "should change the wording. Answer with a JSON list of strings and nothing else."
)
PARAPHRASE_USER = (
    "Write {n} different paraphrases of this text.\n"
    "Text: {text}\n"
    "{keep}"
    "Answer with a JSON list of {n} strings."
)
GENERATE_SYSTEM = (
    "You write new examples for a labelled text dataset. Each new example must clearly belong to the "
    "given label, read like the examples shown, and not copy them. Answer with a JSON list of strings "
    "and nothing else."
)
GENERATE_USER = (
    "Label: {label}\n"
    "Examples of this label:\n{examples}\n"
    "{contrast}"
    "{feedback}"
    "Write {n} new, different examples of the label \"{label}\".\n"
    "{keep}"
    "Answer with a JSON list of {n} strings."
)
#: How confusable labels are shown in ``{contrast}`` (empty when there are none): ``{lines}``
#: one example a line, ``- <example> (label: <other label>)``; ``{others}`` the other labels'
#: names, ``"Y" or "Z"`` (:func:`either_of`). The contrast is said in so many words, as in
#: "Clear Up Confusion" (Zhang et al.): the new examples belong to the label, not to those.
CONTRAST_BLOCK = (
    "Labels easily confused with \"{label}\", with examples of each:\n{lines}\n"
    "Each new example must belong to \"{label}\" and not to {others}.\n"
)
#: How a feedback round tells the model which of its earlier examples were rejected and why
#: (``{feedback}``): ``{lines}`` one a line, ``- <example> (rejected: <the filter's reason>)``.
FEEDBACK_BLOCK = (
    "Some of your earlier examples of \"{label}\" were rejected:\n{lines}\n"
    "Do not repeat them; write examples that avoid these problems.\n"
)
#: How a row's protected spans are shown in ``{keep}`` (paraphrasing; empty when it has none):
#: the spans as JSON strings, so that a quote or a comma in one is unambiguous.
KEEP_BLOCK = "Keep these exactly as they are written, in every paraphrase: {spans}\n"
#: ... and in generation, where each new example must hold them.
USE_BLOCK = "Use these exactly as they are written, in every example: {spans}\n"

#: ``llm_check``: the candidate (``{text}``) and the labels it is classified among (``{labels}``,
#: one a line after "- "); the answer is read by :func:`augkit_llm.check.chosen_label`.
CHECK_SYSTEM = (
    "You classify texts of a labelled dataset. Read the text and choose the one label, among those "
    "listed, that it belongs to. Answer with the label exactly as it is written and nothing else."
)
CHECK_USER = (
    "Labels:\n{labels}\n"
    "Text: {text}\n"
    "Which of these labels does the text belong to? Answer with one label of the list."
)

PARAPHRASE_FIELDS = ("text", "n", "label", "keep")
CHECK_FIELDS = ("text", "labels")
GENERATE_FIELDS = ("label", "examples", "contrast", "feedback", "n", "keep", "avoid")


def checked_template(template: str, allowed: Iterable[str], name: str) -> str:
    """``template`` after checking it is a str whose ``{fields}`` are all in ``allowed``."""
    if not isinstance(template, str) or not template.strip():
        raise InvalidParameterError(f"{name} must be a non-empty template string, got {template!r}")
    allowed = tuple(allowed)
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(template) if field is not None]
    except ValueError as error:
        raise InvalidParameterError(f"{name} is not a valid template ({error}); write a literal brace as {{{{ or }}}}") from None
    unknown = sorted({field for field in fields if field not in allowed})
    if unknown:
        raise InvalidParameterError(
            f"{name} uses the field(s) {', '.join('{' + f + '}' for f in unknown)}; the fields are "
            + ", ".join("{" + f + "}" for f in allowed)
        )
    return template


def render(template: str, **fields: object) -> str:
    """The template with its fields filled (fields it does not use are ignored)."""
    return template.format_map({key: "" if value is None else value for key, value in fields.items()})


def keep_line(block: str, spans: Iterable[str]) -> str:
    """``block`` listing the distinct ``spans`` in order as JSON strings, or "" for none.

    >>> keep_line(KEEP_BLOCK, ["fare code h", "h", "h"])
    'Keep these exactly as they are written, in every paraphrase: "fare code h", "h"\\n'
    """
    distinct = list(dict.fromkeys(spans))
    return block.format(spans=", ".join(json.dumps(span, ensure_ascii=False) for span in distinct)) if distinct else ""


def uses_field(template: str, field: str) -> bool:
    """Whether ``template`` has the field ``{field}``."""
    return any(name == field for _, name, _, _ in string.Formatter().parse(template))


def example_lines(texts: Iterable[str]) -> str:
    """Examples as the ``{examples}`` field shows them: one per line, after "- "."""
    return "\n".join(f"- {' '.join(text.split())}" for text in texts)


def either_of(names: Iterable[object]) -> str:
    """Names quoted and joined as alternatives, for :data:`CONTRAST_BLOCK`'s ``{others}``.

    >>> either_of(["card_arrival"]), either_of(["a", "b"]), either_of(["a", "b", "c"])
    ('"card_arrival"', '"a" or "b"', '"a", "b" or "c"')
    """
    quoted = [f'"{name}"' for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
