"""Hugging Face datasets at size: ``map`` with ``num_proc`` gives the single-process output and
counts; ``IterableDataset`` is augmented lazily, batch by batch as it is read."""

from __future__ import annotations

import random

import pandas as pd
import pytest

import augkit

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def frame(banking77_10shot) -> pd.DataFrame:
    frame = banking77_10shot.head(120).reset_index(drop=True).copy()
    frame.loc[[3, 50], "text"] = ["", "   "]  # pass through, counted
    return frame


@pytest.fixture(scope="module")
def dataset(frame):
    names = sorted(set(frame["label"]))
    return datasets.Dataset.from_pandas(frame).cast_column("label", datasets.ClassLabel(names=names))


@pytest.mark.parametrize("keep_original", [True, False])
def test_num_proc_gives_the_single_process_output_features_and_counts(dataset, frame, keep_original):
    single, single_report = augkit.augment_with_report(dataset, "eda+aeda", n=2, seed=3, batch_size=16, keep_original=keep_original)
    double, double_report = augkit.augment_with_report(dataset, "eda+aeda", n=2, seed=3, batch_size=16, workers=2, keep_original=keep_original)
    assert double.features == single.features and double.features["label"] == dataset.features["label"]
    assert double.to_pandas().equals(single.to_pandas())
    assert double_report.as_dict() == single_report.as_dict()
    in_memory = augkit.augment(frame, "eda+aeda", n=2, seed=3, keep_original=keep_original)
    assert single["text"] == in_memory["text"].tolist()
    assert single_report.as_dict() == in_memory.attrs["augkit_report"]
    assert single_report.without_augmentation["empty or whitespace text"] == 2


class CountingShout(augkit.Augmenter):
    """Counts the texts it is asked to augment, to see when a lazy dataset does the work."""

    name = "counting_shout"
    calls: list[str] = []

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        CountingShout.calls.append(text)
        return [text.upper() + "!" * (i + 1) for i in range(n)]


def test_an_iterable_dataset_is_augmented_lazily(dataset):
    CountingShout.calls.clear()
    streamed = dataset.to_iterable_dataset()
    out = augkit.augment(streamed, CountingShout(), n=2, seed=0, batch_size=10)
    assert isinstance(out, datasets.IterableDataset) and CountingShout.calls == []
    first = list(out.take(6))  # two originals with their two augmentations each
    assert 0 < len(CountingShout.calls) <= 10
    assert [row["augkit_method"] for row in first] == [None, "counting_shout", "counting_shout"] * 2
    everything = list(out)
    eager = augkit.augment(dataset, CountingShout(), n=2, seed=0)
    assert [row["text"] for row in everything] == eager["text"]
    assert [row["label"] for row in everything] == eager["label"]


def test_an_iterable_dataset_refuses_filters_that_need_every_original(dataset):
    with pytest.raises(augkit.errors.UsageError, match="IterableDataset cannot show it up front"):
        augkit.augment(dataset.to_iterable_dataset(), "eda|label_integrity(own_source=true)", n=1, seed=0)
