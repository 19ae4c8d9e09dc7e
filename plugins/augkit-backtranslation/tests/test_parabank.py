"""The ParaZh-22M parabank builder: the filter step on real Chinese strings, the top-fraction
count, the whole recipe on tiny random Marian models (candidates, per-row dual-score pick
recomputed by hand, top-fraction cut, edit-ratio filter, parallel = monolingual given the same
translations) and on hand-scored Chinese candidates, and the bergamot engine for real."""

from __future__ import annotations

import math

import pytest
from augkit_backtranslation.parabank import (
    COUNT_KEYS,
    PIVOT_BEAMS,
    BergamotDirection,
    _ListedCandidates,
    build_parabank,
    filter_candidates,
    kept_by_top_fraction,
    parabank_pipeline,
)
from augkit_backtranslation.parabank_steps import counted_steps
from augkit_backtranslation.scripts import script_share

from augkit.plugin import (
    GenerationResult,
    InputError,
    InvalidParameterError,
    TargetScore,
    edit_distance_ratio,
)

# -- the filter step ---------------------------------------------------------------------

ORIGINAL = "请问我的转账为什么还没到账"


def test_the_script_filter_drops_latin_heavy_candidates_above_the_paper_threshold():
    candidates = [
        "我的转账为什么还没有到",            # Han only: kept
        "请check一下my transfer status",    # 21 Latin letters of 24: 0.875, dropped
        "我的abc转账",                        # 3 of 7: 0.43, kept
        "转账abc",                            # 3 of 5: exactly 0.6, kept (the paper drops "larger than 60%")
        "转abc",                              # 3 of 4: 0.75, dropped
    ]
    kept, dropped = filter_candidates(ORIGINAL, candidates, wrong_script="Latin", max_wrong_script_share=0.6)
    assert [c.text for c in kept] == ["我的转账为什么还没有到", "我的abc转账", "转账abc"]
    assert [c.wrong_script_share for c in kept] == pytest.approx([0.0, 3 / 7, 0.6])
    assert dropped["wrong_script"] == 2
    # a stricter threshold also drops the 0.43 and 0.6 ones
    kept, dropped = filter_candidates(ORIGINAL, candidates, wrong_script="Latin", max_wrong_script_share=0.4)
    assert [c.text for c in kept] == ["我的转账为什么还没有到"] and dropped["wrong_script"] == 4


def test_without_a_script_nothing_is_dropped_for_its_script():
    kept, dropped = filter_candidates(ORIGINAL, ["请check一下my transfer status"], min_edit_ratio=0.0)
    assert [c.text for c in kept] == ["请check一下my transfer status"]
    assert kept[0].wrong_script_share is None and dropped["wrong_script"] == 0


def test_copies_duplicates_blanks_and_near_copies_are_dropped_and_counted():
    source = "How do I locate my card?"
    candidates = [
        "how do I  locate my card?",       # the source up to case and spacing: copy
        "How can I locate my card?",       # 0.125 >= 0.12: kept
        "How can I locate my card?",       # duplicate
        "HOW CAN I LOCATE MY CARD?",       # duplicate up to case
        " ",                               # blank
        "How do I locate my card",         # one character off: 0.04 < 0.12
        "Where can I find my card?",       # kept
    ]
    kept, dropped = filter_candidates(source, candidates)
    assert [c.text for c in kept] == ["How can I locate my card?", "Where can I find my card?"]
    assert kept[0].edit_ratio == pytest.approx(edit_distance_ratio("How can I locate my card?", source))
    assert dropped == {"wrong_script": 0, "blank": 1, "copies": 1, "duplicates": 2, "edit_ratio": 1}


