"""The :class:`Augmenter` interface every augmentation method implements."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import ClassVar

from augkit.configurable import Configurable


class Augmenter(Configurable):
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

    #: Scores this augmenter attaches to its candidates (each becomes an ``augkit_<name>``
    #: column). An augmenter that declares scores returns :class:`augkit.Candidate`
    #: objects, ``Candidate(text, method="", scores={"dual": -0.8})``, instead of strings.
    scores: ClassVar[tuple[str, ...]] = ()

    #: True when the augmenter runs a model (a translation or paraphrase model, an encoder):
    #: its batches take long and vary with the hardware, so ``augkit augment`` sets no
    #: per-row time limit by default when a pipeline holds such a step.
    uses_model: ClassVar[bool] = False

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        """Return up to ``n`` augmentations of ``text`` (never None; fewer is allowed):
        strings, or :class:`augkit.Candidate` objects to attach the declared ``scores``.

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


def first_distinct(source: str, candidates: Iterable[str], n: int) -> list[str]:
    """The first ``n`` candidates that differ from ``source`` and from each other.

    ``candidates`` may be a lazy generator: it is consumed only until ``n`` are found, so an
    augmenter can offer more attempts than it will usually need.
    """
    seen = {source}
    found: list[str] = []
    if n <= 0:
        return found
    for candidate in candidates:
        if candidate not in seen:
            seen.add(candidate)
            found.append(candidate)
            if len(found) == n:
                break
    return found
