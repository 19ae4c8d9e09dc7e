"""Which labels a label is easily confused with, from the run's own originals.

Two labels are near when the mean all-MiniLM-L6-v2 embeddings of their originals are: the
measure of "Clear Up Confusion" (Zhang et al.), which shows a generator a label's nearest
labels as contrast and re-classifies each new example among them. ``llm_generate(contrast=k)``
and the ``llm_check`` filter both read it from here, computed once per run in ``prepare``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def label_examples(texts: Sequence[str], labels: Sequence[Any]) -> dict[Any, list[str]]:
    """Each label's distinct originals, labels and texts in the order the data first gives them.

    >>> label_examples(["a", "b", "a", "c"], ["x", "y", "x", "x"])
    {'x': ['a', 'c'], 'y': ['b']}
    """
    examples: dict[Any, list[str]] = {}
    for text, label in zip(texts, labels, strict=True):
        shown = examples.setdefault(label, [])
        if text not in shown:
            shown.append(text)
    return examples


def nearest_labels(examples: dict[Any, list[str]], count: int) -> dict[Any, list[Any]]:
    """For each label, the ``count`` other labels whose examples' mean embedding is closest
    (cosine), nearest first; ties in the order of ``examples`` (the data's)."""
    if count <= 0 or len(examples) < 2:
        return {label: [] for label in examples}
    import numpy as np

    from augkit.plugin import get_encoder

    labels = list(examples)
    encoder = get_encoder(None)
    centroids = np.stack([encoder.encode(examples[label]).mean(axis=0) for label in labels]).astype("float64")
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    similarity = centroids @ centroids.T
    np.fill_diagonal(similarity, -np.inf)
    return {label: [labels[j] for j in np.argsort(-similarity[i], kind="stable")[:count]] for i, label in enumerate(labels)}
