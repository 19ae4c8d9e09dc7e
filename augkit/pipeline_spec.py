"""The short string form of a pipeline, as typed after ``-m`` on the command line.

Grammar (operators bind from loosest to tightest: ``|``, ``+``, ``>``)::

    pipeline  := generator ("|" filter)*
    generator := chain ("+" chain)*          # union: every chain contributes candidates
    chain     := step (">" step)*            # sequence: each step rewrites the previous output
    step      := NAME ["(" key=value ("," key=value)* ")"]

Values are Python literals (``0.2``, ``True``, ``'x'``, ``[1, 2]``); a bare word is a string.

Examples: ``eda``, ``eda+aeda``, ``eda(alpha_sr=0.2)>aeda|dedup(ignore_case=True)``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from augkit.errors import PipelineSpecError

_STEP = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_-]*)\s*(?:\((?P<args>.*)\))?\s*$", re.DOTALL)


@dataclass
class StepSpec:
    """A named method or filter with inline keyword arguments."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class PipelineSpec:
    """A parsed pipeline string: a union of chains of steps, then filters."""

    generator: list[list[StepSpec]]  # union of chains
    filters: list[StepSpec]


def parse_pipeline_spec(spec: str) -> PipelineSpec:
    """Parse ``spec`` or fail with a message that points at the faulty part.

    >>> parse_pipeline_spec("eda+aeda|dedup").filters[0].name
    'dedup'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise PipelineSpecError("empty pipeline: give a method name such as 'eda'")
    generator_text, *filter_texts = _split_top_level(spec, "|")
    generator = [
        [_parse_step(step) for step in _split_top_level(chain, ">")]
        for chain in _split_top_level(generator_text, "+")
    ]
    filters = [_parse_step(text) for text in filter_texts]
    return PipelineSpec(generator, filters)


def format_step(name: str, args: dict[str, Any]) -> str:
    """The string form of one step: ``eda(alpha_sr=0.2)``."""
    if not args:
        return name
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def _parse_step(text: str) -> StepSpec:
    match = _STEP.match(text)
    if not match:
        raise PipelineSpecError(f"cannot parse pipeline step {text.strip()!r}: expected NAME or NAME(key=value, ...)")
    args_text = match.group("args")
    args: dict[str, Any] = {}
    if args_text is not None and args_text.strip():
        try:
            call = ast.parse(f"_({args_text})", mode="eval").body
        except SyntaxError as error:
            raise PipelineSpecError(f"cannot parse arguments of {text.strip()!r}: {error.msg}") from None
        if call.args:
            raise PipelineSpecError(f"arguments of {match.group('name')!r} must be key=value, got a positional value")
        for keyword in call.keywords:
            if keyword.arg is None:
                raise PipelineSpecError(f"'**' is not allowed in {text.strip()!r}")
            args[keyword.arg] = _literal(keyword.value)
    return StepSpec(match.group("name"), args)


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name):  # a bare word: treat as a string
        return node.id
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise PipelineSpecError(f"value {ast.unparse(node)!r} is not a literal") from None


def _split_top_level(text: str, separator: str) -> list[str]:
    """Split on ``separator`` outside brackets and quotes; empty parts are errors."""
    parts, depth, quote, start = [], 0, None, 0
    for index, char in enumerate(text):
        if quote:
            if char == quote and text[index - 1] != "\\":
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                raise PipelineSpecError(f"unbalanced ')' in {text!r}")
        elif char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    if quote or depth:
        raise PipelineSpecError(f"unclosed {'quote' if quote else 'bracket'} in {text!r}")
    parts.append(text[start:])
    if any(not part.strip() for part in parts):
        raise PipelineSpecError(f"empty step around {separator!r} in {text.strip()!r}")
    return parts
