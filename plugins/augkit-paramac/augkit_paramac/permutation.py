"""Random orders of a sentence's keywords (ParaMac's phrase-level diversity, d2)."""

from __future__ import annotations

import itertools
import math
import random

#: Shuffles tried per wanted order before settling for fewer (many keywords make repeats rare;
#: this bounds the work when they are not).
ATTEMPTS_PER_ORDER = 20
#: Up to this many keywords every order is listed and sampled from (7! = 5,040).
ENUMERATED_UP_TO = 7


def keyword_orders(count: int, wanted: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Up to ``wanted`` distinct orders of ``count`` keywords (tuples of their positions),
    drawn from ``rng``, never the sentence's own order unless it is the only one (one
    keyword): reordering is what this step is for, and the ranking keeps what reads best.

    >>> keyword_orders(3, 15, random.Random(0))  # all 5 orders other than (0, 1, 2)
    [(2, 0, 1), (2, 1, 0), (0, 2, 1), (1, 0, 2), (1, 2, 0)]
    """
    identity = tuple(range(count))
    if count <= 1 or wanted < 1:
        return [identity] if count and wanted >= 1 else []
    if count <= ENUMERATED_UP_TO:
        others = [order for order in itertools.permutations(identity) if order != identity]
        return rng.sample(others, min(wanted, len(others)))
    wanted = min(wanted, math.factorial(count) - 1)
    found: dict[tuple[int, ...], None] = {}
    positions = list(identity)
    for _ in range(wanted * ATTEMPTS_PER_ORDER):
        rng.shuffle(positions)
        order = tuple(positions)
        if order != identity:
            found.setdefault(order)
            if len(found) == wanted:
                break
    return list(found)
