"""A generated text together with where it came from and how filters scored it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Candidate:
    """One augmentation of a source text.

    ``method`` names the generator that produced it (``"eda"``, or ``"eda>aeda"`` for a
    chain); the pipeline sets it, so an augmenter leaves it empty:
    ``Candidate(text, scores={"confidence": 0.9})``. ``scores`` collects what augmenters and
    filters measured (``{"semantic": 0.91}``) and ends up in ``augkit_<score>`` provenance
    columns.
    """

    text: str
    method: str = ""
    scores: dict[str, float] = field(default_factory=dict)
