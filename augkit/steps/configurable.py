"""What augmenters and filters share: configuration read from the constructor's signature."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar

from augkit.models.needs import ModelNeed
from augkit.steps.params import Parameter, describe_parameters
from augkit.steps.renamed import with_current_names
from augkit.terminal.plain_text import first_sentence


class Configurable:
    """Base of :class:`~augkit.Augmenter` and :class:`~augkit.Filter`: every knob is a
    constructor keyword argument, stored on ``self`` under the same name."""

    #: Old parameter names still accepted (in Python, pipeline strings, ``-p``, ``**params``),
    #: mapped to their new names, with a ``FutureWarning`` "parameter 'min_ratio' is now called
    #: 'min'": the one place where augkit renames a parameter (``{"min_margin": "min"}``).
    renamed_parameters: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.renamed_parameters and "__init__" in cls.__dict__:
            cls.__init__ = _accepting_old_names(cls.__dict__["__init__"], cls)

    @classmethod
    def parameters(cls) -> tuple[Parameter, ...]:
        """The constructor's parameters, with defaults, types and docstring descriptions."""
        return describe_parameters(cls)

    @classmethod
    def description(cls) -> str:
        """The first sentence of the class docstring, whole and in plain text (what ``augkit
        list`` shows)."""
        return first_sentence(cls.__doc__)

    def required_models(self) -> Sequence[ModelNeed]:
        """The models this step will load with its current parameters, each a
        :class:`~augkit.models.needs.ModelNeed` (the model, its kind, the parameter naming it),
        so that a run finds every missing one before it loads any, and ``augkit info`` lists
        them. A step that loads models declares them here; one that runs another method
        includes that method's. Default: none.

        Example::

            def required_models(self):
                return [ModelNeed(self.generator, "seq2seq", "generator", "paraphrasing")]
        """
        return ()

    def get_params(self) -> dict[str, Any]:
        """The current configuration, read back from the attributes named like the
        constructor's parameters."""
        return {p.name: getattr(self, p.name, p.default) for p in self.parameters()}

    def changed_params(self) -> dict[str, Any]:
        """The parameters whose current value differs from the default; a parameter
        without a declared default (one taken through ``**kwargs``, such as a ranker's
        weights) always counts as changed."""
        defaults = {p.name: p.default for p in self.parameters()}
        return {name: value for name, value in self.get_params().items() if name not in defaults or value != defaults[name]}

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.changed_params().items())
        return f"{type(self).__name__}({args})"


def _accepting_old_names(init: Any, cls: type) -> Any:
    """``init`` that first maps the old names of ``cls.renamed_parameters`` to the new ones.
    The signature stays ``init``'s (``functools.wraps``), so parameters and ``augkit info``
    show only the new names."""

    @functools.wraps(init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        owner = getattr(cls, "name", "") or cls.__name__
        init(self, *args, **with_current_names(cls, owner, kwargs))

    return __init__

