"""Keep candidates that still look like their own class (or their own source) among all
the originals of the dataset: the second selection step of the FAQ-paraphrasing thesis."""

from __future__ import annotations

import math
from typing import Any

from augkit.errors import InputError, UsageError
from augkit.filters.embedding import encoder_for, encoder_needs
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.drop_reasons import below
from augkit.steps.filter import Filter, check_sources

#: Candidate rows times originals compared at once (bounds memory to about 64 MB).
_SIMILARITY_CELLS_PER_CHUNK = 16_000_000
_MARGIN_LIMIT = 2.0


class LabelIntegrityFilter(Filter):
    """Keeps a candidate when its nearest original text carries its source's label.

    Every candidate is compared (cosine of sentence embeddings) with all the originals of
    the run, embedded once per run. With ``own_source=True`` the nearest original must be the
    source itself (an original with the very same text counts as the source): used as a
    query against the dataset, the paraphrase must retrieve its own question, as in the
    FAQ thesis. Without it, any original of the same label will do; this needs the
    label column (``label_column=`` / ``--label-column``).

    Adds the score ``label_integrity``: the similarity to the best original the candidate
    may match (same label, or the source) minus the similarity to the best one it must not
    match, clipped to [-2, 2]. A candidate is kept when this margin is at least
    ``min`` (0: ties go to the candidate's own side).

    Parameters
    ----------
    own_source : bool
        The nearest original must be the source itself, not just share its label (was
        ``strict``, a name now reserved for :func:`augkit.augment`'s own option).
    min : float
        Lowest margin kept; raise it above 0 to keep only clear-cut candidates (was
        ``min_margin``).
    model : str, optional
        Sentence-transformers model id or directory; None is all-MiniLM-L6-v2.
    device : str
        Where to run the encoder: ``auto`` (default: CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
    """

    name = "label_integrity"
    scores = ("label_integrity",)
    needs_all_texts = True
    uses_model = True  # a sentence-transformers encoder
    renamed_parameters = {"strict": "own_source", "min_margin": "min"}

    def __init__(self, own_source: bool = False, min: float = 0.0, model: str | None = None, device: str = "auto"):  # noqa: A002
        self.own_source = bool(own_source)
        self.min = float(min)
        self.model = model
        self.device = device
        self._originals = None

    def required_models(self):
        return encoder_needs(self)

    def prepare(self, dataset: DatasetContext) -> None:
        import numpy as np

        if not self.own_source and dataset.labels is None:
            raise InputError(_NO_LABELS)
        texts = list(dataset.texts)
        self._originals = encoder_for(self).encode(texts)
        self._original_texts = texts  # to name the original a dropped candidate is nearer to
        # Texts as small integers: identical texts share one, and comparing integers over
        # every original is far cheaper than comparing strings.
        self._text_codes: dict[str, int] = {}
        self._original_text_codes = np.array([self._text_codes.setdefault(t, len(self._text_codes)) for t in texts])
        if dataset.labels is not None:
            self._codes = {}
            self._original_codes = np.array([self._label_code(label) for label in dataset.labels], dtype=np.int64)
            self._original_labels = list(dataset.labels)

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return self.filter_batch([source], [candidates], BatchContext())[0]

    def filter_batch(self, sources, candidates, context):
        check_sources(self.name, sources, candidates)
        if self._originals is None:
            raise UsageError(
                "filter 'label_integrity' compares candidates with all the originals of the run, "
                "which it has not seen: run it through augkit.augment() (or the CLI), or call "
                "Pipeline.prepare(texts, labels) first"
            )
        if not self.own_source and context.labels is None:
            raise InputError(_NO_LABELS)
        flat = [(row_index, candidate) for row_index, row in enumerate(candidates) for candidate in row]
        if flat:
            margins, nearer = self._margins(sources, candidates, context, flat)
            for position, ((_, candidate), margin) in enumerate(zip(flat, margins)):
                candidate.scores[self.name] = margin
                if margin < self.min:
                    candidate.drop_reason = self._why(margin, nearer[position])
        return [[c for c in row if c.scores[self.name] >= self.min] for row in candidates]

    def _why(self, margin: float, original: int) -> str:
        """Why a candidate whose margin is under ``min`` is dropped, naming the original it
        must not match that it is nearest to."""
        text = self._original_texts[original]
        if self.own_source:
            return f"{below('margin', margin, 'min', self.min)}: nearer to the original {text[:80]!r} than to its source"
        label = self._original_labels[original]
        return (f"{below('margin', margin, 'min', self.min)}: nearer to the original {text[:80]!r}, labelled "
                f"{label!r}, than to any of its own label")

    def _margins(self, sources, candidates, context, flat) -> tuple[list[float], dict[int, int]]:
        """Best allowed similarity minus best forbidden similarity, per candidate, and for
        each candidate under ``min`` (by position) the forbidden original nearest to it."""
        import numpy as np

        from augkit.models.encoder import (  # the model runtime loads on first use
            cosine_matrix,
            pairwise_cosine,
        )

        vectors = encoder_for(self).encode([candidate.text for _, candidate in flat])
        rows = [row_index for row_index, _ in flat]
        if self.own_source:
            source_vectors = encoder_for(self).encode(sources)[rows]
            allowed_score = pairwise_cosine(vectors, source_vectors)
            own = np.array([self._text_codes.get(sources[row], -1) for row in rows], dtype=np.int64)
        else:
            own = np.array([self._label_code(context.labels[row]) for row in rows], dtype=np.int64)
        margins = np.empty(len(flat), dtype=np.float32)
        nearer: dict[int, int] = {}
        step = max(1, _SIMILARITY_CELLS_PER_CHUNK // max(len(self._originals), 1))
        for start in range(0, len(flat), step):
            part = slice(start, start + step)
            similarity = cosine_matrix(vectors[part], self._originals)
            if self.own_source:
                is_own = self._original_text_codes[None, :] == own[part, None]
                allowed = allowed_score[part]
            else:
                is_own = self._original_codes[None, :] == own[part, None]
                allowed = np.where(is_own, similarity, -np.inf).max(axis=1)
            masked = np.where(is_own, -np.inf, similarity)
            margins[part] = allowed - masked.max(axis=1)
            clipped = np.clip(margins[part], -_MARGIN_LIMIT, _MARGIN_LIMIT).astype(np.float64)  # as filter_batch compares
            dropped = np.flatnonzero(clipped < self.min)
            nearer.update(zip((start + dropped).tolist(), masked[dropped].argmax(axis=1).tolist()))
        return np.clip(margins, -_MARGIN_LIMIT, _MARGIN_LIMIT).tolist(), nearer

    def _label_code(self, label: Any) -> int:
        """A small integer per distinct label (missing values are one label)."""
        if label is None or (isinstance(label, float) and math.isnan(label)):
            label = _MISSING
        return self._codes.setdefault(label, len(self._codes))

#: Stands for a missing label (None or NaN); a plain tuple, equal to itself after pickling.
_MISSING = ("augkit", "missing label")
_NO_LABELS = (
    "filter 'label_integrity' needs the labels of the texts: pass label_column= to augkit.augment "
    "(--label-column on the command line), or use label_integrity(own_source=True), which only asks "
    "that the nearest original be the candidate's source"
)
