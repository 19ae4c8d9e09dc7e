"""Which writing system a text is written in, letter by letter: the language filter of
machine-translated paraphrase corpora.

The MT-parabank recipe drops a sentence pair when a sentence is largely in the wrong script:
"sentence pairs will be dropped if the proportion [of English characters in Chinese
sentences] is larger than 60%". :func:`script_share` measures that proportion.
"""

from __future__ import annotations

import functools
import unicodedata

#: Script name (as users write it) -> first words of the Unicode character names of its
#: letters. "Han" and "CJK" are the same script: ideographs are named ``CJK UNIFIED
#: IDEOGRAPH-...``, and the iteration mark 々 ``IDEOGRAPHIC ITERATION MARK``.
SCRIPTS: dict[str, frozenset[str]] = {
    "Latin": frozenset({"LATIN"}),
    "Han": frozenset({"CJK", "IDEOGRAPHIC"}),
    "CJK": frozenset({"CJK", "IDEOGRAPHIC"}),
    "Hiragana": frozenset({"HIRAGANA"}),
    "Katakana": frozenset({"KATAKANA"}),
    "Hangul": frozenset({"HANGUL"}),
    "Cyrillic": frozenset({"CYRILLIC"}),
    "Greek": frozenset({"GREEK"}),
    "Arabic": frozenset({"ARABIC"}),
    "Hebrew": frozenset({"HEBREW"}),
    "Devanagari": frozenset({"DEVANAGARI"}),
    "Bengali": frozenset({"BENGALI"}),
    "Tamil": frozenset({"TAMIL"}),
    "Thai": frozenset({"THAI"}),
    "Armenian": frozenset({"ARMENIAN"}),
    "Georgian": frozenset({"GEORGIAN"}),
}
_BY_LOWER_NAME = {name.lower(): words for name, words in SCRIPTS.items()}
#: Width variants are named after their script one word later: FULLWIDTH LATIN CAPITAL LETTER A.
_WIDTH_PREFIXES = ("FULLWIDTH ", "HALFWIDTH ")


def script_share(text: str, script: str) -> float:
    """The share of the letters of ``text`` (Unicode categories L*) that belong to ``script``,
    from 0.0 to 1.0; 0.0 when ``text`` has no letters. Digits, punctuation, spaces and marks
    do not count.

    >>> script_share("我的卡丢了 card", "Latin")   # 4 Latin letters among 9 letters
    0.4444444444444444
    >>> script_share("我的卡丢了 card", "Han")
    0.5555555555555556

    ``script`` is one of :data:`SCRIPTS` (case-insensitive); an unknown name raises
    ``ValueError`` listing them.
    """
    words = _BY_LOWER_NAME.get(script.lower()) if isinstance(script, str) else None
    if words is None:
        raise ValueError(f"unknown script {script!r}; known scripts: {', '.join(SCRIPTS)}")
    letters = in_script = 0
    for char in text:
        if unicodedata.category(char).startswith("L"):
            letters += 1
            in_script += _script_word(char) in words
    return in_script / letters if letters else 0.0


@functools.lru_cache(maxsize=65536)
def _script_word(char: str) -> str:
    """The first word of the character's Unicode name, past a width qualifier."""
    name = unicodedata.name(char, "")
    for prefix in _WIDTH_PREFIXES:
        name = name.removeprefix(prefix)
    return name.partition(" ")[0]
