"""What the embedding-based filters share: their encoder and candidate-source similarity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from augkit.models.needs import ModelNeed
from augkit.steps.candidate import Candidate


def encoder_for(step: Any):
    """The process-wide encoder named by a filter's ``model`` and ``device`` parameters.
    Looked up on each use rather than stored, so a filter stays light to pickle."""
    from augkit.models.encoder import get_encoder

    return get_encoder(step.model, step.device)


def encoder_needs(step: Any) -> list[ModelNeed]:
    """The model an embedding filter loads: the sentence-transformers encoder its ``model``
    parameter names (None: all-MiniLM-L6-v2)."""
    return [ModelNeed(step.model, "sentence-transformers", "model", "sentence embeddings")]


def candidate_source_similarity(
    encoder: Any, sources: Sequence[str], candidates: Sequence[Sequence[Candidate]]
) -> list[list[float]]:
    """Cosine similarity of every candidate to its source, one list per source."""
    texts = [candidate.text for row in candidates for candidate in row]
    if not texts:
        return [[] for _ in candidates]
    source_rows = [index for index, row in enumerate(candidates) for _ in row]
    source_vectors = encoder.encode(sources)
    candidate_vectors = encoder.encode(texts)
    from augkit.models.encoder import (
        pairwise_cosine,  # the model runtime loads on first use
    )

    flat = pairwise_cosine(candidate_vectors, source_vectors[source_rows]).tolist()
    out, start = [], 0
    for row in candidates:
        out.append(flat[start : start + len(row)])
        start += len(row)
    return out

