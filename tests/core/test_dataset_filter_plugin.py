"""A third-party dataset filter, written against ``augkit.plugin`` alone (the plugin guide's
example): its verdicts depend on earlier rows, yet the output does not depend on the batch
size. Rows: the first 60 of BANKING77's 5-shot training split."""

from __future__ import annotations

import pandas as pd
import pytest

import augkit
from augkit.plugin import DatasetFilter


class OnePerLabelAndLength(DatasetFilter):
    """Keeps one output per label and word count: later ones of the same length are dropped."""

    name = "one_per_length"

    def prepare(self, dataset):
        self.seen = {}

    def judge(self, text, label, source=None):
        earlier = self.seen.get((label, len(text.split())))
        return "" if earlier is None else f"same label and length as the output kept for row {earlier!r}"

    def remember(self, text, label, row):
        self.seen.setdefault((label, len(text.split())), row)


@pytest.fixture(scope="module")
def rows(shared_data) -> pd.DataFrame:
    folder = shared_data / "banking77" / "jianguoz" / "train_5"
    return pd.DataFrame({"text": (folder / "seq.in").read_text(encoding="utf-8").splitlines()[:60],
                         "label": (folder / "label").read_text(encoding="utf-8").splitlines()[:60]})


def _run(rows, batch_size):
    pipeline = augkit.Pipeline("eda", ["dedup", OnePerLabelAndLength()])
    return augkit.augment(rows, pipeline, n=3, seed=5, label_column="label", trace=True, batch_size=batch_size)


def test_a_plugin_dataset_filter_keeps_one_output_per_label_and_length_whatever_the_batch(rows):
    out, trace = _run(rows, 64)
    added = out[out.augkit_method.notna()]
    lengths = added.text.str.split().str.len()
    assert not pd.concat([added.label, lengths], axis=1).duplicated().any()
    assert (trace.dropped_by == "one_per_length").sum() > 0
    assert trace[trace.dropped_by == "one_per_length"].reason.str.startswith("same label and length").all()
    again, trace_again = _run(rows, 1)
    pd.testing.assert_frame_equal(again, out)
    pd.testing.assert_frame_equal(trace_again, trace)
