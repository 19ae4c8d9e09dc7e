"""The hooks a plugin may implement. A plugin is any module named by an ``augkit`` entry
point; it decorates functions with :data:`hookimpl`."""

from __future__ import annotations

from collections.abc import Callable

import pluggy

hookspec = pluggy.HookspecMarker("augkit")
hookimpl = pluggy.HookimplMarker("augkit")


@hookspec
def register_augmenters(register: Callable[[type], None]) -> None:
    """Register augmenter classes: call ``register(MyAugmenter)`` once per class.

    The class must subclass :class:`augkit.Augmenter` and set a unique ``name``.
    """


@hookspec
def register_filters(register: Callable[[type], None]) -> None:
    """Register filter classes: call ``register(MyFilter)`` once per class.

    The class must subclass :class:`augkit.Filter` and set a unique ``name``.
    """
