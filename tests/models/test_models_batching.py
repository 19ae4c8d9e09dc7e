"""Token-budget batching: longest first, within budget, every index exactly once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from augkit.models.batching import padded_length, token_budget_batches


@given(st.lists(st.integers(1, 300), max_size=80), st.integers(8, 4096), st.integers(1, 8))
def test_batches_cover_every_index_once_and_keep_within_the_budget(lengths, budget, rows):
    batches = token_budget_batches(lengths, budget, rows_per_item=rows)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        widths = {padded_length(lengths[i]) for i in batch}
        assert len(widths) == 1  # one padded shape per batch: results independent of the batch
        assert len(batch) * widths.pop() * rows <= budget or len(batch) == 1
    flat = [padded_length(lengths[i]) for batch in batches for i in batch]
    assert flat == sorted(flat, reverse=True)


def test_short_items_share_a_batch_and_a_long_one_goes_alone():
    assert token_budget_batches([3, 30, 2, 4], token_budget=32) == [[1], [0, 2, 3]]
    assert token_budget_batches([(3, 9), (4, 12), (5, 5)], token_budget=64) == [[0, 1], [2]]
    assert token_budget_batches([5] * 10, token_budget=32, max_items=3) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
