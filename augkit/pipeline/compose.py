"""What a user composes generators with: :class:`Interleave` (``"eda+aeda"``) and :class:`Chain`
(``"eda>aeda"``); :mod:`augkit.pipeline.generation` turns them into the tree that runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from augkit.errors import UsageError

if TYPE_CHECKING:
    from augkit.steps.augmenter import Augmenter


class Interleave:
    """Candidates from every member generator, interleaved round-robin.

    ``Interleave("eda", "aeda")`` is the string form ``"eda+aeda"``; each member is asked
    for ``n`` candidates, so filters downstream choose from up to ``len(members) * n``.
    """

    def __init__(self, *members: str | Augmenter | Interleave | Chain):
        if len(members) < 2:
            raise UsageError(f"{type(self).__name__} needs at least two members")
        self.members = members


class Chain:
    """Generators applied in sequence: the first rewrites the source into ``n`` candidates,
    each later step rewrites each candidate once. String form ``"eda>aeda"``."""

    def __init__(self, *steps: str | Augmenter | Interleave | Chain):
        if len(steps) < 2:
            raise UsageError("Chain needs at least two steps")
        self.steps = steps

