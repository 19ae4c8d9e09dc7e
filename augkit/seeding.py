"""Every seed augkit uses, derived in one place, so the same seed gives the same output however
rows are batched.

A run has one base seed (:func:`resolve_seed`). Everything random below it is derived from it
with :func:`derive`: a hash of the seed and a *salt* (what the seed is for: a step key, a row's
text, a pivot language, a training step), never a counter or a global state. Every
(seed, step key, text) triple therefore gets its own ``random.Random`` (:func:`generator`,
:class:`RowSeeder`), and the stream an input row sees does not depend on batch size, chunking,
worker count or the other rows: the property nlpaug (#6), AugLy and textaugment lack because
they seed global state.

From a row's generator, an augmenter takes the int seed its model or sampler needs with
:func:`draw_seed` (63 bits for torch and NumPy unless a plugin says otherwise); a seed given
to a library with a narrower range is cut with :func:`low_bits` or :func:`high_bits`; torch
is seeded for one generation with :func:`seeded_torch`. docs/plugin-authors.md ("Seeds")
says which to use when.

>>> derive(0, "eda", "hello") == RowSeeder(0, "eda").seed("hello")
True
>>> generator(0, "eda", "hello").random() == RowSeeder(0, "eda").rng("hello").random()
True
>>> derive(7, "a", bits=63) < 2**63
True
"""

from __future__ import annotations

import _random
import contextlib
import hashlib
import random
import secrets
from collections.abc import Iterator

from augkit.errors import InvalidParameterError

#: The size of a row's seed (:meth:`RowSeeder.seed`) and :func:`derive`'s default width:
#: 128 bits, so that distinct (seed, salt) pairs practically never share a seed.
ROW_SEED_BITS = 128
#: The width of the seeds augmenters give models and samplers (:func:`draw_seed`):
#: ``torch.manual_seed`` and ``torch.Generator.manual_seed`` take a signed 64-bit int, and
#: 63 bits are the non-negative part of that range (NumPy's ``default_rng`` takes any).
MODEL_SEED_BITS = 63
#: What :func:`derive` puts between the parts it hashes: the ASCII unit separator, which no
#: step key holds, so ``("ab", "c")`` and ``("a", "bc")`` give different seeds.
SALT_SEPARATOR = "\x1f"
#: The size of the base seed drawn when a run gives none (:func:`resolve_seed`).
DRAWN_SEED_BITS = 64

_new_random = random.Random.__new__
_seed_state = _random.Random.seed  # the C seeding under random.Random.seed, minus its Python wrapper


def resolve_seed(seed: int | None) -> int:
    """The run's base seed: ``seed`` itself, or fresh entropy when ``seed`` is None."""
    if seed is None:
        return secrets.randbits(DRAWN_SEED_BITS)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidParameterError(f"seed must be an int or None, got {type(seed).__name__}")
    return seed


def derive(seed: int, *salt: object, bits: int = ROW_SEED_BITS, separator: str = SALT_SEPARATOR) -> int:
    """A non-negative ``bits``-bit seed for one use of ``seed``, named by ``salt``.

    The top ``bits`` bits of the BLAKE2b digest (of ``ceil(bits / 8)`` bytes) of ``seed``
    and each salt as text, joined by ``separator``. The same arguments always give the same
    seed; changing any of them gives an unrelated one.

    ``separator`` other than :data:`SALT_SEPARATOR` exists for one older derivation that
    joined with ``"|"`` (back-translation's pivot seeds); changing it would change that
    method's samples for the same seed, so it is kept. New code leaves it alone.

    >>> derive(0, "eda", "hello") == derive(0, "eda", "hello")
    True
    >>> derive(0, "eda", "hello") == derive(0, "eda", "hellO")
    False
    """
    if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1:
        raise InvalidParameterError(f"bits must be a positive int, got {bits!r}")
    size = -(-bits // 8)
    text = separator.join(str(part) for part in (seed, *salt))
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=size).digest()
    return int.from_bytes(digest, "big") >> (8 * size - bits)


def generator(seed: int, *salt: object) -> random.Random:
    """The generator of one use of ``seed``: ``random.Random(derive(seed, *salt))``.

    >>> generator(3, "pointer", "my card").random() == random.Random(derive(3, "pointer", "my card")).random()
    True
    """
    return _random_from(derive(seed, *salt))


def draw_seed(rng: random.Random, bits: int = MODEL_SEED_BITS) -> int:
    """An int seed of ``bits`` bits for a model or sampler, drawn from a row's generator (the
    ``random.Random`` augkit passes to ``augment_batch``). Draw it at the same point of the
    row's draws every time (first, usually), so that it depends only on the row.

    >>> draw_seed(generator(0, "faq", "hello")) == generator(0, "faq", "hello").getrandbits(63)
    True
    """
    return rng.getrandbits(bits)


def low_bits(seed: int, bits: int) -> int:
    """``seed`` brought into ``[0, 2**bits)`` by keeping its low ``bits`` bits: for a library
    that takes a narrower seed than it was given (a negative seed wraps around).

    >>> low_bits(2**63 + 5, 63), low_bits(-1, 8)
    (5, 255)
    """
    return seed & ((1 << bits) - 1)


def high_bits(seed: int, bits: int, width: int = ROW_SEED_BITS) -> int:
    """The top ``bits`` bits of a ``width``-bit seed (a row seed by default): for a library
    that takes a narrower seed, when the low bits already went to another one.

    >>> high_bits(2**127, 32)
    2147483648
    """
    return seed >> (width - bits)


class RowSeeder:
    """Makes the generator of each row for one (seed, step key) pair: the rows of one step.

    ``seed(text)`` is ``derive(base_seed, step_key, text)`` and ``rng(text)`` is
    ``generator(base_seed, step_key, text)``, computed faster for many rows (the digest of
    the common prefix is made once).

    >>> RowSeeder(0, "eda").rng("hello").random() == RowSeeder(0, "eda").rng("hello").random()
    True
    >>> RowSeeder(0, "eda").rng("hello").random() == random.Random(RowSeeder(0, "eda").seed("hello")).random()
    True
    """

    def __init__(self, base_seed: int, step_key: str):
        prefix = f"{base_seed}{SALT_SEPARATOR}{step_key}{SALT_SEPARATOR}"
        self._prefix = hashlib.blake2b(prefix.encode("utf-8", "surrogatepass"), digest_size=ROW_SEED_BITS // 8)

    def seed(self, text: str) -> int:
        """The row's seed: a non-negative int of :data:`ROW_SEED_BITS` bits."""
        digest = self._prefix.copy()
        digest.update(text.encode("utf-8", "surrogatepass"))
        return int.from_bytes(digest.digest(), "big")

    def rng(self, text: str) -> random.Random:
        """The row's generator, ``random.Random(self.seed(text))``."""
        return _random_from(self.seed(text))


def _random_from(seed: int) -> random.Random:
    """``random.Random(seed)`` for a non-negative int, without the Python-level checks of
    ``random.Random.seed`` (a few microseconds a row)."""
    generator_ = _new_random(random.Random)
    _seed_state(generator_, seed)
    generator_.gauss_next = None  # what random.Random.__init__ would set
    return generator_


@contextlib.contextmanager
def seeded_torch(seed: int | None, device: str) -> Iterator[None]:
    """Seed torch for one sampled generation without touching the caller's random state
    (``torch.random.fork_rng``); ``None`` leaves torch's state alone. torch is imported only
    here, when a seed is given."""
    if seed is None:
        yield
        return
    import torch

    with torch.random.fork_rng(devices=[device] if device.startswith("cuda") else []):
        torch.manual_seed(seed)
        yield
