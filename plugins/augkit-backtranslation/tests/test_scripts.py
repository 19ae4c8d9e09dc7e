"""script_share: the share of a text's letters written in a given script."""

from __future__ import annotations

import pytest
from augkit_backtranslation.scripts import SCRIPTS, script_share


@pytest.mark.parametrize(
    "text, script, expected",
    [
        # 我的银行卡丢了 is 7 ideographs; punctuation is not a letter.
        ("我的银行卡丢了。", "Han", 1.0),
        ("我的银行卡丢了。", "Latin", 0.0),
        ("I lost my card.", "Latin", 1.0),
        # 4 Latin letters (A, T, M, s) and 8 ideographs (我在取了元怎么办); digits and spaces do not count.
        ("我在ATM取了200元s 怎么办", "Latin", 4 / 12),
        ("我在ATM取了200元s 怎么办", "CJK", 8 / 12),
        ("我在ATM取了200元s 怎么办", "han", 8 / 12),
        # Fullwidth Latin letters are Latin: ＡＴＭ + 机.
        ("ＡＴＭ机", "Latin", 3 / 4),
        # 4 Hangul syllables, 3 Latin letters.
        ("카드 분실 app", "Hangul", 4 / 7),
        ("Моя карта не работает", "Cyrillic", 1.0),
        ("Café crème", "Latin", 1.0),
        ("λόγος and logos", "Greek", 5 / 13),  # λόγος: 5 Greek letters; "and", "logos": 8 Latin
        ("बैंक", "Devanagari", 1.0),  # the vowel sign ै is a mark, not a letter: 3 letters, all Devanagari
        ("", "Latin", 0.0),
        ("123 !? 😀", "Latin", 0.0),
    ],
)
def test_script_share_of_real_strings(text, script, expected):
    assert script_share(text, script) == pytest.approx(expected)


def test_mt_parabank_filter_drops_mostly_english_chinese_sentences():
    # The paper drops a pair when English letters exceed 60% of a Chinese sentence's letters.
    kept, dropped = "请问我的转账为什么还没到账", "请check一下my transfer status"
    assert script_share(kept, "Latin") == 0.0
    # check, my, transfer, status: 21 Latin letters; 请, 一, 下: 3 ideographs.
    assert script_share(dropped, "Latin") == pytest.approx(21 / 24)
    assert script_share(dropped, "Latin") > 0.6


def test_unknown_script_lists_the_known_ones():
    with pytest.raises(ValueError) as caught:
        script_share("hello", "Klingon")
    message = str(caught.value)
    assert message.startswith("unknown script 'Klingon'; known scripts: ")
    assert all(name in message for name in SCRIPTS)
