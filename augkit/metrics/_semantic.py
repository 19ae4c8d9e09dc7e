"""Cosine similarity of sentence embeddings, pair by pair."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from augkit.errors import InvalidParameterError
from augkit.metrics._inputs import same_length
from augkit.steps.params import check_texts

if TYPE_CHECKING:
    import numpy as np


def semantic_similarity(a: str | Sequence[str], b: str | Sequence[str], model: str | None = None) -> float | np.ndarray:
    """Cosine similarity of the sentence embeddings of ``a[i]`` and ``b[i]``: a float32
    numpy array for two lists, a ``float`` for two strings.

    cos(a, b) = e(a) . e(b) / (|e(a)| |e(b)|), with e a sentence encoder: by default
    all-MiniLM-L6-v2 (Reimers and Gurevych, 2019, "Sentence-BERT"), from
    :func:`augkit.models.encoder.get_encoder` (``model``: any sentence-transformers id or
    directory). Its embeddings have unit length, so the cosine is their dot product.
    In [-1, 1]; paraphrases of one another score high, unrelated sentences near 0. The
    value depends on the encoder: compare numbers from the same ``model`` only.

    Raises :class:`~augkit.errors.ModelNotAvailableError` or
    :class:`~augkit.errors.MissingDependencyError` when the encoder cannot be loaded.
    """
    import numpy as np

    if isinstance(a, str) != isinstance(b, str):
        raise InvalidParameterError("semantic_similarity takes two str or two lists of str, not one of each")
    single = isinstance(a, str)
    left = [a] if single else check_texts("a", a)
    right = [b] if single else check_texts("b", b)
    same_length(left, right, "a", "b")
    if not left:
        return np.zeros(0, dtype=np.float32)
    from augkit.models.encoder import get_encoder, pairwise_cosine

    embeddings = get_encoder(model).encode(left + right)
    similarity = pairwise_cosine(embeddings[: len(left)], embeddings[len(left) :])
    return float(similarity[0]) if single else similarity
