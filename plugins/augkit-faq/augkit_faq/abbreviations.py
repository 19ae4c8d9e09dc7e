"""Abbreviation handling, the thesis' pre- and post-processing (Ng 2021, sections 3.6 and 3.8).

FAQ questions carry domain terms as "Expansion (ABBR)", e.g. "Approved Institution (AI)".
A paraphraser fed the long form tends to replace words of it with synonyms ("Child Growth
Account"); fed the abbreviation alone it copies the abbreviation. So each question is
shortened before generation (every "Expansion (ABBR)" becomes "ABBR") and each paraphrase
gets the long form back after (every "ABBR" becomes "Expansion (ABBR)" again). Questions that
only use the abbreviation keep it as it is.

An expansion is the shortest run of words right before the parenthesis, at most
``min(len(ABBR) + 5, 2 * len(ABBR))`` words, whose initials spell the abbreviation (small words
such as "of" and "and" aside); failing that, the Schwartz & Hearst (2003) rule: the shortest
such run in which the letters of the abbreviation appear in order, its first letter starting a
word ("Centers for Disease Control and Prevention (CDC)").

>>> shorten("Where can I use the Child Development Account (CDA) funds?")
Shortened(text='Where can I use the CDA funds?', terms={'CDA': 'Child Development Account'})
>>> restore("How do I spend CDA money?", {"CDA": "Child Development Account"})
'How do I spend Child Development Account (CDA) money?'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: "(ABBR)": 2-10 characters, starting with a letter, with at least one capital letter.
_PARENTHESIS = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9&./'-]{1,9})\s*\)")
_WORD = re.compile(r"[^\s]+")
#: Words an expansion may contain without a letter in the abbreviation.
_SMALL_WORDS = frozenset({"of", "and", "the", "for", "in", "on", "to", "a", "an", "&"})
#: Characters that end the stretch of text an expansion may come from.
_BOUNDARY = re.compile(r"""[.,;:!?()\[\]"“”]|'\s|\s'|^'""")


@dataclass(frozen=True)
class Shortened:
    """A question with its "Expansion (ABBR)" terms shortened to "ABBR"; ``terms`` maps each
    abbreviation to its expansion, in order of first appearance."""

    text: str
    terms: dict[str, str] = field(default_factory=dict)


def find_terms(text: str) -> dict[str, str]:
    """Every "Expansion (ABBR)" of ``text`` as ``{ABBR: Expansion}``; the first expansion
    found wins when an abbreviation appears with two."""
    terms: dict[str, str] = {}
    for match in _PARENTHESIS.finditer(text):
        abbreviation = match.group(1)
        if not any(char.isupper() for char in abbreviation) or abbreviation in terms:
            continue
        expansion = _expansion_before(text[: match.start()], abbreviation)
        if expansion is not None:
            terms[abbreviation] = expansion
    return terms


def shorten(text: str) -> Shortened:
    """``text`` with each "Expansion (ABBR)" replaced by "ABBR", and the terms found."""
    terms = find_terms(text)
    short = text
    for abbreviation, expansion in terms.items():
        short = _long_form_pattern(abbreviation, expansion).sub(abbreviation, short)
    return Shortened(re.sub(r"[ \t]{2,}", " ", short), terms)


def restore(text: str, terms: dict[str, str]) -> str:
    """``text`` with each standalone "ABBR" of ``terms`` written "Expansion (ABBR)", as the
    source question wrote it. An abbreviation already written in its long form (in any
    letter case) is left alone, so restoring twice changes nothing."""
    for abbreviation, expansion in terms.items():
        if _long_form_pattern(abbreviation, expansion).search(text):
            continue
        standalone = re.compile(rf"(?<![\w(]){re.escape(abbreviation)}(?![\w)])")
        text = standalone.sub(lambda _: f"{expansion} ({abbreviation})", text)
    return text


def kept_terms(text: str, terms: dict[str, str]) -> list[str]:
    """The abbreviations of ``terms`` that ``text`` still contains."""
    return [abbreviation for abbreviation in terms if re.search(rf"(?<!\w){re.escape(abbreviation)}(?!\w)", text)]


def _long_form_pattern(abbreviation: str, expansion: str) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(word) for word in expansion.split())
    return re.compile(rf"{words}\s*\(\s*{re.escape(abbreviation)}\s*\)", re.IGNORECASE)


def _expansion_before(prefix: str, abbreviation: str) -> str | None:
    """The Schwartz & Hearst expansion of ``abbreviation`` at the end of ``prefix``."""
    boundaries = list(_BOUNDARY.finditer(prefix))
    clause = prefix[boundaries[-1].end():] if boundaries else prefix
    words = _WORD.findall(clause)
    letters = [char.lower() for char in abbreviation if char.isalnum()]
    limit = min(len(letters) + 5, 2 * len(letters))
    window = words[-limit:]
    if not window or not letters:
        return None
    by_initials = _spelled_by_initials(window, letters)
    if by_initials is not None:
        return by_initials
    candidate = " ".join(window)
    start = _match_letters_backwards(candidate, letters)
    if start is None:
        return None
    expansion = candidate[start:].strip()
    if len(expansion.split()) < 2 and len(expansion) <= len(abbreviation):
        return None  # "ABC (ABC)" or a single short word: not a definition
    return expansion


def _spelled_by_initials(words: list[str], letters: list[str]) -> str | None:
    """The shortest run of last words whose initials (small words aside) are ``letters``."""
    for count in range(1, len(words) + 1):
        run = words[-count:]
        if run[0].lower() in _SMALL_WORDS:
            continue
        initials = [word[0].lower() for word in run if word.lower() not in _SMALL_WORDS]
        if initials == letters:
            return " ".join(run)
    return None


def _match_letters_backwards(text: str, letters: list[str]) -> int | None:
    """Where the expansion starts in ``text``: scanning from the end, each letter of the
    abbreviation (last first) must be found, the first one at the start of a word."""
    position = len(text) - 1
    for index in range(len(letters) - 1, -1, -1):
        letter = letters[index]
        while position >= 0:
            char = text[position].lower()
            at_word_start = position == 0 or not text[position - 1].isalnum()
            if char == letter and (index > 0 or at_word_start):
                break
            position -= 1
        if position < 0:
            return None
        if index > 0:
            position -= 1
    # the expansion starts at the beginning of the word holding the first letter
    while position > 0 and not text[position - 1].isspace():
        position -= 1
    return position
