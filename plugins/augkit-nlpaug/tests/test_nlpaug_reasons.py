"""A row an nlpaug method left without output says why (issue 35): nlpaug returned the text
unchanged (naming what decides it: min_char and its value, one sentence to move) or returned
no text. On CLINC150 and BANKING77 validation rows whose words are all shorter than four
letters, and BANKING77 validation questions of one sentence."""

from __future__ import annotations

import pytest

import augkit
from augkit.pipeline.run import NOTHING_GENERATED


@pytest.fixture(scope="module")
def short_words(shared_data) -> list[str]:
    """Real rows whose every word has fewer than four letters: "i owe you one", "hey how old are
    you", "fix my top up"."""
    clinc = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()
    banking = (shared_data / "banking77" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()
    return [clinc[1309], clinc[2811], banking[1331]]


@pytest.fixture(scope="module")
def one_sentence(shared_data) -> list[str]:
    banking = (shared_data / "banking77" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()
    return banking[1216:1226]  # "what is the price for an additional card?", ...


@pytest.mark.parametrize("method, nlpaug_class, lowest", [
    ("nlpaug.keyboard", "KeyboardAug", 2), ("nlpaug.random_char", "RandomCharAug", 2), ("nlpaug.split", "SplitAug", 3)])
def test_words_too_short_for_min_char_are_named_with_its_value(method, nlpaug_class, lowest, short_words):
    _, report = augkit.augment_with_report(short_words, method, n=2, seed=0)
    assert report.without_augmentation == {
        f"{method}: nlpaug's {nlpaug_class} returned the text unchanged (up to spacing): it found nothing it could change"
        "; words shorter than min_char=4 are never changed (set min_char= lower for short words)": 3}
    out, lowered = augkit.augment_with_report(short_words, method, n=2, seed=0, min_char=lowest, strict=True)
    assert lowered.rows_augmented == 3 and all(out)


def test_split_refuses_a_min_char_nlpaug_cannot_run_with(short_words):
    """nlpaug's SplitAug draws the split point with NumPy's randint(1, len(word) - 1), which
    raised "low >= high" on "fix my top up" with min_char=2: refused when the method is built."""
    with pytest.raises(augkit.InvalidParameterError, match=r"nlpaug.split: min_char must be at least 3, got 2: .*two-letter"):
        augkit.augment(short_words, "nlpaug.split", n=2, seed=0, min_char=2)


def test_a_text_of_one_sentence_has_none_to_move(one_sentence):
    _, report = augkit.augment_with_report(one_sentence, "nlpaug.random_sentence", n=1, seed=0)
    assert report.without_augmentation == {
        "nlpaug.random_sentence: nlpaug's RandomSentAug returned the text unchanged (up to spacing): a text of one "
        "sentence has no sentence to move": len(one_sentence)}


def test_every_offline_method_says_why_a_row_got_nothing(short_words, one_sentence, wordnet_for_nltk):
    texts = short_words + one_sentence
    for method in ("nlpaug.keyboard", "nlpaug.ocr", "nlpaug.random_char", "nlpaug.spelling", "nlpaug.synonym",
                   "nlpaug.antonym", "nlpaug.random_word", "nlpaug.split", "nlpaug.random_sentence"):
        out, report = augkit.augment_with_report(texts, method, n=2, seed=0)
        reasons = report.without_augmentation
        assert sum(reasons.values()) == len(texts) - report.rows_augmented == sum(not row for row in out), method
        assert NOTHING_GENERATED not in reasons, method
        assert all(reason.startswith(f"{method}: nlpaug's ") for reason in reasons), reasons
