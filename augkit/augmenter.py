"""The :class:`Augmenter` interface every augmentation method implements."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from augkit.params import Parameter, describe_parameters


class Augmenter:
    """Base class of augmentation methods.

    A subclass sets ``name``, takes its whole configuration as constructor keyword
    arguments (stored on ``self`` under the same names) and implements :meth:`augment`.
    Model-backed augmenters override :meth:`augment_batch` to process many texts at once.

    Example::

        class Shout(augkit.Augmenter):
            \"\"\"Upper-cases the text and adds exclamation marks.\"\"\"
            name = "shout"
            def __init__(self, marks: int = 1):
                self.marks = marks
            def augment(self, text, n, rng):
                return [text.upper() + "!" * (self.marks + i) for i in range(n)]
    """

    #: The method name users pass as ``method=``; unique across installed plugins.
    name: ClassVar[str] = ""

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        """Return up to ``n`` augmentations of ``text`` (never None; fewer is allowed).

        All randomness must come from ``rng``, which augkit derives from the run's seed and
        the text, so that outputs are reproducible whatever the batching.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement augment()")

    def augment_batch(
        self, texts: list[str], n: int, rngs: list[random.Random]
    ) -> list[list[str]]:
        """Augment many texts; ``rngs[i]`` belongs to ``texts[i]``. Defaults to one
        :meth:`augment` call per text."""
        return [self.augment(text, n, rng) for text, rng in zip(texts, rngs, strict=True)]

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

    def __repr__(self) -> str:
        changed = {
            p.name: getattr(self, p.name, p.default)
            for p in self.parameters()
            if getattr(self, p.name, p.default) != p.default
        }
        args = ", ".join(f"{key}={value!r}" for key, value in changed.items())
        return f"{type(self).__name__}({args})"


def first_docstring_line(obj: Any) -> str:
    """The first non-empty line of ``obj``'s docstring, or an empty string."""
    for line in (obj.__doc__ or "").strip().splitlines():
        if line.strip():
            return line.strip()
    return ""
