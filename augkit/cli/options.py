"""Reading the ``augkit`` command's repeatable options: ``--context-column NAME=COLUMN``, and
``--no-cache`` as each cached step's ``cache=False`` (``-p KEY=VALUE``: :mod:`augkit.pipeline.param_options`)."""

from __future__ import annotations

from typing import Any

from augkit.errors import UsageError


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
