"""The ranker: a weighted sum of normalised scores per source, best first, top k kept."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import augkit
from augkit.errors import InputError, InvalidParameterError
from augkit.filters import BatchContext, Filter, RankFilter, SemanticFilter
from augkit.pipeline.spec import parse_pipeline_spec
from augkit.steps.candidate import Candidate

SCORED = "eda+aeda|diversity|bleu_to_source"


@pytest.fixture(scope="module")
def sources(banking77_sentences) -> list[str]:
    return banking77_sentences[:25]


@pytest.fixture(scope="module")
def scored_rows(sources):
    """Real EDA and AEDA candidates of BANKING77 texts with their diversity and BLEU scores."""
    pytest.importorskip("sacrebleu")
    rows, _ = augkit.Pipeline.from_string(SCORED).run(sources, 4, seed=7)
    return rows


def _copy(rows):
    return [[Candidate(c.text, c.method, dict(c.scores)) for c in row] for row in rows]


def _normalised(values, how):
    """The documented normalisations, written out independently of the implementation."""
    if how == "raw":
        return values
    if how == "minmax":
        spread = max(values) - min(values)
        return [0.0 if spread == 0 else (v - min(values)) / spread for v in values]
    mean = sum(values) / len(values)
    std = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
    return [0.0 if std == 0 else (v - mean) / std for v in values]


def _expected_order(row, weights, how):
    """Texts ordered by the hand-computed rank, ties in arrival order, with the ranks."""
    columns = {name: _normalised([c.scores[name] for c in row], how) for name in weights}
    ranks = [sum(w * columns[name][i] for name, w in weights.items()) for i in range(len(row))]
    order = sorted(range(len(row)), key=lambda i: -ranks[i])
    return [row[i].text for i in order], [ranks[i] for i in order]


@pytest.mark.parametrize("how", ["minmax", "zscore", "raw"])
def test_rank_is_the_weighted_sum_of_scores_normalised_per_source(sources, scored_rows, how):
    weights = {"diversity": 1.2, "bleu_to_source": -0.5}
    ranked = RankFilter(normalize=how, **weights).filter_batch(sources, _copy(scored_rows), BatchContext())
    for row, out in zip(scored_rows, ranked):
        texts, ranks = _expected_order(row, weights, how)
        assert [c.text for c in out] == texts
        assert [c.scores["rank"] for c in out] == pytest.approx(ranks, abs=1e-9)
    if how == "minmax":  # each weighted score spans 0..1 within a source
        assert all(max(c.scores["rank"] for c in out) <= 1.2 + 1e-9 for out in ranked)


def test_changing_a_weight_changes_the_order(sources, scored_rows):
    by_diversity = RankFilter(diversity=1.0).filter_batch(sources, _copy(scored_rows), BatchContext())
    by_copying = RankFilter(bleu_to_source=1.0).filter_batch(sources, _copy(scored_rows), BatchContext())
    against_copying = RankFilter(diversity=1.0, bleu_to_source=-3.0).filter_batch(sources, _copy(scored_rows), BatchContext())
    orders = [[[c.text for c in row] for row in ranked] for ranked in (by_diversity, by_copying, against_copying)]
    assert orders[0] != orders[1] and orders[0] != orders[2]
    for row in by_copying:  # best first
        values = [c.scores["bleu_to_source"] for c in row]
        assert values == sorted(values, reverse=True)


def test_ranked_table_matches_a_hand_computation_from_its_own_columns(banking77_10shot):
    pytest.importorskip("sacrebleu")
    out = augkit.augment(banking77_10shot.head(30), "eda|diversity|bleu_to_source|rank(diversity=1.2, bleu_to_source=-0.5, normalize=zscore)",
                         n=4, seed=0)
    added = out[out["augkit_method"].notna()]
    assert len(added) > 60
    for _, group in added.groupby("augkit_source", sort=False):
        rows = [Candidate(t, "eda", {"diversity": d, "bleu_to_source": b})
                for t, d, b in zip(group["text"], group["augkit_diversity"], group["augkit_bleu_to_source"])]
        texts, ranks = _expected_order(rows, {"diversity": 1.2, "bleu_to_source": -0.5}, "zscore")
        assert group["text"].tolist() == texts  # the table lists each source's candidates best first
        assert group["augkit_rank"].tolist() == pytest.approx(ranks, abs=1e-9)


def test_ties_keep_generation_order(sources):
    class Constant(augkit.Scorer):
        name, scores = "constant", ("constant",)

        def score(self, source, candidate):
            return 0.5

    plain, _ = augkit.Pipeline("eda").run(sources, 4, seed=2)
    for how in ("minmax", "zscore", "raw"):
        ranked, _ = augkit.Pipeline("eda", [Constant(), RankFilter(constant=2.0, normalize=how)]).run(sources, 4, seed=2)
        assert [[c.text for c in row] for row in ranked] == [[c.text for c in row] for row in plain]


def test_k_keeps_the_best_k_and_none_leaves_the_cut_to_n(sources, scored_rows):
    best_two = RankFilter(k=2, diversity=1.0).filter_batch(sources, _copy(scored_rows), BatchContext())
    everything = RankFilter(diversity=1.0).filter_batch(sources, _copy(scored_rows), BatchContext())
    assert [[c.text for c in row] for row in best_two] == [[c.text for c in row[:2]] for row in everything]
    assert [len(row) for row in everything] == [len(row) for row in scored_rows]
    # In a pipeline the run's n cuts after the ranking: of the 2n candidates eda+aeda
    # propose, the n best survive.
    proposed = []

    class Spy(Filter):
        name = "spy"

        def filter(self, source, candidates):
            proposed.append([Candidate(c.text, c.method, dict(c.scores)) for c in candidates])
            return candidates

    steps = ["diversity", Spy(), RankFilter(diversity=1.0)]
    rows, _ = augkit.Pipeline(augkit.Interleave("eda", "aeda"), steps).run(sources, 3, seed=7)
    best = RankFilter(diversity=1.0).filter_batch(sources, proposed, BatchContext())
    assert [[c.text for c in row] for row in rows] == [[c.text for c in row[:3]] for row in best]
    assert sum(len(row) > 3 for row in proposed) > len(sources) // 2  # the cut did choose


def test_string_and_python_forms_round_trip():
    spec = "eda+aeda|semantic(drop=False)|diversity|bleu_to_source|rank(semantic=4.0, diversity=1.2, normalize='zscore')"
    pipeline = augkit.Pipeline.from_string(spec)
    assert pipeline.spec == spec.replace("eda+aeda|", "eda+aeda|dedup|")
    assert augkit.Pipeline.from_string(pipeline.spec).spec == pipeline.spec
    step = parse_pipeline_spec("eda|rank(semantic=4, fluency=8.0, diversity=1.2)").filters[0]
    assert step.args == {"semantic": 4, "fluency": 8.0, "diversity": 1.2}
    python = augkit.Pipeline(augkit.Interleave("eda", "aeda"), [SemanticFilter(drop=False), "diversity", "bleu_to_source",
                                                            RankFilter(semantic=4.0, diversity=1.2, normalize="zscore")])
    assert python.spec == pipeline.spec
    assert repr(RankFilter(semantic=4, k=2)) == "RankFilter(semantic=4.0, k=2)"
    routed = augkit.Pipeline.from_string("eda|diversity|bleu_to_source|rank(diversity=1)", {"rank.bleu_to_source": -0.5, "rank.k": 2})
    assert routed.spec.endswith("|rank(diversity=1.0, bleu_to_source=-0.5, k=2)")


def test_a_weight_without_an_earlier_score_fails_when_the_pipeline_is_built():
    with pytest.raises(InvalidParameterError) as error:
        augkit.Pipeline.from_string("eda|semantic(drop=false)|diversity|rank(semantc=4, diversity=1)")
    message = str(error.value)
    assert "'semantc'" in message and "did you mean 'semantic'" in message
    assert "'semantic' adds semantic; 'diversity' adds diversity" in message
    with pytest.raises(InvalidParameterError, match="no step before 'rank' adds a score.*'diversity' adds it: put it before 'rank'"):
        augkit.Pipeline.from_string("eda|rank(diversity=1)")
    with pytest.raises(InvalidParameterError, match="put the step that adds 'bleu' before 'rank', or declare it"):
        augkit.Pipeline.from_string("eda|diversity|rank(diversity=1, bleu=-1)")
    with pytest.raises(InvalidParameterError, match="'diversity'"):  # order matters: the scorer comes after
        augkit.Pipeline.from_string("eda|rank(diversity=1)|diversity")
    with pytest.raises(InvalidParameterError, match="did you mean 'k'"):
        augkit.Pipeline.from_string("eda|diversity|rank(diversity=1, kk=2)")


@pytest.mark.parametrize("params, message", [
    ({"diversity": 1, "normalize": "z-score"}, "normalize must be one of minmax, zscore, raw"),
    ({"diversity": 1, "normalise": "zscore"}, "did you mean parameter 'normalize'"),
    ({"diversity": 1, "k": -1}, "k must be an integer >= 1"),
    ({"diversity": 1, "k": 0}, "k must be an integer >= 1"),
    ({"diversity": 1, "k": 1.5}, "k must be"),
    ({"diversity": "high"}, "weight of score 'diversity' must be a finite number"),
    ({"diversity": math.inf}, "finite number"),
    ({"diversity": True}, "finite number"),
    ({}, "at least one weight"),
])
def test_bad_parameters_say_what_is_wrong(params, message):
    with pytest.raises(InvalidParameterError, match=message):
        RankFilter(**params)


def test_bad_parameters_in_a_string_say_what_is_wrong():
    with pytest.raises(InvalidParameterError, match="normalize must be one of"):
        augkit.Pipeline.from_string("eda|diversity|rank(diversity=1, normalize=softmax)")
    with pytest.raises(InvalidParameterError, match="k must be"):
        augkit.Pipeline.from_string("eda|diversity|rank(diversity=1, k=-2)")


def test_a_candidate_missing_a_score_at_run_time_is_named(sources):
    class SometimesScored(Filter):
        """Declares a score but gives it only to candidates longer than their source."""

        name, scores = "sometimes", ("longer",)

        def filter(self, source, candidates):
            for candidate in candidates:
                if len(candidate.text) > len(source):
                    candidate.scores["longer"] = 1.0
            return candidates

    pipeline = augkit.Pipeline(augkit.Interleave("aeda", "eda"), [SometimesScored(), RankFilter(longer=1.0)])
    with pytest.raises(InputError, match="rank weighs the score 'longer', but the candidate .* has none"):
        pipeline.run(sources, 4, seed=0)


def test_same_output_whatever_the_batch_size(banking77_10shot, tiny_encoder_dir):
    pytest.importorskip("sacrebleu")
    frame = banking77_10shot.head(40)
    spec = (f"eda+aeda|semantic(drop=false, model={tiny_encoder_dir!r})|diversity|bleu_to_source"
            "|rank(semantic=4, diversity=1.2, bleu_to_source=-0.1)")
    one = augkit.augment(frame, spec, n=3, seed=11, batch_size=1)
    many = augkit.augment(frame, spec, n=3, seed=11, batch_size=256)
    pd.testing.assert_frame_equal(one, many)
    added = one[one["augkit_method"].notna()]
    assert added["augkit_rank"].notna().all() and len(added) == 3 * len(frame)
    assert set(added["augkit_method"]) == {"eda", "aeda"}


def test_the_trace_shows_every_score_and_what_rank_dropped(banking77_10shot):
    pytest.importorskip("sacrebleu")
    frame = banking77_10shot.head(15)
    out, trace = augkit.augment(frame, "eda+aeda|diversity|bleu_to_source|rank(diversity=1.2, bleu_to_source=-0.5, k=3)",
                                n=2, seed=0, trace=True)
    assert {"score_diversity", "score_bleu_to_source", "score_rank"} <= set(trace.columns)
    assert trace[["score_diversity", "score_bleu_to_source", "score_rank"]].notna().all().all()  # nothing dropped before rank
    for source, group in trace.groupby("source"):
        ranked = group.sort_values("score_rank", ascending=False, kind="stable")
        fates = ranked["dropped_by"].tolist()
        assert fates == [""] * min(2, len(group)) + ["beyond n"] * (min(3, len(group)) - min(2, len(group))) + ["rank"] * (len(group) - min(3, len(group)))
    kept = trace[trace["fate"] == "kept"]
    assert sorted(kept["candidate"]) == sorted(out.loc[out["augkit_method"].notna(), "text"])