def test_each_step_of_the_recipe_says_why_it_dropped_a_candidate_in_the_trace():
    candidates = ["请check一下my transfer status", "请问我的转账为什么还没到账", "我的转账为什么还没有到",
                  "我的转账为什么还没有到", "请问我的转账为什么还没到账吗"]
    pipeline, generator = parabank_pipeline(_ListedCandidates(candidates), None, k=len(candidates),
                                            wrong_script="Latin", max_wrong_script_share=0.6)
    generator.pivots[ORIGINAL] = ORIGINAL
    trace = pipeline.run_batch([ORIGINAL], len(candidates), 0, trace=True).traces[0]
    steps = {name: key for key, name in counted_steps(pipeline).items()}  # trace name -> count key
    assert [(steps.get(entry.dropped_by, entry.dropped_by), entry.reason) for entry in trace] == [
        ("wrong_script", "87.5% of its letters in Latin script, above max_share=0.6"),
        ("copies", "duplicate of the source (ignoring case)"),
        ("", ""),
        ("duplicates", "duplicate of an earlier candidate (ignoring case)"),
        ("edit_ratio", "char edit ratio 0.08 below min=0.12"),
    ]


@pytest.mark.parametrize(
    "survivors, fraction, expected",
    [(100, 0.72, 72), (100, 0.07, 7), (3, 0.5, 2), (3, 1.0, 3), (7, 0.01, 1), (0, 0.72, 0), (25, 0.72, 18), (304, 0.72, 219)],
)
def test_the_top_fraction_keeps_the_ceiling_of_the_share(survivors, fraction, expected):
    assert kept_by_top_fraction(survivors, fraction) == expected


# -- the recipe on hand-scored Chinese candidates -----------------------------------------


class ScriptedModel:
    """A model whose outputs and teacher-forced scores are given by hand: ``outputs[text]``
    is the list of sequences generated for ``text``, ``scores[(source, target)]`` the
    (logprob, tokens) of ``target`` given ``source``."""

    def __init__(self, outputs, scores):
        self.outputs, self.scores, self.calls = outputs, scores, []

    def generate(self, texts, *, num_beams, num_return, **options):
        self.calls.append(("generate", list(texts), num_beams, num_return))
        return GenerationResult([self.outputs[text][:num_return] for text in texts])

    def score(self, sources, targets, **options):
        self.calls.append(("score", list(sources), list(targets)))
        return [TargetScore(*self.scores[(s, t)]) for s, t in zip(sources, targets, strict=True)]


def chinese_models():
    """En->zh candidates and scores for three sentences of a zh-en parallel table."""
    to_zh = ScriptedModel(
        {
            "Why hasn't my transfer arrived?": ["我的转账为什么还没到？", "为什么我的转账没有到账？", "Why我的transfer没到？", "请问我的转账为什么还没到账"],
            "I lost my card": ["我丢了我的卡", "我的卡不见了", "I lost 我的卡"],
            "Top up failed": ["充值失败", "充值没有成功"],
        },
        {
            ("Why hasn't my transfer arrived?", "我的转账为什么还没到？"): (-9.0, 10),
            ("Why hasn't my transfer arrived?", "为什么我的转账没有到账？"): (-6.0, 10),
            ("I lost my card", "我丢了我的卡"): (-3.0, 6),
            ("I lost my card", "我的卡不见了"): (-2.0, 6),
            ("Top up failed", "充值失败"): (-8.0, 4),
            ("Top up failed", "充值没有成功"): (-6.0, 6),
        },
    )
    to_en = ScriptedModel(
        {},
        {
            ("我的转账为什么还没到？", "Why hasn't my transfer arrived?"): (-5.0, 8),
            ("为什么我的转账没有到账？", "Why hasn't my transfer arrived?"): (-4.0, 8),
            ("我丢了我的卡", "I lost my card"): (-1.0, 4),
            ("我的卡不见了", "I lost my card"): (-4.0, 4),
            ("充值失败", "Top up failed"): (-2.0, 4),
            ("充值没有成功", "Top up failed"): (-9.0, 4),
        },
    )
    return to_zh, to_en


CHINESE = ["请问我的转账为什么还没到账", "我的卡丢了", "充值失败了", "请check一下my transfer status", ""]
ENGLISH = ["Why hasn't my transfer arrived?", "I lost my card", "Top up failed", "Please check my transfer status", ""]


