"""ParaMac says why a row got nothing, refuses infillings caught in a repetition loop, and takes
a row's protected spans as keywords (issue 35), on CLINC150 validation rows past line 2953
(read by no other test) with the tiny random models: every output holds each protected span
as it is written, in the order of the row, and no output is dropped for losing one."""

from __future__ import annotations

import random
import re

import pandas as pd
import pytest
from augkit_paramac import ParaMac
from augkit_paramac.augmenter import REPETITION_REASON
from augkit_paramac.keywords import extract_keywords, with_protected_spans
from augkit_paramac.permutation import keyword_orders
from augkit_paramac.plan import NO_KEYWORDS

import augkit
from augkit.pipeline.run import NOTHING_GENERATED
from augkit.plugin import ProtectedSpan, repetition_loop

#: Names and slot values of the rows below, protected as the caller's phrases.
PROTECT = ["rt 40", "rt 7", "airport", "fred meyer", "western union", "bank of america", "td bank", "auto zone",
           "home depot", "tile"]


@pytest.fixture(scope="module")
def valid_lines(shared_data) -> list[str]:
    return (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def rows(valid_lines) -> list[str]:
    """Lines 2954-2994: traffic, checks and declined cards, several naming a shop or a road."""
    return valid_lines[2953:2994]


def _protected_words(text: str) -> list[str]:
    """The PROTECT phrases of ``text``, in the order it says them."""
    found = [(match.start(), phrase) for phrase in PROTECT for match in re.finditer(rf"(?<!\w){phrase}(?!\w)", text)]
    return [phrase for _, phrase in sorted(found)]


def test_a_protected_span_is_a_keyword_of_every_output_written_as_it_is_and_kept_in_order(paramac_params, rows):
    texts = [rows[i] for i in (0, 1, 6, 19, 25, 26, 35, 39)]
    assert all(_protected_words(text) for text in texts)
    # half the keywords dropped and nouns substituted too: without protection most spans go
    params = {**paramac_params, "drop_rate": 0.5, "substitute_nouns": True, "refuse_loops": False}
    _, trace = augkit.augment(pd.DataFrame({"text": texts}), "paramac", n=3, seed=0, trace=True, protect=PROTECT, **params)
    generated = trace[trace["fate"] != "none"]
    assert generated["source"].nunique() >= len(texts) - 1 and 1 in set(generated["source"])  # "rt 7" ... "airport"
    for entry in generated.itertuples():
        words = _protected_words(texts[entry.source])
        places = [entry.candidate.find(word) for word in words]
        assert all(place >= 0 for place in places), (texts[entry.source], entry.candidate)
        assert places == sorted(places), (words, entry.candidate)  # "home depot" still before "tile"
    assert not (trace["dropped_by"] == "protected").any()


def test_protected_keywords_keep_their_order_while_the_others_move():
    assert keyword_orders(4, 30, random.Random(3), in_order=(1, 3)) == [
        order for order in keyword_orders(4, 30, random.Random(3), in_order=(1, 3)) if order.index(1) < order.index(3)]
    moved = keyword_orders(4, 30, random.Random(3), in_order=(1, 3))
    assert len(moved) == 11  # 4! / 2 orders keep 1 before 3, less the sentence's own
    assert keyword_orders(9, 40, random.Random(3), in_order=(0, 4, 8))
    assert all(order.index(0) < order.index(4) < order.index(8)
               for order in keyword_orders(9, 40, random.Random(3), in_order=(0, 4, 8)))
    # fewer than two protected keywords: the same draws as without
    assert keyword_orders(5, 6, random.Random(1), in_order=(2,)) == keyword_orders(5, 6, random.Random(1))


def test_a_keyword_overlapping_a_span_keeps_its_pieces_outside_it(rows):
    text = rows[25]  # "i need to know how to order checks for my bank of america account"
    start = text.index("america")
    keywords = with_protected_spans(text, extract_keywords(text), (ProtectedSpan(start, start + 7, "america", "phrase"),))
    assert [(k.text, k.source) for k in keywords] == [
        ("need", "rake"), ("know", "rake"), ("order checks", "rake"), ("bank", "rake"), ("america", "protected"),
        ("account", "rake")]


def test_every_row_without_an_infilling_says_why(paramac_params, rows, valid_lines):
    texts = rows + [valid_lines[870], valid_lines[1481], valid_lines[2373]]  # "what", "what do i have to do", "how've you been"
    out, report = augkit.augment_with_report(texts, "paramac", n=2, seed=0, **paramac_params)
    reasons = report.without_augmentation
    assert sum(reasons.values()) == len(texts) - report.rows_augmented == sum(not row for row in out)
    assert NOTHING_GENERATED not in reasons
    assert reasons[NO_KEYWORDS] == 3
    # the random infiller says a word over and over for some rows: refused, and said so
    assert reasons[REPETITION_REASON] >= 1
    assert all(f"{count} {reason}" in report.summary() for reason, count in reasons.items())
    kept, kept_report = augkit.augment_with_report(texts, "paramac", n=2, seed=0, refuse_loops=False, **paramac_params)
    assert REPETITION_REASON not in kept_report.without_augmentation
    assert kept_report.rows_augmented > report.rows_augmented
    looping = [(text, loose) for text, refused, loose in zip(texts, out, kept) if loose and not refused]
    assert 1 <= len(looping) <= reasons[REPETITION_REASON]  # (the length step may drop a short loop)
    assert all(repetition_loop(text, output) for text, outputs in looping for output in outputs)


def test_refuse_loops_must_be_a_boolean():
    with pytest.raises(augkit.InvalidParameterError, match="refuse_loops"):
        ParaMac(refuse_loops="sometimes")
