"""POINTER says why a row got nothing, refuses sentences caught in a repetition loop, and takes a
row's protected spans as keywords (issue 35), on CLINC150 validation rows past line 2953 (read
by no other test) with the tiny random insertion model: each span is a keyword of every list
whatever ``keywords``, never replaced by a synonym nor moved past another span, and written as
it is in every output."""

from __future__ import annotations

import random
import re

import pandas as pd
import pytest
from augkit_pointer import POINTER
from augkit_pointer.augmenter import NO_KEYWORDS, REPETITION_REASON
from augkit_pointer.keywords import extract_keywords

import augkit
from augkit.pipeline.run import NOTHING_GENERATED
from augkit.plugin import repetition_loop
from augkit.protection.reading import find_phrases

pytest.importorskip("torch")

#: Names and slot values of the rows below, protected as the caller's phrases.
PROTECT = ["rt 40", "rt 7", "airport", "fred meyer", "western union", "bank of america", "td bank", "auto zone",
           "home depot", "tile", "chainsaw", "tractor store"]


@pytest.fixture(scope="module")
def rows(shared_data) -> list[str]:
    """CLINC150 validation lines 2954-2994: traffic, checks and declined cards, several naming a shop."""
    lines = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()
    return lines[2953:2994]


def _protected_words(text: str) -> list[str]:
    found = [(match.start(), phrase) for phrase in PROTECT for match in re.finditer(rf"(?<!\w){phrase}(?!\w)", text)]
    return [phrase for _, phrase in sorted(found)]


def test_protected_spans_are_keywords_of_every_list_never_replaced_and_kept_in_order(rows):
    texts = [rows[i] for i in (0, 1, 6, 19, 25, 26, 35, 39, 40)]
    # every keyword replaced by a synonym where one exists, half of them swapped
    method = POINTER(p_syn=1.0, p_shuf=0.5)
    rngs = [random.Random(f"0:{text}") for text in texts]
    protected = [tuple(find_phrases(text, tuple(PROTECT))) for text in texts]
    lists = method.keyword_lists(texts, 6, rngs, protected)
    for text, row_lists in zip(texts, lists, strict=True):
        words = _protected_words(text)
        assert words
        for keywords in row_lists:
            kept = [keyword for keyword in keywords if keyword in words]
            assert kept == words, (text, keywords)  # each span, as written, in the row's order
    assert sum(len(set(map(tuple, row_lists))) > 1 for row_lists in lists) >= 3  # swaps and synonyms did happen
    # one keyword asked: a row's protected spans are its keywords all the same
    one = POINTER(keywords=1).keyword_lists(texts, 1, [random.Random(0) for _ in texts], protected)
    assert [[keyword for keyword in row[0] if keyword != "?"] for row in one] == [_protected_words(text) for text in texts]


def test_every_output_writes_each_protected_span_as_it_is(tiny_insertion_model, rows):
    texts = [rows[i] for i in (0, 1, 6, 19, 25, 26, 35, 39, 40)]
    params = {"insertion_model": str(tiny_insertion_model), "max_stages": 2, "keywords": 1, "p_syn": 1.0, "p_shuf": 0.5,
              "refuse_loops": False}
    _, trace = augkit.augment(pd.DataFrame({"text": texts}), "pointer", n=3, seed=0, trace=True, protect=PROTECT, **params)
    generated = trace[trace["fate"] != "none"]
    assert generated["source"].nunique() == len(texts)
    for entry in generated.itertuples():
        words = _protected_words(texts[entry.source])
        places = [entry.candidate.find(word) for word in words]
        assert all(place >= 0 for place in places) and places == sorted(places), (words, entry.candidate)
    assert not (trace["dropped_by"] == "protected").any()


def test_without_protected_spans_the_keywords_are_drawn_as_before(rows):
    for text in rows[:12]:
        assert extract_keywords(text, random.Random(text), protected=()) == extract_keywords(text, random.Random(text))


def test_every_row_without_a_sentence_says_why_and_loops_are_refused(tiny_insertion_model, rows):
    texts = rows[:12] + ["👍"]  # a reaction with no word and no final mark: no keyword
    params = {"insertion_model": str(tiny_insertion_model), "max_stages": 2}
    out, report = augkit.augment_with_report(texts, "pointer", n=2, seed=0, **params)
    reasons = report.without_augmentation
    assert sum(reasons.values()) == len(texts) - report.rows_augmented
    assert NOTHING_GENERATED not in reasons
    assert reasons[NO_KEYWORDS] == 1
    # the random model says the same words over and over: most sentences it grows are loops
    assert reasons[REPETITION_REASON] >= len(texts) // 2
    assert not any(repetition_loop(text, output) for text, row in zip(texts, out) for output in row)
    kept, kept_report = augkit.augment_with_report(texts, "pointer", n=2, seed=0, refuse_loops=False, **params)
    assert kept_report.without_augmentation == {NO_KEYWORDS: 1}
    refused = [(text, row) for text, row, before in zip(texts, kept, out) if row and not before]
    assert len(refused) == reasons[REPETITION_REASON]
    assert all(repetition_loop(text, output) for text, row in refused for output in row)