def test_on_chinese_each_row_keeps_its_best_dual_score_and_the_top_fraction_is_cut():
    to_zh, to_en = chinese_models()
    result = build_parabank(
        CHINESE, ENGLISH, to_language_model=to_zh, from_language_model=to_en, k=15,
        wrong_script="Latin", top_fraction=0.5,
    )
    # per token: row 0 picks (-6-4)/18 over (-9-5)/18; row 1 picks (-3-1)/10 over (-2-4)/10;
    # row 2 picks (-8-2)/8 = -1.25 over (-6-9)/10; the best half, ceil(1.5) = 2: rows 1, 0
    assert [(p.row, p.paraphrase) for p in result.pairs] == [(1, "我丢了我的卡"), (0, "为什么我的转账没有到账？")]
    assert [p.dual_score for p in result.pairs] == pytest.approx([-0.4, -10 / 18])
    assert (result.pairs[0].forward_logprob, result.pairs[0].reverse_logprob) == (-3.0, -1.0)
    assert result.pairs[0].translation == "I lost my card" and result.pairs[0].source == "我的卡丢了"
    assert result.pairs[0].wrong_script_share == 0.0
    assert result.counts == {
        "rows": 5, "empty": 1, "source_wrong_script": 1, "untranslated": 0, "candidates": 9, "wrong_script": 2,
        "blank": 0, "copies": 1, "duplicates": 0, "edit_ratio": 0, "rows_with_survivor": 3, "pairs": 2,
    }
    # the Latin-heavy sentence of row 3 was never translated; candidates asked with beam k
    generated = [call for call in to_zh.calls if call[0] == "generate"]
    assert generated == [("generate", ENGLISH[:3], 15, 15)]
    assert list(result.counts) == list(COUNT_KEYS)
    assert result.summary().startswith("5 rows read (1 empty, 1 mostly Latin skipped), 9 candidates generated; dropped 2 mostly Latin,")


def test_the_frame_has_the_documented_columns_and_nan_for_missing_scores():
    to_zh, to_en = chinese_models()
    result = build_parabank(CHINESE, ENGLISH, to_language_model=to_zh, from_language_model=to_en, wrong_script="Latin")
    frame = result.to_frame()
    assert list(frame.columns) == [
        "source", "paraphrase", "translation", "dual_score", "forward_logprob", "reverse_logprob",
        "edit_ratio", "wrong_script_share", "row",
    ]
    assert frame["row"].tolist() == [1, 0, 2]  # ceil(0.72 x 3) = 3: all, best first
    # models without score(): unscored pairs in input order, NaN scores, no script column
    unscored = build_parabank(
        CHINESE[:3], ENGLISH[:3], to_language_model=GenerateOnly(to_zh), from_language_model=GenerateOnly(to_en),
    )
    frame = unscored.to_frame()
    assert "wrong_script_share" not in frame.columns and not unscored.scored
    assert frame["paraphrase"].tolist() == ["我的转账为什么还没到？", "我丢了我的卡", "充值失败"]  # first survivors
    assert frame[["dual_score", "forward_logprob", "reverse_logprob"]].isna().all().all()


class GenerateOnly:
    """A model that generates but cannot score (like the bergamot engine)."""

    def __init__(self, model):
        self.generate = model.generate


# -- the recipe on tiny random Marian models ----------------------------------------------

@pytest.fixture(scope="module")
def marian(tiny_marian_pair):
    """(to_language_model xx->en, from_language_model en->xx), loaded on the CPU."""
    pytest.importorskip("torch")
    from augkit.plugin import load_seq2seq

    en_xx, xx_en = tiny_marian_pair
    return load_seq2seq(str(xx_en), device="cpu"), load_seq2seq(str(en_xx), device="cpu")


@pytest.fixture(scope="module")
def sentences(banking77_sentences):
    return list(dict.fromkeys(banking77_sentences))[:15]


K = 5


@pytest.fixture(scope="module")
def everything(marian, sentences):
    """Monolingual English through the tiny pivot, nothing cut by the top fraction."""
    to_model, from_model = marian
    return build_parabank(sentences, to_language_model=to_model, from_language_model=from_model, k=K, top_fraction=1.0)


