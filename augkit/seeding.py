"""Per-row random generators, so the same seed gives the same output however rows are batched.

Every (seed, step key, text) triple gets its own ``random.Random``. The stream an input row
sees therefore does not depend on batch size, chunking, worker count or the other rows:
the property nlpaug (#6), AugLy and textaugment lack because they seed global state.
"""

from __future__ import annotations

import hashlib
import random
import secrets

from augkit.errors import InvalidParameterError


def resolve_seed(seed: int | None) -> int:
    """The run's base seed: ``seed`` itself, or fresh entropy when ``seed`` is None."""
    if seed is None:
        return secrets.randbits(64)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidParameterError(f"seed must be an int or None, got {type(seed).__name__}")
    return seed


def row_rng(base_seed: int, step_key: str, text: str) -> random.Random:
    """A generator derived from the run's seed, the pipeline step and the row's text.

    >>> row_rng(0, "eda", "hello").random() == row_rng(0, "eda", "hello").random()
    True
    """
    material = f"{base_seed}\x1f{step_key}\x1f{text}".encode("utf-8", "surrogatepass")
    digest = hashlib.blake2b(material, digest_size=16).digest()
    return random.Random(int.from_bytes(digest, "big"))
