"""The validation split ``augkit tune`` judges configurations on: stratified and seeded.

Each label's rows are shuffled by a generator seeded from (seed, label), so a label's split
depends on its own rows only; a fraction of them (rounded, at least one) goes to validation
and at least one stays for training. A label with a single row cannot be validated: it
stays in training, and the split names it.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from augkit.errors import InputError


@dataclass(frozen=True)
class ValidationSplit:
    """Row positions for training and for validation (both sorted), and the labels with
    too few rows to be validated."""

    train: list[int]
    valid: list[int]
    unvalidated: tuple[str, ...]


def stratified_split(labels: Sequence[object], fraction: float, seed: int) -> ValidationSplit:
    """Hold out ``fraction`` of each label's rows for validation, seeded by ``seed``.

    >>> split = stratified_split(["a"] * 4 + ["b"] * 4, 0.25, seed=0)
    >>> len(split.train), len(split.valid)
    (6, 2)
    """
    import numpy as np

    if not 0 < fraction < 1:
        raise InputError(f"the validation fraction must be between 0 and 1, got {fraction!r}")
    by_label: dict[str, list[int]] = {}
    for position, label in enumerate(labels):
        by_label.setdefault(str(label), []).append(position)
    train: list[int] = []
    valid: list[int] = []
    unvalidated = []
    for label, rows in sorted(by_label.items()):
        if len(rows) < 2:
            train.extend(rows)
            unvalidated.append(label)
            continue
        order = np.random.default_rng([seed, zlib.crc32(label.encode("utf-8"))]).permutation(rows).tolist()
        held = min(len(rows) - 1, max(1, round(fraction * len(rows))))
        valid.extend(order[:held])
        train.extend(order[held:])
    if not valid:
        raise InputError("no label has two rows: nothing can be held out to judge augmentation on")
    return ValidationSplit(sorted(train), sorted(valid), tuple(unvalidated))