def test_k_candidates_per_row_from_the_pivot_translation_with_beam_4(marian, sentences, everything):
    _, from_model = marian
    assert everything.counts["rows"] == 15 and everything.counts["candidates"] == K * 15
    pivots = [texts[0] for texts in from_model.generate(sentences, num_beams=PIVOT_BEAMS, num_return=1).texts]
    assert {p.row: p.translation for p in everything.pairs} == {p.row: pivots[p.row] for p in everything.pairs}
    assert all(p.source == sentences[p.row] for p in everything.pairs)
    assert everything.counts["rows_with_survivor"] == everything.counts["pairs"] == len(everything.pairs) >= 12


def test_each_row_keeps_the_surviving_candidate_with_the_highest_dual_score(marian, sentences, everything):
    to_model, from_model = marian
    pair = everything.pairs[len(everything.pairs) // 2]
    pivot = pair.translation
    candidates = to_model.generate([pivot], num_beams=K, num_return=K).texts[0]
    survivors, _ = filter_candidates(sentences[pair.row], candidates)
    assert len(survivors) >= 2  # a real choice
    by_hand = {}
    for candidate in survivors:
        forward = to_model.score([pivot], [candidate.text])[0]   # log P(candidate | pivot)
        reverse = from_model.score([candidate.text], [pivot])[0]  # log P(pivot | candidate)
        by_hand[candidate.text] = ((forward.logprob + reverse.logprob) / (forward.tokens + reverse.tokens), forward, reverse)
    best = max(by_hand, key=lambda text: by_hand[text][0])
    assert pair.paraphrase == best
    score, forward, reverse = by_hand[best]
    assert pair.dual_score == pytest.approx(score, rel=1e-6)
    assert (pair.forward_logprob, pair.reverse_logprob) == pytest.approx((forward.logprob, reverse.logprob), rel=1e-6)
    assert all(pair.dual_score >= other[0] - 1e-9 for other in by_hand.values())


def test_the_top_fraction_keeps_the_best_scored_survivors_best_first(marian, sentences, everything):
    to_model, from_model = marian
    scores = [p.dual_score for p in everything.pairs]
    assert scores == sorted(scores, reverse=True)
    half = build_parabank(sentences, to_language_model=to_model, from_language_model=from_model, k=K, top_fraction=0.5)
    survivors = len(everything.pairs)
    assert len(half.pairs) == math.ceil(survivors / 2) == half.counts["pairs"]
    assert half.pairs == everything.pairs[: len(half.pairs)]
    assert min(p.dual_score for p in half.pairs) >= max(p.dual_score for p in everything.pairs[len(half.pairs):])
    assert half.counts["rows_with_survivor"] == survivors


def test_the_edit_ratio_filter_drops_exactly_the_candidates_below_the_threshold(marian, sentences, everything):
    to_model, from_model = marian
    pivots = [texts[0] for texts in from_model.generate(sentences, num_beams=PIVOT_BEAMS, num_return=1).texts]
    generated = to_model.generate(pivots, num_beams=K, num_return=K).texts
    # the edit ratios of the candidates that reach the edit-ratio filter (not copies, repeats, blanks)
    ratios = [c.edit_ratio for s, cs in zip(sentences, generated, strict=True) for c in filter_candidates(s, cs, min_edit_ratio=0)[0]]
    threshold = sorted(ratios)[len(ratios) // 2]  # the median: about half the candidates fall below
    result = build_parabank(sentences, to_language_model=to_model, from_language_model=from_model, k=K, min_edit_ratio=threshold)
    assert result.counts["edit_ratio"] == sum(r < threshold for r in ratios) > 0
    assert all(p.edit_ratio >= threshold for p in result.pairs)
    nothing = build_parabank(sentences, to_language_model=to_model, from_language_model=from_model, k=K, min_edit_ratio=10)
    assert nothing.pairs == [] and nothing.counts["rows_with_survivor"] == 0
    assert nothing.counts["edit_ratio"] == K * 15 - sum(nothing.counts[key] for key in ("blank", "copies", "duplicates"))


def test_parallel_mode_with_the_same_translations_gives_the_same_pairs(marian, sentences, everything):
    to_model, from_model = marian
    translations = [texts[0] for texts in from_model.generate(sentences, num_beams=PIVOT_BEAMS, num_return=1).texts]
    parallel = build_parabank(sentences, translations, to_language_model=to_model, from_language_model=from_model, k=K, top_fraction=1.0)
    assert parallel.pairs == everything.pairs
    assert parallel.counts == everything.counts


def test_empty_sentences_are_skipped_and_counted(marian, sentences):
    to_model, from_model = marian
    result = build_parabank(["", sentences[0], "   "], to_language_model=to_model, from_language_model=from_model, k=2, top_fraction=1.0)
    assert result.counts["empty"] == 2 and result.counts["candidates"] == 2
    assert {p.row for p in result.pairs} <= {1}


def test_a_script_filter_on_english_sentences_skips_them_all_before_translating(marian, sentences):
    to_model, from_model = marian
    result = build_parabank(sentences, to_language_model=to_model, from_language_model=from_model, k=2, wrong_script="Latin")
    assert result.counts["source_wrong_script"] == 15 and result.counts["candidates"] == 0 and result.pairs == []
    # the same sentences are fine when the wrong script is Han
    kept = build_parabank(sentences[:3], to_language_model=to_model, from_language_model=from_model, k=2, wrong_script="Han")
    assert kept.counts["source_wrong_script"] == 0 and kept.counts["candidates"] == 6
    assert all(p.wrong_script_share == script_share(p.paraphrase, "Han") == 0.0 for p in kept.pairs)


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"k": 0}, InvalidParameterError, "k must be an integer >= 1"),
        ({"top_fraction": 0}, InvalidParameterError, r"top_fraction must be in \(0, 1\]"),
        ({"top_fraction": 1.5}, InvalidParameterError, r"top_fraction must be in \(0, 1\]"),
        ({"max_wrong_script_share": 2}, InvalidParameterError, r"max_wrong_script_share must be in \[0, 1\]"),
        ({"min_edit_ratio": -1}, InvalidParameterError, "min_edit_ratio must be a number >= 0"),
        ({"wrong_script": "Klingon"}, InvalidParameterError, "unknown script 'Klingon'; known scripts: Latin, Han"),
        ({"translations": ["one", "two"]}, InputError, "one text per sentence: 2 translations for 1 sentences"),
        ({"sentences": "I lost my card"}, InputError, "got a single string"),
        ({"sentences": ["ok", 3]}, InputError, r"sentences\[1\] must be a string"),
    ],
)
def test_bad_input_gets_a_clear_error(options, error, message):
    to_zh, to_en = chinese_models()
    arguments = {"sentences": ["我的卡丢了"], "to_language_model": to_zh, "from_language_model": to_en, **options}
    with pytest.raises(error, match=message):
        build_parabank(**arguments)
    assert to_zh.calls == []  # checked before any translation


