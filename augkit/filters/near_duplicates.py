"""Drop candidates too close to any original of their label or to any output kept before them:
a dataset-level filter (:class:`~augkit.steps.dataset_filter.DatasetFilter`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from augkit.errors import InvalidParameterError
from augkit.filters.embedding import encoder_for, encoder_needs
from augkit.filters.rouge_l_index import RougeLIndex, RougeTokenizer
from augkit.steps.context import DatasetContext
from augkit.steps.dataset_filter import DatasetFilter

#: The Rouge-L bound of "Clear Up Confusion" (Zhang et al.): a generated example whose Rouge-L
#: with an existing one of its label reaches 0.6 adds nothing new, and is dropped.
CLEAR_UP_CONFUSION_ROUGE_L = 0.6
#: The most characters of a text a drop reason quotes.
_QUOTED = 80


@dataclass
class _LabelGroup:
    """The texts one label's candidates are compared with: its originals, then the outputs kept
    for it, in the order they were kept (what each was, for the drop reason)."""

    rouge: RougeLIndex = field(default_factory=RougeLIndex)
    #: Per text of ``rouge``: (text, None for an original, else the row it was kept for).
    texts: list[tuple[str, Any]] = field(default_factory=list)
    #: Each original's number among ``texts`` (a candidate skips its source's with ``against_source=False``).
    originals: dict[str, frozenset[int]] = field(default_factory=dict)
    #: With ``cosine``: the texts' embeddings, a row per text of ``texts``, in an array that
    #: doubles when full (stacking them again at every kept output would cost quadratic time).
    _vectors: Any = None
    _count: int = 0

    def add_vector(self, vector: Any) -> None:
        import numpy as np

        if self._vectors is None or self._count == len(self._vectors):
            grown = np.empty((max(16, 2 * self._count), len(vector)), dtype=vector.dtype)
            if self._vectors is not None:
                grown[: self._count] = self._vectors
            self._vectors = grown
        self._vectors[self._count] = vector
        self._count += 1

    def matrix(self) -> Any:
        """The embeddings of the group's texts so far, one row each."""
        return self._vectors[: self._count]


