"""What the page offers to build a pipeline from: the registered methods and filters, their
parameters with defaults and the scores they add, read from the registry. So a plugin's
method appears on the page as soon as it is installed, as it does in ``augkit list``."""

from __future__ import annotations

from typing import Any

from augkit.steps.params import REQUIRED

#: Pipelines offered beside the bare method names: the offline ones the docs use.
EXAMPLE_PIPELINES = ("eda|semantic", "eda+aeda|dedup", "backtranslation|label_integrity")


def pipeline_choices(registry: Any) -> list[str]:
    """The pipeline dropdown's choices: every registered method, then example pipelines whose
    steps are all installed."""
    methods = sorted(registry.methods)
    steps = set(methods) | set(registry.filters)
    examples = [spec for spec in EXAMPLE_PIPELINES
                if all(part in steps for part in spec.replace("+", "|").split("|"))]
    return [*methods, *examples]


def catalog_markdown(registry: Any) -> str:
    """The methods and filters as two Markdown tables: name, plugin, parameters (with
    defaults; required ones marked) and scores added."""
    parts = []
    for title, table in (("Methods", registry.methods), ("Filters", registry.filters)):
        rows = [f"| `{name}` | {entry.plugin.distribution} | {_parameters(entry.cls)} | "
                f"{', '.join(getattr(entry.cls, 'scores', ())) or '-'} | {_cell(entry.description)} |"
                for name, entry in sorted(table.items())]
        parts.append(f"**{title}**\n\n| name | plugin | parameters | scores | what it does |\n|---|---|---|---|---|\n"
                     + "\n".join(rows))
    return "\n\n".join(parts)


def _parameters(cls: type) -> str:
    shown = []
    for parameter in cls.parameters():
        value = "required" if parameter.default is REQUIRED else repr(parameter.default)
        shown.append(f"`{parameter.name}={value}`")
    return ", ".join(shown) or "-"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")
