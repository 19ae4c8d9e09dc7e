"""Group texts into batches by a token budget: longest first, similar lengths together,
so little compute goes to padding and every batch costs about the same; and pad a batch
the one way every model family does."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Default budget of a generation or scoring batch: padded input tokens times beams (or
#: returned sequences). About 4,000 keeps a 6-layer, 512-wide Marian model's CPU batches at
#: a few hundred decoder rows per step.
DEFAULT_TOKEN_BUDGET = 4096

#: Lengths are padded up to a multiple of this, so a text meets the same padded shape in
#: most batches (fewer last-bit differences between batchings). The one padding constant of
#: every model family (seq2seq, masked LM, causal LM, pair classifier, sentence encoder).
#: 4, the encoder's value before the families shared one: 8 padded BANKING77's short texts
#: (about 12 tokens) a third more and made ``eda|semantic`` 8% slower end to end.
PAD_MULTIPLE = 4


def padded_length(length: int, multiple: int = PAD_MULTIPLE) -> int:
    """``length`` rounded up to a multiple of ``multiple`` (at least ``multiple``)."""
    return max(multiple, -(-length // multiple) * multiple)


def token_budget_batches(
    lengths: Sequence[int | tuple[int, ...]], token_budget: int = DEFAULT_TOKEN_BUDGET, *,
    rows_per_item: int = 1, max_items: int | None = None,
) -> list[list[int]]:
    """Indices of ``lengths`` grouped into batches, longest items first.

    Items are grouped by padded length (a multiple of :data:`PAD_MULTIPLE`), and a batch
    holds items of one padded length only: every item is then computed at the same shape
    whatever else is in the call, which keeps its result bitwise the same across batch
    sizes. A length may be a tuple (source and target lengths, when scoring); items then
    share a batch when all their padded lengths agree. A batch costs ``items x padded
    tokens x rows_per_item`` (beams per input when generating) and holds as many items as
    ``token_budget`` allows, at least one. Input order breaks ties.

    >>> token_budget_batches([3, 30, 5, 4, 12], token_budget=32)
    [[1], [4], [0, 2, 3]]
    """
    if token_budget < 1:
        raise ValueError(f"token_budget must be >= 1, got {token_budget}")
    groups: dict[tuple[int, ...], list[int]] = {}
    for index, length in enumerate(lengths):
        key = tuple(padded_length(part) for part in (length if isinstance(length, tuple) else (length,)))
        groups.setdefault(key, []).append(index)
    batches: list[list[int]] = []
    for key in sorted(groups, key=lambda k: (-sum(k), k)):
        per_batch = max(1, token_budget // (sum(key) * rows_per_item))
        if max_items is not None:
            per_batch = min(per_batch, max_items)
        members = groups[key]
        batches.extend(members[start : start + per_batch] for start in range(0, len(members), per_batch))
    return batches


def pad_rows(rows: Sequence[Sequence[int]], pad_id: int, device: str, *, width: int | None = None) -> tuple[Any, Any]:
    """Right-padded ``(ids, attention_mask)`` long tensors on ``device``, ``width`` wide
    (default: the longest row padded to a multiple of :data:`PAD_MULTIPLE`)."""
    import torch

    width = padded_length(max(len(row) for row in rows)) if width is None else width
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for r, row in enumerate(rows):
        ids[r, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[r, : len(row)] = 1
    return ids.to(device), mask.to(device)


#: Fewest token rows per forward pass of an encoder. Below about 32, the CPU matrix kernels
#: take another path and a text's vectors differ in their last bits from the same text in a
#: bigger batch; topping small batches up with copies keeps them batch-independent.
MIN_TOKENS_PER_PASS = 64


def filler_rows(rows: int, length: int) -> int:
    """Copies of a batch's first text to add so the pass has :data:`MIN_TOKENS_PER_PASS`
    tokens (``rows`` texts of padded ``length``); 0 when it has enough."""
    return max(0, -(-MIN_TOKENS_PER_PASS // max(length, 1)) - rows)
