"""The short string form of a pipeline, as typed after ``-m`` on the command line.

Grammar (operators bind from loosest to tightest: ``|``, ``+``, ``>``)::

    pipeline  := ["[" key=value ("," key=value)* "]"] generator ("|" filter)*
    generator := chain ("+" chain)*          # interleave: every chain contributes candidates
    chain     := link (">" link)*            # sequence: each link rewrites the previous output
    link      := step | "(" generator ")"    # a group: several generators as one link
    step      := NAME ["(" key=value ("," key=value)* ")"]

Values are Python literals (``0.2``, ``True``, ``'x'``, ``[1, 2]``); a bare word is a string.
The leading brackets hold the pipeline's own options (``dedup``, ``protected``, ``oversample``).

A name may have dotted segments (``nlpaug.synonym(aug_p=0.2)|semantic``).

Examples: ``eda``, ``eda+aeda``, ``eda(alpha_sr=0.2)>aeda|dedup(ignore_case=True)``,
``(eda+aeda)>aeda``, ``[dedup=False, oversample=2.0] eda|semantic``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from augkit.errors import PipelineSpecError

#: A step: a registered name (dotted segments allowed, ``nlpaug.synonym``), then its arguments.
_STEP = re.compile(r"^\s*(?P<name>[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)*)\s*(?:\((?P<args>.*)\))?\s*$", re.DOTALL)


@dataclass
class StepSpec:
    """A named method or filter with inline keyword arguments."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class GroupSpec:
    """A parenthesised generator inside a chain: ``(eda+aeda)`` in ``(eda+aeda)>aeda``."""

    generator: list[list[StepSpec | GroupSpec]]


#: The pipeline options the leading brackets may set.
PIPELINE_OPTIONS = ("dedup", "protected", "oversample")


@dataclass
class PipelineSpec:
    """A parsed pipeline string: an interleaving of chains of steps (or groups), then
    filters, and the pipeline's own options."""

    generator: list[list[StepSpec | GroupSpec]]  # interleaving of chains
    filters: list[StepSpec]
    options: dict[str, Any] = field(default_factory=dict)

    def generator_steps(self) -> list[StepSpec]:
        """Every augmenter step of the generator, groups flattened, in order."""
        return _steps_of(self.generator)


def _steps_of(generator: list[list[StepSpec | GroupSpec]]) -> list[StepSpec]:
    return [leaf for chain in generator for link in chain
            for leaf in (_steps_of(link.generator) if isinstance(link, GroupSpec) else [link])]


def parse_pipeline_spec(spec: str) -> PipelineSpec:
    """Parse ``spec`` or fail with a message that points at the faulty part.

    >>> parse_pipeline_spec("eda+aeda|dedup").filters[0].name
    'dedup'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise PipelineSpecError("empty pipeline: give a method name such as 'eda'")
    options, spec = _leading_options(spec)
    generator_text, *filter_texts = _split_top_level(spec, "|")
    filters = [_parse_step(text) for text in filter_texts]
    return PipelineSpec(_parse_generator(generator_text), filters, options)


def format_options(options: dict[str, Any]) -> str:
    """The leading brackets of a pipeline string (empty when no option is set)."""
    return f"[{', '.join(f'{k}={v!r}' for k, v in options.items())}] " if options else ""


def _leading_options(spec: str) -> tuple[dict[str, Any], str]:
    text = spec.lstrip()
    if not text.startswith("["):
        return {}, spec
    depth = 0
    for index, char in enumerate(text):
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0:
            break
    else:
        raise PipelineSpecError(f"unclosed '[' in {spec.strip()!r}")
    options = _parse_step(f"options({text[1:index]})").args
    # [dedup=false] as a shell user types it: the words true and false are the booleans
    options = {key: {"true": True, "false": False}.get(value.lower(), value) if isinstance(value, str) else value
               for key, value in options.items()}
    unknown = sorted(set(options) - set(PIPELINE_OPTIONS))
    if unknown:
        raise PipelineSpecError(f"unknown pipeline option(s) {', '.join(unknown)} in '[...]'; "
                                f"the options are {', '.join(PIPELINE_OPTIONS)}")
    rest = text[index + 1:]
    if not rest.strip():
        raise PipelineSpecError(f"no method after the options in {spec.strip()!r}")
    return options, rest


def _parse_generator(text: str) -> list[list[StepSpec | GroupSpec]]:
    return [[_parse_link(link) for link in _split_top_level(chain, ">")] for chain in _split_top_level(text, "+")]


def _parse_link(text: str) -> StepSpec | GroupSpec:
    stripped = text.strip()
    if stripped.startswith("(") and stripped.endswith(")"):
        inner = stripped[1:-1]
        if not inner.strip():
            raise PipelineSpecError(f"empty group '()' in {text.strip()!r}")
        return GroupSpec(_parse_generator(inner))
    return _parse_step(text)


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
