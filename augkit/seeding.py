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

    The generator of ``text`` is a Mersenne Twister seeded with the 128-bit BLAKE2b digest
    of ``"{seed}\\x1f{step_key}\\x1f{text}"``; equal to ``random.Random(that digest)``.

    >>> RowSeeder(0, "eda").rng("hello").random() == RowSeeder(0, "eda").rng("hello").random()
    True
    """

    def __init__(self, base_seed: int, step_key: str):
        self._prefix = hashlib.blake2b(f"{base_seed}\x1f{step_key}\x1f".encode(), digest_size=16)

    def rng(self, text: str) -> random.Random:
        digest = self._prefix.copy()
        digest.update(text.encode("utf-8", "surrogatepass"))
        generator = _new_random(random.Random)
        _seed_state(generator, int.from_bytes(digest.digest(), "big"))
        generator.gauss_next = None  # what random.Random.__init__ would set
        return generator

