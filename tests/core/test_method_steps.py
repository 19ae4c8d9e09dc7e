"""A method's own steps (Augmenter.follow_up), the candidates it asks for (candidates_for),
optional context columns, and rank(weighting="inverse_std") calibrated on the run's own
candidates before the run."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import augkit
from augkit.errors import InputError, UsageError
from augkit.filters import LengthFilter, RankFilter
from augkit.filters.diversity import DiversityScorer


class RankedEda(augkit.Augmenter):
    """EDA candidates ranked by its own diversity scorer and ranker: a method with steps."""

    name = "ranked_eda"

    def __init__(self, pool: int = 6, weighting: str = "given"):
        self.pool = pool
        self.weighting = weighting
        self.asked: list[int] = []

    def follow_up(self):
        return [DiversityScorer(), RankFilter(normalize="raw", weighting=self.weighting, calibration_candidates=40, diversity=1.0)]

    def candidates_for(self, n: int) -> int:
        return max(n, self.pool)

    def augment_batch(self, texts, n, rngs):
        self.asked.append(n)
        eda = augkit.get_registry().create_augmenter("eda")
        return eda.augment_batch(texts, n, rngs)


@pytest.fixture(scope="module")
def texts(banking77_sentences):
    return banking77_sentences[:30]


def test_a_methods_own_steps_run_after_generation_and_rank_its_wider_pool(texts):
    method = RankedEda(pool=6)
    pipeline = augkit.Pipeline(method)
    assert [step.name for step in pipeline.filters] == ["dedup", "protected", "diversity", "rank"]
    assert pipeline.count_names == ("generated", "dedup", "protected", "diversity", "rank", "beyond n")
    outcome = pipeline.run_batch(texts, 2, seed=3, trace=True)
    assert set(method.asked) == {6}  # asked for its pool, not for n
    for row, trace in zip(outcome.candidates, outcome.traces):
        assert len(row) <= 2
        ranked = sorted((e for e in trace if "rank" in e.scores), key=lambda e: -e.scores["rank"])
        assert [c.text for c in row] == [e.candidate for e in ranked[: len(row)]]  # the best two by diversity
        assert {e.dropped_by for e in trace if e.dropped_by} <= {"dedup", "beyond n"}


def test_own_steps_are_implied_by_the_method_not_written_in_the_spec(texts):
    pipeline = augkit.Pipeline(RankedEda(), ["length"])
    assert pipeline.spec == "ranked_eda|dedup|length"
    assert [step.name for step in pipeline.filters] == ["dedup", "protected", "diversity", "rank", "length"]


def test_a_method_with_own_steps_must_be_the_only_generator():
    with pytest.raises(UsageError, match="ranked_eda.*only generator"):
        augkit.Pipeline(augkit.Interleave(RankedEda(), "aeda"))


def test_inverse_std_weights_are_one_over_each_scores_spread_on_the_first_candidates(texts):
    method = RankedEda(pool=6, weighting="inverse_std")
    pipeline = augkit.Pipeline(method)
    rank = pipeline.filters[-1]
    assert rank.effective_weights is None
    pipeline.prepare(texts, n=2, seed=5)
    # the same sample by hand: originals in order, generated 16 at a time, until 40 candidates reach rank
    reached = []
    for start in range(0, len(texts), 16):
        part = texts[start : start + 16]
        rows = augkit.Pipeline(RankedEda(pool=6), dedup=True).filters[0].filter_batch(
            part, [[augkit.Candidate(t, "ranked_eda") for t in row] for row in method.augment_batch(part, 6, _rngs(part, 5))],
            augkit.BatchContext())
        rows = DiversityScorer().filter_batch(part, rows, augkit.BatchContext())
        for row in rows:
            reached.append(row)
            if sum(map(len, reached)) >= 40:
                break
        if sum(map(len, reached)) >= 40:
            break
    values = [c.scores["diversity"] for row in reached for c in row]
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    assert rank.effective_weights["diversity"] == pytest.approx(1.0 / spread)
    assert rank.calibration_spreads["diversity"] == pytest.approx(spread)


def _rngs(texts, seed):
    from augkit.seeding import RowSeeder

    leaf_key = augkit.Pipeline(RankedEda())._generator.key
    return [RowSeeder(seed, leaf_key).rng(t) for t in texts]


def test_inverse_std_output_does_not_depend_on_batch_size_or_workers(texts):
    frame = pd.DataFrame({"text": texts})
    runs = [augkit.augment(frame, augkit.Pipeline(RankedEda(weighting="inverse_std")), n=2, seed=1, batch_size=size,
                           workers=workers) for size, workers in ((1, 1), (7, 2), (64, 1))]
    assert runs[0].equals(runs[1]) and runs[0].equals(runs[2])
    assert len(runs[0]) > len(texts)


def test_inverse_std_uncalibrated_or_without_spread_fails_clearly(texts):
    rank = RankFilter(weighting="inverse_std", normalize="raw", diversity=1.0)
    with pytest.raises(InputError, match="augkit.augment"):
        rank.filter(texts[0], [augkit.Candidate("a b", "x", {"diversity": 0.5})])
    with pytest.raises(InputError, match="same value on all 2"):
        rank.calibrate([texts[0]], [[augkit.Candidate("a", "x", {"diversity": 0.5}), augkit.Candidate("b", "x", {"diversity": 0.5})]])
    with pytest.raises(InputError, match="only 1 reached rank"):
        rank.calibrate([texts[0]], [[augkit.Candidate("a", "x", {"diversity": 0.5})]])


def test_length_shortest_is_an_absolute_floor(texts):
    kept = LengthFilter(min=0.0, max=math.inf, unit="chars", shortest=15).filter(
        "how do I top up", [augkit.Candidate("top up?", "m"), augkit.Candidate("how can I top up my card", "m")])
    assert [c.text for c in kept] == ["how can I top up my card"]


class Surroundings(augkit.Augmenter):
    """Appends the row's 'before' column when it is mapped, nothing otherwise."""

    name = "surroundings"
    optional_context_columns = ("before",)

    def augment_batch(self, texts, n, rngs, context):
        before = context.columns.get("before")
        return [[f"{text} [{before[i] if before is not None else 'none'}]"] for i, text in enumerate(texts)]


def test_optional_context_columns_are_read_when_mapped_and_absent_otherwise():
    frame = pd.DataFrame({"text": ["I lost my card", "my card is stuck"], "prev": ["Hello.", "Help!"]})
    mapped = augkit.augment(frame, augkit.Pipeline(Surroundings()), n=1, seed=0, context_columns={"before": "prev"},
                            keep_original=False)
    assert mapped["text"].tolist() == ["I lost my card [Hello.]", "my card is stuck [Help!]"]
    unmapped = augkit.augment(frame, augkit.Pipeline(Surroundings()), n=1, seed=0, keep_original=False)
    assert unmapped["text"].tolist() == ["I lost my card [none]", "my card is stuck [none]"]
    with pytest.raises(UsageError, match="read by no step"):
        augkit.augment(frame, augkit.Pipeline(Surroundings()), n=1, context_columns={"after": "prev"})
