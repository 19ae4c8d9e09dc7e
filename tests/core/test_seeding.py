"""Per-row generators: equal to the documented ``random.Random(digest)``, one per text."""

from __future__ import annotations

import hashlib
import random

import pytest

from augkit.errors import InvalidParameterError
from augkit.seeding import ROW_SEED_BITS, RowSeeder, resolve_seed


def test_row_generator_is_random_random_seeded_with_the_documented_digest(banking77_sentences):
    for text in banking77_sentences[:20] + ["", "😀 é", "\ud800"]:
        material = f"7\x1feda\x1f{text}".encode("utf-8", "surrogatepass")
        expected = random.Random(int.from_bytes(hashlib.blake2b(material, digest_size=16).digest(), "big"))
        generator = RowSeeder(7, "eda").rng(text)
        assert [generator.random() for _ in range(5)] == [expected.random() for _ in range(5)]
        assert generator.gauss(0, 1) == expected.gauss(0, 1)


def test_row_seed_is_the_documented_digest_that_seeds_the_row_generator(banking77_sentences):
    seeder = RowSeeder(7, "eda")
    for text in banking77_sentences[:20] + ["", "\ud800"]:
        material = f"7\x1feda\x1f{text}".encode("utf-8", "surrogatepass")
        seed = seeder.seed(text)
        assert seed == int.from_bytes(hashlib.blake2b(material, digest_size=16).digest(), "big")
        assert 0 <= seed < 2**ROW_SEED_BITS
        assert random.Random(seed).random() == seeder.rng(text).random()


def test_keys_and_texts_give_different_streams():
    draws = {RowSeeder(0, key).rng(text).random() for key in ("eda", "aeda") for text in ("a", "b")}
    assert len(draws) == 4


@pytest.mark.parametrize("seed", [1.5, "3", True])
def test_seed_must_be_an_int_or_none(seed):
    with pytest.raises(InvalidParameterError, match="seed must be an int or None"):
        resolve_seed(seed)
    assert isinstance(resolve_seed(None), int)
