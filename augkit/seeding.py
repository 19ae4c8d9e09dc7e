"""Per-row random generators, so the same seed gives the same output however rows are batched.

Every (seed, step key, text) triple gets its own ``random.Random``. The stream an input row
sees therefore does not depend on batch size, chunking, worker count or the other rows:
the property nlpaug (#6), AugLy and textaugment lack because they seed global state.
"""

from __future__ import annotations

import _random
import hashlib
import random
import secrets

from augkit.errors import InvalidParameterError

#: The size of a row's seed (:meth:`RowSeeder.seed`).
ROW_SEED_BITS = 128

_new_random = random.Random.__new__
_seed_state = _random.Random.seed  # the C seeding under random.Random.seed, minus its Python wrapper


def resolve_seed(seed: int | None) -> int:
    """The run's base seed: ``seed`` itself, or fresh entropy when ``seed`` is None."""
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidParameterError(f"seed must be an int or None, got {type(seed).__name__}")
    return seed


class RowSeeder:
    """Makes the generator of each row for one (seed, step key) pair.

    The generator of ``text`` is a Mersenne Twister seeded with the row's seed, the 128-bit
    BLAKE2b digest of ``"{seed}\\x1f{step_key}\\x1f{text}"``: ``random.Random(seed(text))``.

    >>> RowSeeder(0, "eda").rng("hello").random() == RowSeeder(0, "eda").rng("hello").random()
    True
    >>> RowSeeder(0, "eda").rng("hello").random() == random.Random(RowSeeder(0, "eda").seed("hello")).random()
    True
    """

    def __init__(self, base_seed: int, step_key: str):
        self._prefix = hashlib.blake2b(f"{base_seed}\x1f{step_key}\x1f".encode(), digest_size=ROW_SEED_BITS // 8)

    def seed(self, text: str) -> int:
        """The row's seed: a non-negative int of :data:`ROW_SEED_BITS` bits."""
        digest = self._prefix.copy()
        digest.update(text.encode("utf-8", "surrogatepass"))
        return int.from_bytes(digest.digest(), "big")

    def rng(self, text: str) -> random.Random:
        """The row's generator, ``random.Random(self.seed(text))``."""
        generator = _new_random(random.Random)
        _seed_state(generator, self.seed(text))
        generator.gauss_next = None  # what random.Random.__init__ would set
        return generator

