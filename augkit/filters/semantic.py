"""Keep candidates whose meaning stays close to the source, and drop near-copies."""

from __future__ import annotations

from augkit.errors import InvalidParameterError
from augkit.filters.embedding import (
    candidate_source_similarity,
    encoder_for,
    encoder_needs,
)
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.drop_reasons import outside
from augkit.steps.filter import Filter, check_sources


class SemanticFilter(Filter):
    """Keeps candidates whose cosine similarity to their source lies in [min, max].

    Similarity is the cosine of sentence embeddings (all-MiniLM-L6-v2 unless ``model``
    names another sentence-transformers model). The defaults come from the seed papers:
    the FAQ-paraphrasing thesis keeps paraphrases scored above 4.0 on a 0-5 similarity
    scale (0.8), and ERAP treats similarity above 0.98 as a copy of the input. Adds the
    score ``semantic``. With ``drop=False`` it is a scorer: it keeps every candidate and only
    adds the score (``semantic(drop=false)|rank(semantic=4)``).

    Parameters
    ----------
    min : float
        Lowest similarity kept (meaning preserved).
    max : float
        Highest similarity kept (above it, a candidate is a near-copy).
    model : str, optional
        Sentence-transformers model id or directory; None is all-MiniLM-L6-v2.
    device : str
        Where to run the encoder: ``auto`` (default: CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
    drop : bool
        Drop candidates outside [min, max] (default); False keeps every candidate and only
        adds the score.
    """

    name = "semantic"
    scores = ("semantic",)
    uses_model = True  # a sentence-transformers encoder

    def __init__(
        self, min: float = 0.8, max: float = 0.98, model: str | None = None, device: str = "auto", drop: bool = True
    ):
        for label, value in (("min", min), ("max", max)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1 <= value <= 1:
                raise InvalidParameterError(f"semantic: {label} must be a similarity between -1 and 1, got {value!r}")
        if not isinstance(drop, bool):
            raise InvalidParameterError(f"semantic: drop must be True or False, got {drop!r}")
        if min > max:
            raise InvalidParameterError(f"semantic: min ({min}) is above max ({max})")
        self.min = float(min)
        self.max = float(max)
        self.model = model
        self.device = device
        self.drop = drop

    def required_models(self):
        return encoder_needs(self)

    def prepare(self, dataset: DatasetContext) -> None:
        # One large, well-batched call for all sources; batches then find them cached.
        encoder_for(self).encode(dataset.texts)

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return self.filter_batch([source], [candidates], BatchContext())[0]

    def filter_batch(self, sources, candidates, context):
        check_sources(self.name, sources, candidates)
        similarities = candidate_source_similarity(encoder_for(self), sources, candidates)
        kept = []
        for row, row_similarities in zip(candidates, similarities):
            row_kept = []
            for candidate, similarity in zip(row, row_similarities):
                candidate.scores[self.name] = similarity
                if not self.drop or self.min <= similarity <= self.max:
                    row_kept.append(candidate)
                else:
                    candidate.drop_reason = outside("semantic similarity", similarity, ("min", self.min), ("max", self.max))
            kept.append(row_kept)
        return kept
