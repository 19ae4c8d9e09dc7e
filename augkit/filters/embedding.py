"""What the embedding-based filters share: their encoder and candidate-source similarity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from augkit.candidate import Candidate


def encoder_for(step: Any):
    """The process-wide encoder named by a filter's ``model`` and ``device`` parameters.
    Looked up on each use rather than stored, so a filter stays light to pickle."""
    from augkit.encoders import get_encoder

    return get_encoder(step.model, step.device)


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
    flat = pairwise_cosine(candidate_vectors, source_vectors[source_rows]).tolist()
    out, start = [], 0
    for row in candidates:
        out.append(flat[start : start + len(row)])
        start += len(row)
    return out


def pairwise_cosine(a: Any, b: Any) -> Any:
    """Row-wise dot products of unit vectors ``a[i] . b[i]``, rounded to float32."""
    return (a.astype("float64") * b.astype("float64")).sum(axis=1).astype("float32")


def cosine_matrix(a: Any, b: Any) -> Any:
    """All dot products ``a[i] . b[j]`` of unit vectors, rounded to float32.

    Computed in float64 so that the result does not depend on how many rows the matrix
    multiply saw: float32 kernels sum in an order that changes with the matrix shape, so
    the same pair could score differently in a batch of 7 and one of 64; in float64 those
    differences stay far below float32's resolution and vanish in the rounding.
    """
    return (a.astype("float64") @ b.astype("float64").T).astype("float32")
