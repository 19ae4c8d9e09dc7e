"""A generated text together with where it came from and how filters scored it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Candidate:
    """One augmentation of a source row.

    ``method`` names the generator that produced it (``"eda"``, or ``"eda>aeda"`` for a
    chain); the pipeline sets it, so an augmenter leaves it empty:
    ``Candidate(text, scores={"confidence": 0.9})``. ``scores`` collects what augmenters and
    filters measured (``{"semantic": 0.91}``) and ends up in ``augkit_<score>`` provenance
    columns. An augmenter that makes candidates in several named ways may set ``method`` to
    the way (ERAP's pair rule ``"<p',h>"``): the pipeline then records ``erap:<p',h>``.

    Pair augmentation: ``fields`` holds the other columns of the row this candidate rewrites,
    by the logical names its augmenter declares in ``rewrites_columns``
    (``{"premise": "A man plays a guitar"}``), and ``label`` the label of the row it makes
    (None: the source row's label, unchanged). The table adapters write both into the output
    row and name what changed in ``augkit_changed``.

    ``drop_reason``: a filter that drops the candidate may say why in words ("protected span
    lost: 'h' (code)", "number lost: 'half'"); the trace shows it in its ``reason`` column.
    """

    text: str
    method: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    label: Any = None
    drop_reason: str = ""