class NearDuplicatesFilter(DatasetFilter):
    """Drops a candidate too close to an original of its label or to an output kept before it.

    A candidate is dropped when its Rouge-L F-measure (rouge-score's, default tokenizer, no
    stemming) with any original of its label, or with any output kept earlier for that label,
    is at least ``rouge_l``; with ``cosine``, also when the cosine of its sentence embedding
    (all-MiniLM-L6-v2 unless ``model`` names another) with such a text is above ``cosine``.
    "Earlier" is the data's row order, and within a row the candidates' order: the outputs do
    not depend on batches, workers or file chunks. Its source is one of the originals, so a
    near-copy of its own source is dropped too, unless ``against_source`` is false: a
    rewriting method (EDA, AEDA, back-translation) writes near-copies of its source by design,
    and is then compared only with the other originals and with the outputs kept before. Without a label column every original and
    output is compared with every other (the whole dataset is one label). It comes after every
    other filter of its pipeline. Needs ``augkit[metrics]`` (and ``augkit[quality]`` for
    ``cosine``).

    Parameters
    ----------
    rouge_l : float
        Lowest Rouge-L F-measure that makes a near-duplicate (0.6, as in "Clear Up
        Confusion", Zhang et al.).
    cosine : float, optional
        Also drop a candidate whose embedding cosine with an original of its label or an
        output kept earlier is above this; None (default) compares by Rouge-L only.
    against_source : bool
        Compare a candidate with its own source too (default, as for generated examples);
        false leaves the source out (for rewrites, which resemble it by design).
    model : str, optional
        Sentence-transformers model for ``cosine``; None is all-MiniLM-L6-v2.
    device : str
        Where the encoder runs: ``auto`` (default: CUDA when torch sees a GPU, else the CPU),
        ``cpu``, ``cuda`` or ``cuda:N``.
    """

    name = "near_duplicates"

    def __init__(self, rouge_l: float = CLEAR_UP_CONFUSION_ROUGE_L, cosine: float | None = None,
                 against_source: bool = True, model: str | None = None, device: str = "auto"):
        if isinstance(rouge_l, bool) or not isinstance(rouge_l, (int, float)) or not 0 < rouge_l <= 1:
            raise InvalidParameterError(f"near_duplicates: rouge_l must be a Rouge-L F-measure in (0, 1], got {rouge_l!r}")
        if cosine is not None and (isinstance(cosine, bool) or not isinstance(cosine, (int, float)) or not -1 <= cosine < 1):
            raise InvalidParameterError(f"near_duplicates: cosine must be a similarity in [-1, 1) or None, got {cosine!r}")
        self.rouge_l = float(rouge_l)
        self.cosine = None if cosine is None else float(cosine)
        self.against_source = bool(against_source)
        self.model = model
        self.device = device
        self._groups: dict[Any, _LabelGroup] = {}
        self._tokenizer: RougeTokenizer | None = None
        self._upcoming: dict[str, Any] = {}  # embeddings of the candidates about to be judged

    def required_models(self):
        return encoder_needs(self) if self.cosine is not None else []

    def prepare(self, dataset: DatasetContext) -> None:
        """Index every original by label, and forget the outputs an earlier run kept."""
        self._tokenizer = RougeTokenizer()
        self._groups = {}
        self._upcoming = {}
        labels = dataset.labels if dataset.labels is not None else [None] * len(dataset.texts)
        seen: set[tuple[Any, str]] = set()
        originals = []
        for text, label in zip(dataset.texts, labels):
            if (_key(label), text) not in seen:  # a text repeated within its label is compared once
                seen.add((_key(label), text))
                originals.append((text, label))
        vectors = encoder_for(self).encode([text for text, _ in originals]) if self.cosine is not None and originals else None
        for position, (text, label) in enumerate(originals):
            self._add(text, label, None, None if vectors is None else vectors[position])

    def anticipate(self, texts: Sequence[str]) -> None:
        if self.cosine is not None and texts:
            distinct = list(dict.fromkeys(texts))
            self._upcoming = dict(zip(distinct, encoder_for(self).encode(distinct)))

    def judge(self, text: str, label: Any, source: str | None = None) -> str:
        group = self._groups.get(_key(label))
        if group is None:
            return ""
        skip = frozenset() if self.against_source or source is None else group.originals.get(source, frozenset())
        tokens = self._tokens(text)
        closest = group.rouge.closest(tokens, self.rouge_l, skip)
        if closest is not None:
            score, number = closest
            return f"Rouge-L {_shown(score, self.rouge_l)} >= rouge_l={self.rouge_l:g} with {_what(*group.texts[number])}"
        if self.cosine is not None:
            similarities = group.matrix() @ self._vector(text)
            if skip:
                similarities = similarities.copy()
                similarities[list(skip)] = -2.0  # below any cosine
            number = int(similarities.argmax())
            if similarities[number] > self.cosine:
                shown = f"{similarities[number]:.2f}"
                if float(shown) <= self.cosine:
                    shown = f"{similarities[number]:.6f}"
                return f"cosine {shown} above cosine={self.cosine:g} with {_what(*group.texts[number])}"
        return ""

    def remember(self, text: str, label: Any, row: Any) -> None:
        self._add(text, label, row, self._vector(text) if self.cosine is not None else None)

    def _add(self, text: str, label: Any, row: Any, vector: Any) -> None:
        group = self._groups.setdefault(_key(label), _LabelGroup())
        if row is None:  # an original: the number a candidate rewritten from it skips
            group.originals[text] = frozenset({len(group.texts)})
        group.rouge.add(self._tokens(text))
        group.texts.append((text, row))
        if vector is not None:
            group.add_vector(vector)

    def _tokens(self, text: str) -> tuple[int, ...]:
        if self._tokenizer is None:
            self._tokenizer = RougeTokenizer()
        return self._tokenizer(text)

    def _vector(self, text: str) -> Any:
        vector = self._upcoming.get(text)
        return vector if vector is not None else encoder_for(self).encode([text])[0]

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_upcoming": {}}


def _key(label: Any) -> Any:
    """A label as a group key (an unhashable label by its repr)."""
    try:
        hash(label)
    except TypeError:
        return repr(label)
    return label


def _what(text: str, row: Any) -> str:
    """The text a candidate is too close to, as its drop reason names it."""
    quoted = repr(text[:_QUOTED])
    row = row.item() if hasattr(row, "item") else row  # a NumPy index label, said as a number
    return f"the original {quoted}" if row is None else f"the output kept earlier for row {row!r}: {quoted}"


def _shown(score: float, bound: float) -> str:
    """``score`` (at least ``bound``) with two decimals, or more where two would show it below."""
    for decimals in range(2, 7):
        shown = f"{score:.{decimals}f}"
        if float(shown) >= bound:
            return shown
    return repr(score)
