"""Per-row generators: equal to the documented ``random.Random(digest)``, one per text; every
seed a plugin or model uses derived in :mod:`augkit.seeding`."""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path

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


@pytest.fixture(scope="module")
def trec_questions(shared_data) -> list[str]:
    """TREC test questions: real text, with their quotes and punctuation, as salts."""
    lines = (shared_data / "trec" / "eda_nlp" / "test" / "test.txt").read_text(encoding="utf-8").splitlines()
    return [line.split("\t", 1)[-1] for line in lines[:200]]


def test_derive_is_the_row_seed_and_generator_the_row_generator(trec_questions):
    from augkit.seeding import derive, generator

    for seed, question in enumerate(trec_questions):
        assert derive(seed, "faq", question) == RowSeeder(seed, "faq").seed(question)
        assert generator(seed, "faq", question).getstate() == RowSeeder(seed, "faq").rng(question).getstate()


def test_derive_takes_the_top_bits_of_a_digest_of_the_width_asked(trec_questions):
    from augkit.seeding import derive

    for question in trec_questions:
        digest = hashlib.blake2b(f"3|{question}".encode(), digest_size=8).digest()
        assert derive(3, question, bits=63, separator="|") == int.from_bytes(digest, "big") >> 1
        assert 0 <= derive(3, question, bits=31) < 2**31
    assert derive(3, "ab", "c") != derive(3, "a", "bc")  # the separator keeps the parts apart


@pytest.mark.parametrize("bits", [0, -1, 2.5, True])
def test_derive_refuses_a_width_that_is_not_a_positive_int(bits):
    from augkit.seeding import derive

    with pytest.raises(InvalidParameterError, match="bits must be a positive int"):
        derive(0, "eda", bits=bits)


def test_model_seeds_are_drawn_first_from_the_row_generator_and_narrowed_by_bits(trec_questions):
    from augkit.seeding import MODEL_SEED_BITS, draw_seed, high_bits, low_bits

    for question in trec_questions:
        assert draw_seed(RowSeeder(0, "pointer").rng(question)) == random.Random(RowSeeder(0, "pointer").seed(question)).getrandbits(63)
        row_seed = RowSeeder(0, "nlpaug").seed(question)
        assert high_bits(row_seed, 32) == row_seed >> 96 and low_bits(row_seed, MODEL_SEED_BITS) == row_seed % 2**63
    assert low_bits(-1, 32) == 2**32 - 1  # a negative seed wraps around, as % does


#: What deriving a seed by hand looks like (a draw of bits, a torch seed not cut by the
#: module's low_bits, a modulo of a power of two, a hash of a seed); hashlib stays for
#: content digests (caches, checksums), which are not seeds.
HAND_SEEDING = re.compile(r"\.getrandbits\(|\bmanual_seed\((?!low_bits\()|% ?\(?2 ?\*\* ?\d|blake2b\(f\"\{seed")


def test_every_plugin_and_model_takes_its_seeds_from_the_seeding_module():
    root = Path(__file__).resolve().parents[2]
    modules = [*root.glob("plugins/*/augkit_*/**/*.py"), *(root / "augkit" / "models").glob("**/*.py")]
    assert len(modules) > 50
    by_hand = [f"{path.relative_to(root)}:{number}: {line.strip()}"
               for path in modules
               for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
               if HAND_SEEDING.search(line)]
    assert by_hand == []


def test_a_runs_options_resolve_and_check_the_seed_for_every_entry_point():
    from augkit.engine.run_options import RunOptions

    assert RunOptions(seed=7).checked().seed == 7
    drawn = {RunOptions(seed=None).checked().seed for _ in range(3)}
    assert len(drawn) == 3 and all(isinstance(seed, int) for seed in drawn)
    with pytest.raises(InvalidParameterError, match="seed must be an int or None, got str"):
        RunOptions(seed="7").checked()
