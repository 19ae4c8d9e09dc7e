"""Where a masked language model may put a word in a text: the words it may replace
(``action="substitute"``) or the gaps between words where it may insert one
(``action="insert"``), and the text with one mask token there.

A slot is a whole word, never a word piece: the word's characters are replaced by one mask
token, so a word the tokenizer splits into several pieces ("unactivated" -> "una", "##ct",
"##ivated") is still one masked position and gets one whole word back.
"""

from __future__ import annotations

from dataclasses import dataclass

from augkit_eda.substitutes import SubstituteRules
from augkit_eda.synonyms import NOUN_PARTICLES

from augkit.plugin import (
    FREE_WORD,
    RowProtection,
    WordSequence,
    span_of_words,
    split_words,
    splits_a_span,
    word_offsets,
)

#: Glue that ends a sentence: the word after it starts a sentence and may be capitalised
#: for that reason alone.
_SENTENCE_END = frozenset(".!?")


@dataclass(frozen=True, slots=True)
class Slot:
    """One masked position of a text: ``word`` (the word replaced, or None for an insertion)
    at index ``index`` of the text's words (an insertion goes before that word; ``index ==
    len(words)`` is after the last one), and the characters ``start:end`` the mask replaces
    (``start == end`` for an insertion)."""

    index: int
    start: int
    end: int
    word: str | None


def starts_sentence(sequence: WordSequence, index: int) -> bool:
    """Whether the word at ``index`` starts a sentence (the first word, or after . ! ?)."""
    return index == 0 or any(mark in _SENTENCE_END for mark in sequence.glue[index])


def substitution_slots(text: str, rules: SubstituteRules, protected: RowProtection = ()) -> list[Slot]:
    """The words of ``text`` the model may replace: words of letters that the rules let
    change (no stop word, auxiliary, negation or number word), outside every protected span,
    not before "up" ("top up": a phrasal verb, as EDA's safe synonyms leave it), and not
    capitalised inside a sentence ("Google", "Apple Pay": names have no substitutes)."""
    sequence = split_words(text)
    owners = span_of_words(sequence, protected) if protected else None
    slots = []
    for index, ((start, end), word) in enumerate(zip(word_offsets(sequence), sequence.words, strict=True)):
        if owners is not None and owners[index] != FREE_WORD:
            continue
        if not rules.replaceable(word):
            continue
        if index + 1 < len(sequence.words) and sequence.words[index + 1].lower() in NOUN_PARTICLES:
            continue  # a phrasal verb ("top up", "sign up"): its meaning is not the word's, as EDA's safe rule says
        if not word.islower() and not (starts_sentence(sequence, index) and word[1:].islower()):
            continue  # a name, an acronym or a word in capitals mid-sentence
        slots.append(Slot(index, start, end, word))
    return slots


def insertion_slots(text: str, protected: RowProtection = ()) -> list[Slot]:
    """The gaps of ``text`` where the model may insert a word: before every word but the
    first (a new first word would have to take the sentence's capital), and after the last,
    never inside a protected span."""
    sequence = split_words(text)
    if not sequence.words:
        return []
    owners = span_of_words(sequence, protected) if protected else None
    offsets = word_offsets(sequence)
    slots = [
        Slot(index, offsets[index][0], offsets[index][0], None)
        for index in range(1, len(sequence.words))
        if owners is None or not splits_a_span(owners, index)
    ]
    end = offsets[-1][1]
    slots.append(Slot(len(sequence.words), end, end, None))
    return slots


def masked(text: str, slot: Slot, mask_token: str) -> str:
    """``text`` with the slot's word replaced by ``mask_token``, or with ``mask_token`` and a
    space inserted at the slot (a space before it after the last word).

    >>> masked("I lost my card", Slot(3, 10, 14, "card"), "[MASK]")
    'I lost my [MASK]'
    >>> masked("I lost my card", Slot(1, 2, 2, None), "[MASK]")
    'I [MASK] lost my card'
    >>> masked("I lost my card?", Slot(4, 14, 14, None), "[MASK]")
    'I lost my card [MASK]?'
    """
    if slot.word is not None:
        return text[: slot.start] + mask_token + text[slot.end :]
    before, after = text[: slot.start], text[slot.start :]
    if after[:1].isalnum() or after[:1] in "'’_":  # before a word: "I [MASK] lost"
        return f"{before}{mask_token} {after}"
    return f"{before} {mask_token}{after}"  # after the last word: "card [MASK]?"
