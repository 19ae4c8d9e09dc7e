"""``-p KEY=VALUE`` options read into a method's typed parameters: the ``augkit augment`` and
``augkit info`` options, and a plugin command's own ``-p`` (through :mod:`augkit.plugin`)."""

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
