"""Same seed, same output, whatever the batch size, the chunking or the other rows."""

from __future__ import annotations

import random

import pytest

import augkit
from augkit.plugin import RowSeeder


@pytest.mark.parametrize("method", ["eda", "aeda", "eda+aeda", "eda>aeda"])
def test_batch_size_does_not_change_output(banking77_sentences, method):
    texts = banking77_sentences[:60]
    reference = augkit.augment(texts, method, n=4, seed=11, batch_size=64)
    for batch_size in (1, 7, 1000):
        assert augkit.augment(texts, method, n=4, seed=11, batch_size=batch_size) == reference


def test_chunking_and_row_order_do_not_change_a_rows_output(banking77_sentences):
    texts = banking77_sentences[:50]
    whole = dict(zip(texts, augkit.augment(texts, "eda", n=3, seed=2)))
    shuffled = texts[:]
    random.Random(0).shuffle(shuffled)
    chunks = [shuffled[i : i + 9] for i in range(0, len(shuffled), 9)]
    for chunk in chunks:
        for text, out in zip(chunk, augkit.augment(chunk, "eda", n=3, seed=2)):
            assert out == whole[text]


def test_different_seeds_differ_and_none_is_fresh(banking77_sentences):
    texts = banking77_sentences[:30]
    assert augkit.augment(texts, "eda", n=3, seed=1) != augkit.augment(texts, "eda", n=3, seed=2)
    assert augkit.augment(texts, "eda", n=3) != augkit.augment(texts, "eda", n=3)


def test_no_global_random_state_is_used_or_changed(banking77_sentences):
    random.seed(123)
    before = random.random()
    random.seed(123)
    first = augkit.augment(banking77_sentences[:10], "eda", n=2, seed=0)
    assert random.random() == before
    random.seed(999)
    assert augkit.augment(banking77_sentences[:10], "eda", n=2, seed=0) == first


@pytest.mark.parametrize("method", ["eda", "eda+aeda"])
def test_worker_processes_do_not_change_output(banking77_10shot, method):
    frame = banking77_10shot.head(300)
    single = augkit.augment(frame, method, n=3, seed=4, batch_size=16)
    pooled = augkit.augment(frame, method, n=3, seed=4, batch_size=16, workers=2)
    assert pooled.equals(single)
    assert pooled.attrs["augkit_report"] == single.attrs["augkit_report"]


def test_workers_must_be_a_positive_int(banking77_sentences):
    with pytest.raises(augkit.InvalidParameterError, match="workers must be a positive int"):
        augkit.augment(banking77_sentences[:3], "eda", workers=0)


class SeedRecorder(augkit.Augmenter):
    """Records the row seeds it receives (``row_seeds``) and returns one text per row."""

    name = "seed-recorder"
    row_seeds = True

    def __init__(self):
        self.received: dict[str, int] = {}

    def augment_batch(self, texts, n, rngs):
        self.received.update(zip(texts, rngs, strict=True))
        return [[f"{text} {seed % 1000}"] for text, seed in zip(texts, rngs, strict=True)]


def test_a_method_that_takes_row_seeds_gets_each_rows_seed_whatever_the_batching(banking77_sentences):
    texts = banking77_sentences[:20]
    recorder = SeedRecorder()
    whole = augkit.augment(texts, recorder, n=1, seed=3, batch_size=64)
    seeder = RowSeeder(3, "seed-recorder")
    assert recorder.received == {text: seeder.seed(text) for text in texts}
    assert augkit.augment(texts, recorder, n=1, seed=3, batch_size=3) == whole
    assert augkit.augment(texts, recorder, n=1, seed=4) != whole
