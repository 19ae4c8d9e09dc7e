"""Same seed, same output: nlpaug's global randomness mapped onto augkit's per-row seeds."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from augkit_nlpaug import BRIDGED, SPECS
from augkit_nlpaug.isolation import global_randomness
from augkit_nlpaug.specs import HUB_MODEL, USER_SUPPLIED

import augkit
from augkit.plugin import ROW_SEED_BITS, RowSeeder

#: Methods whose draws come from Python's random (word level), NumPy's (character level) or both.
SEEDED = ["nlpaug.synonym", "nlpaug.random_word", "nlpaug.keyboard", "nlpaug.random_char", "nlpaug.spelling"]


@pytest.mark.parametrize("method", SEEDED)
def test_same_seed_same_output_whatever_the_batch_size(method, banking77_texts, wordnet_for_nltk):
    whole = augkit.augment(banking77_texts, method, n=3, seed=11, batch_size=64)
    assert augkit.augment(banking77_texts, method, n=3, seed=11, batch_size=1) == whole
    assert augkit.augment(banking77_texts, method, n=3, seed=11, batch_size=7) == whole
    assert augkit.augment(banking77_texts, method, n=3, seed=12, batch_size=64) != whole


def test_same_seed_same_output_in_two_worker_processes(banking77_texts, wordnet_for_nltk):
    local = augkit.augment(banking77_texts, "nlpaug.synonym", n=2, seed=4, batch_size=5)
    assert augkit.augment(banking77_texts, "nlpaug.synonym", n=2, seed=4, batch_size=5, workers=2) == local


def test_same_seed_same_output_in_processes_that_hash_strings_differently(banking77_texts, wordnet_for_nltk):
    """Python salts its string hashes per process (PYTHONHASHSEED), which orders sets: no
    method's output may follow it (nlpaug's Spelling model kept its misspellings in one). The
    seeded methods but WordNet's synonyms, whose loading would take most of each process's time."""
    code = ("import json, sys, augkit; texts, methods = json.load(sys.stdin); "
            "print(json.dumps({m: augkit.augment(texts, m, n=3, seed=11) for m in methods}))")
    outputs = [
        subprocess.run([sys.executable, "-c", code], input=json.dumps([banking77_texts, SEEDED[1:]]), capture_output=True,
                       text=True, check=True, env={**os.environ, "PYTHONHASHSEED": hash_seed}).stdout
        for hash_seed in ("1", "2")
    ]
    assert json.loads(outputs[0]) == json.loads(outputs[1])


def test_a_rows_output_does_not_depend_on_the_other_rows(banking77_texts, wordnet_for_nltk):
    together = augkit.augment(banking77_texts[:10], "nlpaug.keyboard", n=2, seed=9)
    alone = [augkit.augment([text], "nlpaug.keyboard", n=2, seed=9)[0] for text in banking77_texts[:10]]
    reversed_order = augkit.augment(banking77_texts[:10][::-1], "nlpaug.keyboard", n=2, seed=9)[::-1]
    assert together == alone == reversed_order


def test_the_callers_global_random_streams_go_on_as_if_the_bridge_had_not_run(banking77_texts, wordnet_for_nltk):
    method = BRIDGED["nlpaug.split"]()  # draws from both Python's and NumPy's generators
    random.seed(123)
    np.random.seed(123)
    expected = (random.random(), np.random.random())
    random.seed(123)
    np.random.seed(123)
    outputs = method.augment(banking77_texts[0], 2, random.Random(0))
    assert outputs
    assert (random.random(), np.random.random()) == expected


# the methods on user-supplied models and token lists: test_nlpaug_user_models.py
@pytest.mark.parametrize("spec", [s for s in SPECS if s.needs not in (HUB_MODEL, USER_SUPPLIED)], ids=lambda spec: spec.name)
def test_a_method_draws_only_from_the_generators_its_spec_names(spec, banking77_texts, banking77_multi_sentence, wordnet_for_nltk,
                                                                outputs_under_numpy_seeds):
    """The bridge seeds only the generators a spec names (NumPy's costs 160 us a row): the
    output must not move with NumPy's global seed, and NumPy's stream must go on unchanged."""
    method = BRIDGED[spec.name]()
    texts = banking77_multi_sentence[:5] if spec.name == "nlpaug.random_sentence" else banking77_texts[:5]
    outputs = outputs_under_numpy_seeds(method, texts)
    assert outputs[0] == outputs[1], f"{spec.name} draws from NumPy: add it to its spec's draws_from"
    assert any(outputs[0])


def test_the_global_states_are_restored_when_nlpaug_raises():
    before = (random.getstate(), np.random.get_state()[1].copy())
    with pytest.raises(ZeroDivisionError), global_randomness() as seed_row:
        seed_row(1)
        random.random()
        1 / 0
    assert random.getstate() == before[0]
    assert (np.random.get_state()[1] == before[1]).all()


def test_a_rows_gaussian_draws_do_not_depend_on_the_row_before():
    """random.gauss caches its second value: a row seeded after a row that drew one must not
    get the cached value (the row's draws would depend on the rows before it)."""
    with global_randomness(("python",)) as seed_row:
        seed_row(7)
        alone = [random.gauss(0, 1), random.gauss(0, 1)]
        seed_row(1)
        random.gauss(0, 1)  # leaves its pair's second value cached
        seed_row(7)
        after_another = [random.gauss(0, 1), random.gauss(0, 1)]
    assert after_another == alone


def test_the_bridge_gives_what_nlpaug_gives_when_seeded_with_the_rows_seed(banking77_texts, wordnet_for_nltk):
    """The bridge adds seeding and deduplication, nothing else: nlpaug's own augmenter, with
    Python's generator seeded with the row's seed (the row's generator's own state) and
    NumPy's with its top 32 bits, returns the same candidates."""
    method = BRIDGED["nlpaug.random_word"](action="swap")
    text = banking77_texts[3]
    seed = RowSeeder(42, method.name).seed(text)
    bridged = method.augment_batch([text], 3, [seed])[0]
    random.seed(seed)
    np.random.seed(seed >> (ROW_SEED_BITS - 32))
    direct = method._nlpaug.augment(text, n=3)
    assert bridged == list(dict.fromkeys(o for o in direct if o != text))
    assert method.augment(text, 3, random.Random(42)) == method.augment_batch([text], 3, [random.Random(42).getrandbits(ROW_SEED_BITS)])[0]


def test_the_pipeline_hands_the_bridge_each_rows_seed(banking77_texts, wordnet_for_nltk):
    """The bridged methods take row seeds (``row_seeds``), as augkit.augment derives them
    from the run's seed and the text: what the method gives for those seeds is what
    augment() keeps."""
    method = BRIDGED["nlpaug.synonym"]()
    assert method.row_seeds
    texts = banking77_texts[:8]
    seeder = RowSeeder(5, method.name)
    direct = method.augment_batch(texts, 2, [seeder.seed(text) for text in texts])
    assert any(direct)
    assert augkit.augment(texts, method, n=2, seed=5) == direct
