"""Augmenters that say why a row got nothing and what each row cost (:class:`augkit.GeneratedRow`):
the reasons reach the report's summary, usage is summed into ``report.usage`` and the summary
through plain methods, unions and chains, DataFrames, datasets and worker processes alike,
and undeclared usage is refused."""

from __future__ import annotations

import pandas as pd
import pytest

import augkit
from augkit.errors import AugmentationFailedError


class Priced(augkit.Augmenter):
    """Upper-cases texts about cards (one 'request' each, tokens = characters); other texts
    get nothing, with a reason."""

    name = "priced"
    usage = ("requests", "prompt_tokens", "cost_nanodollars")

    def augment_batch(self, texts, n, rngs):
        rows = []
        for text in texts:
            usage = {"requests": 1, "prompt_tokens": len(text), "cost_nanodollars": 1000 * len(text)}
            if "card" in text:
                rows.append(augkit.GeneratedRow([text.upper()], usage=usage))
            else:
                rows.append(augkit.GeneratedRow([], reason="priced: the reply held no list", usage=usage))
        return rows


class Undeclared(Priced):
    name = "undeclared"
    usage = ("requests",)


@pytest.fixture(scope="module")
def texts(shared_data) -> list[str]:
    lines = (shared_data / "banking77" / "jianguoz" / "test" / "seq.in").read_text().splitlines()
    with_card = [t for t in lines if "card" in t][:6]
    without = [t for t in lines if "card" not in t][:4]
    return with_card + without


def expected_usage(texts):
    return {"requests": len(texts), "prompt_tokens": sum(map(len, texts)), "cost_nanodollars": 1000 * sum(map(len, texts))}


@pytest.mark.parametrize("batch_size", [1, 3, 64])
def test_reasons_and_usage_reach_the_report(texts, batch_size):
    out, report = augkit.augment_with_report(texts, Priced(), n=1, seed=0, batch_size=batch_size)
    assert report.usage == expected_usage(texts)
    assert report.without_augmentation == {"priced: the reply held no list": 4}
    summary = report.summary()
    assert "4 priced: the reply held no list" in summary
    assert f"usage: {len(texts)} requests, {sum(map(len, texts))} prompt tokens" in summary
    assert "by usage" not in summary and "requests by" not in summary


def test_usage_sums_through_a_union_and_a_chain(texts):
    _, union = augkit.augment_with_report(texts, augkit.Interleave(Priced(), "eda"), n=2, seed=0)
    assert union.usage == expected_usage(texts)
    assert not union.without_augmentation, "eda gives the other rows candidates"
    out, chain = augkit.augment_with_report(texts, augkit.Chain("eda", Priced()), n=2, seed=0)
    rewritten = [c for row in augkit.augment(texts, "eda", n=2, seed=0) for c in row]
    assert chain.usage == expected_usage(rewritten), "a chain's later step is paid per candidate it rewrites"


def test_tables_and_workers_carry_the_same_report(texts):
    frame = pd.DataFrame({"text": texts, "label": range(len(texts))})
    one = augkit.augment(frame, Priced(), n=1, seed=0)
    two = augkit.augment(frame, Priced(), n=1, seed=0, workers=2, batch_size=2)
    pd.testing.assert_frame_equal(one, two)
    for result in (one, two):
        report = augkit.AugmentationReport.from_dict(result.attrs["augkit_report"])
        assert report.usage == expected_usage(texts)
        assert report.without_augmentation == {"priced: the reply held no list": 4}
    datasets = pytest.importorskip("datasets")
    _, report = augkit.augment_with_report(datasets.Dataset.from_pandas(frame), Priced(), n=1, seed=0, batch_size=4)
    assert report.usage == expected_usage(texts)


def test_usage_the_augmenter_does_not_declare_is_refused(texts):
    with pytest.raises(AugmentationFailedError, match="does not declare"):
        augkit.augment(texts[:2], Undeclared(), n=1, seed=0, strict=True)
