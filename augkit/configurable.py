"""What augmenters and filters share: configuration read from the constructor's signature."""

from __future__ import annotations

from typing import Any, ClassVar

from augkit.params import Parameter, describe_parameters


class Configurable:
    """Base of :class:`~augkit.Augmenter` and :class:`~augkit.Filter`: every knob is a
    constructor keyword argument, stored on ``self`` under the same name."""

    #: Old parameter names still accepted by name (pipeline strings, ``-p``, ``**params``),
    #: mapped to their new names, with a ``FutureWarning``: ``{"min_margin": "min"}``.
    renamed_parameters: ClassVar[dict[str, str]] = {}

    @classmethod
    def parameters(cls) -> tuple[Parameter, ...]:
        """The constructor's parameters, with defaults, types and docstring descriptions."""
        return describe_parameters(cls)

    @classmethod
    def description(cls) -> str:
        """The first line of the class docstring."""
        return first_docstring_line(cls)

    def get_params(self) -> dict[str, Any]:
        """The current configuration, read back from the attributes named like the
        constructor's parameters."""
        return {p.name: getattr(self, p.name, p.default) for p in self.parameters()}

    def changed_params(self) -> dict[str, Any]:
        """The parameters whose current value differs from the default."""
        defaults = {p.name: p.default for p in self.parameters()}
        return {name: value for name, value in self.get_params().items() if value != defaults[name]}

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.changed_params().items())
        return f"{type(self).__name__}({args})"


def first_docstring_line(obj: Any) -> str:
    """The first non-empty line of ``obj``'s docstring, or an empty string."""
    for line in (obj.__doc__ or "").strip().splitlines():
        if line.strip():
            return line.strip()
    return ""
