"""Reading the ``augkit`` command's repeatable options: ``-p KEY=VALUE`` typed by the parameter it
names, ``--context-column NAME=COLUMN``, and ``--no-cache`` as each cached step's ``cache=False``."""

from __future__ import annotations

from typing import Any

from augkit.errors import UsageError
from augkit.steps.params import Parameter, parse_cli_value


def parse_param_options(pairs: list[str], method: str) -> dict[str, Any]:
    """Turn ``-p key=value`` options into typed parameters, using the declared types of the
    method (or of the step a dotted key ``step.key`` names)."""
    from augkit.pipeline.spec import parse_pipeline_spec
    from augkit.registry.discovery import get_registry

    spec = parse_pipeline_spec(method)
    leaves = [step.name for step in spec.generator_steps()]
    registry = get_registry()
    params: dict[str, Any] = {}
    for pair in pairs:
        key, separator, raw = pair.partition("=")
        key = key.strip()
        if not separator or not key:
            raise UsageError(f"-p expects KEY=VALUE, got {pair!r}")
        step, _, name = key.rpartition(".")
        step = step or (leaves[0] if len(leaves) == 1 else "")
        params[key] = parse_cli_value(_find_parameter(registry, step, name), raw)
    return params


def _find_parameter(registry, step: str, name: str) -> Parameter | None:
    table = registry.methods if step in registry.methods else registry.filters
    entry = table.get(step)
    if entry is None:
        return None
    name = getattr(entry.cls, "renamed_parameters", {}).get(name, name)
    return next((p for p in entry.cls.parameters() if p.name == name), None)


def parse_context_column_options(options: list[str]) -> dict[str, str]:
    """``--context-column NAME=COLUMN`` (or a bare ``COLUMN``, read under its own name)
    options as ``{name: column}``."""
    mapping: dict[str, str] = {}
    for option in options:
        name, separator, column = option.partition("=")
        name, column = name.strip(), column.strip() if separator else name.strip()
        if not name or not column:
            raise UsageError(f"--context-column expects NAME=COLUMN or COLUMN, got {option!r}")
        if mapping.get(name, column) != column:
            raise UsageError(f"--context-column {name} is given twice ({mapping[name]!r} and {column!r})")
        mapping[name] = column
    return mapping


def without_cache(params: dict[str, Any], method: str) -> dict[str, Any]:
    """``params`` with ``STEP.cache=False`` for every step of ``method`` that has a ``cache``
    parameter (``--no-cache``); an error when none has."""
    import inspect

    from augkit.pipeline.spec import parse_pipeline_spec
    from augkit.registry.discovery import get_registry

    registry, parsed = get_registry(), parse_pipeline_spec(method)
    names = [step.name for step in (*parsed.generator_steps(), *parsed.filters)]
    cached = []
    for name in dict.fromkeys(names):
        table = registry.methods if name in registry.methods else registry.filters
        entry = table.get(name)
        if entry is not None and "cache" in inspect.signature(entry.cls.__init__).parameters:
            cached.append(name)
    if not cached:
        raise UsageError(f"--no-cache: no step of {method!r} keeps a cache (methods with a cache parameter, such as "
                         "llm_paraphrase, do)")
    return {**params, **{f"{name}.cache": False for name in cached}}
