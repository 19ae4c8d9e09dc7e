"""Random orders of a sentence's keywords (ParaMac's phrase-level diversity, d2)."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Collection

#: Shuffles tried per wanted order before settling for fewer (many keywords make repeats rare;
#: this bounds the work when they are not).
ATTEMPTS_PER_ORDER = 20
#: Up to this many keywords every order is listed and sampled from (7! = 5,040).
ENUMERATED_UP_TO = 7


def keyword_orders(count: int, wanted: int, rng: random.Random, in_order: Collection[int] = ()) -> list[tuple[int, ...]]:
    """Up to ``wanted`` distinct orders of ``count`` keywords (tuples of their positions),
    drawn from ``rng``, never the sentence's own order unless it is the only one (one
    keyword): reordering is what this step is for, and the ranking keeps what reads best.

    ``in_order``: positions whose keywords keep their order among themselves (protected
    spans: "from new york to london" must not become "from london to new york"); the other
    keywords move around them. With fewer than two such positions the draws are the same as
    without.

    >>> keyword_orders(3, 15, random.Random(0))  # all 5 orders other than (0, 1, 2)
    [(2, 0, 1), (2, 1, 0), (0, 2, 1), (1, 0, 2), (1, 2, 0)]
    >>> keyword_orders(3, 15, random.Random(0), in_order=(0, 2))  # 0 stays before 2
    [(1, 0, 2), (0, 2, 1)]
    """
    identity = tuple(range(count))
    if count <= 1 or wanted < 1:
        return [identity] if count and wanted >= 1 else []
    kept = sorted(set(in_order))
    if count <= ENUMERATED_UP_TO:
        others = [order for order in itertools.permutations(identity)
                  if order != identity and (len(kept) < 2 or _keeps_order(order, kept))]
        return rng.sample(others, min(wanted, len(others))) if others else [identity]
    wanted = min(wanted, math.factorial(count) - 1)
    found: dict[tuple[int, ...], None] = {}
    positions = list(identity)
    for _ in range(wanted * ATTEMPTS_PER_ORDER):
        rng.shuffle(positions)
        order = tuple(positions) if len(kept) < 2 else _put_in_order(positions, kept)
        if order != identity:
            found.setdefault(order)
            if len(found) == wanted:
                break
    return list(found) or [identity]


def _keeps_order(order: tuple[int, ...], kept: list[int]) -> bool:
    """Whether the positions of ``kept`` come in ``order`` in their own order."""
    return [position for position in order if position in kept] == kept


def _put_in_order(positions: list[int], kept: list[int]) -> tuple[int, ...]:
    """``positions`` with the places holding ``kept`` positions refilled in their own order."""
    ordered = iter(kept)
    chosen = set(kept)
    return tuple(next(ordered) if position in chosen else position for position in positions)
