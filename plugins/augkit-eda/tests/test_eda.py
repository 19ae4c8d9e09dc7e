"""EDA end to end: the paper's defaults and rules, and the awkward inputs real data has."""

from __future__ import annotations

import random

import pytest
from augkit_eda.eda import EDA, normalize_like_reference

import augkit


def test_registered_with_the_papers_defaults():
    entry = augkit.get_registry().method("eda")
    assert (entry.plugin.name, entry.plugin.distribution) == ("eda", "augkit")  # built into augkit
    assert {p.name: p.default for p in entry.cls.parameters()} == {
        "alpha_sr": 0.1, "alpha_ri": 0.1, "alpha_rs": 0.1, "p_rd": 0.1, "normalize": False, "stop_words": None,
        "synonyms": "safe", "min_zipf": 3.5, "multiword": False, "proper_nouns": False,
    }


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "😀", "?!", "…"])
def test_texts_without_words_yield_nothing(text):
    assert EDA().augment(text, 4, random.Random(0)) == []


@pytest.mark.parametrize("synonyms, word", [("safe", "buy"), ("wordnet-all", "refund")])
def test_one_word_text(synonyms, word):
    out = EDA(synonyms=synonyms).augment(word, 4, random.Random(0))
    assert out and word not in out
    assert all(o.strip() for o in out)


def test_one_word_text_without_a_safe_synonym_yields_nothing():
    # "refund" has one usual sense, and no other lemma in it; swap and deletion need two words.
    assert EDA().augment("refund", 4, random.Random(0)) == []


def test_words_without_synonyms_are_still_swapped_and_deleted():
    text = "xqzt blorf vrank plimt"
    out = EDA().augment(text, 4, random.Random(0))
    assert out
    for candidate in out:
        assert set(candidate.split()) <= set(text.split())


def test_non_ascii_and_emoji_survive(banking77_sentences):
    text = "Mon café 😀 n'accepte pas ma carte — why? 🙁"
    out = EDA(alpha_sr=0, alpha_ri=0).augment(text, 4, random.Random(1))
    assert out
    for candidate in out:
        assert "😀" in candidate and "🙁" in candidate and "—" in candidate


def test_five_thousand_word_text(banking77_sentences):
    words = " ".join(banking77_sentences).split()
    text = " ".join((words * (5000 // len(words) + 1))[:5000])
    out = EDA().augment(text, 4, random.Random(0))
    assert len(out) == 4
    lengths = sorted(len(o.split()) for o in out)
    assert lengths[0] > 4000 and lengths[-1] < 6500


def test_stop_words_and_numbers_are_never_replaced():
    text = "I want to send 200 dollars to my friend in the US"
    eda = EDA(alpha_sr=1.0, alpha_ri=0, alpha_rs=0, p_rd=0)
    for seed in range(20):
        for candidate in eda.augment(text, 2, random.Random(seed)):
            tokens = candidate.split()
            for keep in ("I", "to", "200", "my", "in", "the"):
                assert keep in tokens


def test_casing_and_punctuation_are_kept_by_default():
    text = "Why was my CARD declined, again?"
    eda = EDA(alpha_sr=0.5, alpha_ri=0, alpha_rs=0, p_rd=0)
    for seed in range(10):
        for candidate in eda.augment(text, 2, random.Random(seed)):
            assert candidate.startswith("Why ") and candidate.endswith(", again?")
            if "CARD" not in candidate:
                replaced = candidate.split()[3].rstrip(",")
                assert replaced.isupper()


def test_normalize_reproduces_the_reference_cleaning():
    assert normalize_like_reference("Why can't I top-up? 😀 Café!") == "why cant i top up caf"
    out = EDA(normalize=True).augment("Why can't I top-up my Card?", 4, random.Random(0))
    assert out and all(o == normalize_like_reference(o) for o in out)


def test_custom_stop_words_as_list_or_comma_string():
    text = "card card card"
    for stop_words in (["card"], "card, atm"):
        eda = EDA(alpha_sr=1.0, alpha_ri=0, alpha_rs=0, p_rd=0, stop_words=stop_words)
        assert eda.augment(text, 3, random.Random(0)) == []


@pytest.mark.parametrize("kwargs, message", [
    ({"alpha_sr": -0.1}, "alpha_sr must be a number in"),
    ({"p_rd": 1.5}, "p_rd must be a number in"),
    ({"alpha_sr": 0, "alpha_ri": 0, "alpha_rs": 0, "p_rd": 0}, "at least one"),
    ({"stop_words": [1, 2]}, "stop_words must be strings"),
])
def test_invalid_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        EDA(**kwargs)


def test_operations_follow_the_reference_plan():
    """n // 4 + 1 planned candidates per operation, in shuffled order, first n distinct kept."""
    calls = []

    class Counting(EDA):
        def _operations(self, word_count):
            return [
                (lambda text, rng, strength, op=op: calls.append(op.__name__) or op(text, rng, strength), strength)
                for op, strength in super()._operations(word_count)
            ]

    text = "please tell me why my card payment was declined at the shop near my office today"
    for seed in range(10):
        calls.clear()
        out = Counting().augment(text, 9, random.Random(seed))
        assert len(out) == 9 and len(calls) >= 9
        first_pass = calls[: 4 * (9 // 4 + 1)]
        assert max(first_pass.count(name) for name in set(first_pass)) <= 9 // 4 + 1
        assert len(set(calls[:9])) >= 3  # the plan is shuffled across operations


def test_full_banking77_split_through_the_public_api(banking77_10shot):
    out = augkit.augment(banking77_10shot, "eda", n=4, seed=0)
    augmented = out[out["augkit_method"].notna()]
    assert len(augmented) >= 0.95 * 4 * len(banking77_10shot)
    assert out.attrs["augkit_report"]["rows_read"] == 770