# -- bergamot, for real ------------------------------------------------------------------


@pytest.fixture(scope="module")
def bergamot_pairs(banking77_sentences):
    from augkit_backtranslation.bergamot import BergamotEngine

    engine = BergamotEngine(threads=2)
    texts = list(dict.fromkeys(banking77_sentences))[:10]
    result = build_parabank(
        texts, to_language_model=BergamotDirection("pt-en", engine), from_language_model=BergamotDirection("en-pt", engine),
    )
    return texts, result


def test_bergamot_builds_unscored_english_pairs_through_portuguese(bergamot_pairs):
    texts, result = bergamot_pairs
    assert not result.scored
    assert result.counts["rows"] == 10 and result.counts["candidates"] == 10  # one translation per sentence
    assert len(result.pairs) == result.counts["rows_with_survivor"] >= 3  # no top-fraction cut
    assert [p.row for p in result.pairs] == sorted(p.row for p in result.pairs)  # input order
    for pair in result.pairs:
        assert pair.source == texts[pair.row]
        assert pair.paraphrase.casefold() != pair.source.casefold()
        assert edit_distance_ratio(pair.paraphrase, pair.source) == pair.edit_ratio >= 0.12
        assert pair.dual_score is None and pair.forward_logprob is None
        assert set(pair.translation.lower().split()) & {"o", "meu", "minha", "de", "cartão", "não", "como", "eu"}
    dropped = sum(result.counts[key] for key in ("blank", "copies", "duplicates", "edit_ratio"))
    assert dropped + len(result.pairs) == 10
    assert "no top-fraction cut" in result.summary()
