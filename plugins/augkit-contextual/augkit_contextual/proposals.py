"""What a masked LM proposes for a slot, as whole words that pass the rules, and the draw of
one of them with ``top_k``, ``top_p`` and ``temperature``.

The model's fills are vocabulary tokens. Only a token that begins a word can be a whole
word in a masked position: WordPiece vocabularies (BERT) mark the pieces that continue a
word ("##ing"), byte-level BPE (RoBERTa, GPT-2) and SentencePiece mark the ones that begin
a word ("Ġcard", "▁card"). A continuing piece would glue itself to the word before, so it
is refused as "not a word", as nlpaug and TextAttack refuse it.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from augkit_eda.substitutes import NOT_A_WORD, SAME_WORD, SubstituteRules

from augkit.plugin import Fill, InvalidParameterError
from augkit_contextual.slots import Slot

#: Markers of a token that begins a word, in byte-level BPE (RoBERTa) and SentencePiece.
WORD_START_MARKERS = ("Ġ", "▁")
#: The marker of a token that continues a word, in WordPiece (BERT).
CONTINUATION_MARKER = "##"
#: A proposal replacing a word in lower case may not be capitalised: mid-sentence, "card"
#: -> "Visa" is a name in place of a thing.
PROPER_NOUN = "capitalised (a name)"
#: A proposal rarer than ``min_zipf`` (wordfreq's Zipf scale): a token that begins a word is
#: not always a word ("Ġwro" of "wrong", "Ġpur" of "purchase").
RARE = "rare or not a word"
#: Default floor: 3 is once per million words. It keeps "misplaced" (3.4) and "reimburse"
#: (3.1), and refuses the word beginnings a vocabulary holds ("pur" 2.9, "wro" 1.8).
DEFAULT_MIN_ZIPF = 3.0


@dataclass(frozen=True, slots=True)
class Proposal:
    """A whole word the model proposes for a slot, with its log-probability there."""

    word: str
    logprob: float


class ProposalReader:
    """Turns a model's fills for a slot into the whole words the rules accept, likeliest
    first; knows which tokens begin a word from the tokenizer's vocabulary."""

    def __init__(self, tokenizer: Any, rules: SubstituteRules, min_zipf: float = DEFAULT_MIN_ZIPF):
        from wordfreq import zipf_frequency

        self.tokenizer = tokenizer
        self.rules = rules
        self.min_zipf = min_zipf
        self._zipf = zipf_frequency
        vocabulary = tokenizer.get_vocab()
        self._wordpiece = any(token.startswith(CONTINUATION_MARKER) for token in vocabulary)

    def accepted(self, fills: Sequence[Fill], slot: Slot, neighbours: tuple[str, ...], top_k: int,
                 at_text_start: bool, refused: Counter | None = None) -> list[Proposal]:
        """The first ``top_k`` fills that are whole words the rules accept for ``slot``,
        each once, likeliest first. No proposal may repeat a form of a ``neighbours`` word
        (the words beside the slot: "my card card"). ``refused`` counts the reasons of the
        fills refused on the way."""
        found: dict[str, Proposal] = {}
        for fill in fills:
            word = self.word_of(fill.token, at_text_start)
            reason = NOT_A_WORD if word is None else self.refusal(word, slot, neighbours)
            if reason is None and word.lower() not in found:
                found[word.lower()] = Proposal(word, fill.logprob)
                if len(found) == top_k:
                    break
            elif reason is not None and refused is not None:
                refused[reason] += 1
        return list(found.values())

    def refusal(self, word: str, slot: Slot, neighbours: tuple[str, ...] = ()) -> str | None:
        """Why ``word`` may not fill ``slot`` (the rules of :mod:`augkit_eda.substitutes`, no
        capitalised word for a lower-case one, no word rarer than ``min_zipf``, no form of a
        neighbour), or None."""
        if word[:1].isupper() and (slot.word is None or slot.word.islower()):
            return PROPER_NOUN
        reason = self.rules.refusal(slot.word, word)
        if reason is None and self._zipf(word, "en") < self.min_zipf:
            return RARE
        if reason is None and any(self.rules.same_word(neighbour.lower(), word.lower()) for neighbour in neighbours):
            return SAME_WORD
        return reason

    def word_of(self, token: str, at_text_start: bool) -> str | None:
        """The word a token stands for in a masked position, or None for a token that
        continues a word (which would glue itself to the word before)."""
        if self._wordpiece:
            if token.startswith(CONTINUATION_MARKER):
                return None
        elif not token.startswith(WORD_START_MARKERS) and not at_text_start:
            return None
        word = self.tokenizer.convert_tokens_to_string([token]).strip()
        return word or None


def check_sampling(top_k: Any, top_p: Any, temperature: Any) -> None:
    """Raise :class:`InvalidParameterError` naming the first bad sampling parameter."""
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise InvalidParameterError(f"contextual: top_k must be an integer >= 1, got {top_k!r}")
    if isinstance(top_p, bool) or not isinstance(top_p, (int, float)) or not 0 < top_p <= 1:
        raise InvalidParameterError(f"contextual: top_p must be a number in (0, 1], got {top_p!r}")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
        raise InvalidParameterError(f"contextual: temperature must be a number > 0, got {temperature!r}")


def draw(proposals: Sequence[Proposal], rng: random.Random, top_p: float, temperature: float) -> Proposal:
    """One of ``proposals`` (likeliest first), drawn by their probabilities at
    ``temperature`` among the smallest likeliest set holding ``top_p`` of the mass."""
    scaled = [proposal.logprob / temperature for proposal in proposals]
    peak = max(scaled)
    weights = [math.exp(value - peak) for value in scaled]
    total = sum(weights)
    kept, mass = 0, 0.0
    for weight in weights:
        kept += 1
        mass += weight / total
        if mass >= top_p:
            break
    point = rng.random() * sum(weights[:kept])
    for proposal, weight in zip(proposals[:kept], weights[:kept], strict=True):
        point -= weight
        if point < 0:
            return proposal
    return proposals[kept - 1]
