"""ParaMac's keyword steps for a batch of sentences (section 3.1): extraction, filtering,
substitution and reordering, each batched across the sentences through the model runtime.

What comes out, per sentence, is a :class:`RowPlan`: its keywords as they will be written
and the keyword orders T5 will infill, with T5's input for each order.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from augkit.plugin import BatchContext, match_case
from augkit_paramac.infilling import (
    SENTINEL,
    context_after,
    context_before,
    model_input,
)
from augkit_paramac.keywords import (
    PROTECTED,
    STOP_WORDS,
    Keyword,
    extract_keywords,
    with_protected_spans,
)
from augkit_paramac.permutation import keyword_orders
from augkit_paramac.substitution import SubstituteCheck, WordSlot, substitution_slots

#: How a keyword's informativeness is scored (see :class:`augkit_paramac.ParaMac`).
KEYWORD_SCORINGS = ("leave_one_out", "alone")
#: T5 has 100 sentinels; a template needs one more than its keywords.
T5_SENTINELS = 100
#: Why a row has no keyword order to infill, in the words of the run's summary.
NO_KEYWORDS = "paramac: the text has no keywords to infill around (no RAKE phrase, noun, verb or negation)"
TOO_MANY_PROTECTED = ("paramac: the row has more protected spans than a T5 template holds keywords (one fewer than "
                      "the generator's sentinels), so they cannot all be kept")


@dataclass
class RowPlan:
    """One sentence's keyword plan: ``keywords`` (kept, substituted, in sentence order),
    what was dropped and substituted, the ``orders`` to infill (positions into ``keywords``)
    and T5's input for each. ``protected``: the positions of the keywords that are protected
    spans (never dropped, substituted or reordered among themselves). ``reason``: why the
    plan has no order to infill, when it has none."""

    text: str
    keywords: list[str]
    dropped: list[str] = field(default_factory=list)
    substitutions: dict[str, str] = field(default_factory=dict)
    orders: list[tuple[int, ...]] = field(default_factory=list)
    model_inputs: list[str] = field(default_factory=list)
    protected: tuple[int, ...] = ()
    reason: str = ""

    def ordered_keywords(self, order: int) -> list[str]:
        """The keywords in the ``order``-th order."""
        return [self.keywords[position] for position in self.orders[order]]

    def ordered_protected(self, order: int) -> list[int]:
        """Where the protected keywords stand in the ``order``-th order."""
        return [place for place, position in enumerate(self.orders[order]) if position in self.protected]


class Planner:
    """Runs the keyword steps with one configuration (see :class:`augkit_paramac.ParaMac`)."""

    def __init__(self, *, generator: str, substitution_model: str, device: str, drop_rate: float,
                 keyword_scoring: str, substitute_rank: int, substitute_check: str, substitute_nouns: bool,
                 permutations: int, context_chars: int):
        self.generator = generator
        self.substitution_model = substitution_model
        self.device = device
        self.drop_rate = drop_rate
        self.keyword_scoring = keyword_scoring
        self.substitute_rank = substitute_rank
        self.substitute_check = substitute_check
        self.substitute_nouns = substitute_nouns
        self.permutations = permutations
        self.context_chars = context_chars

    def plan(self, texts: Sequence[str], rngs: Sequence[random.Random], context: BatchContext | None = None) -> list[RowPlan]:
        """Every sentence's plan; sentences without keywords get an empty one (no orders).
        Each protected span of a row (``context.protected``) is one of its keywords."""
        found = [extract_keywords(text) for text in texts]
        protected = context.protected if context is not None else None
        if protected is not None:
            found = [with_protected_spans(text, row, spans) for text, row, spans in zip(texts, found, protected, strict=True)]
        kept = self.filtered(texts, found)
        plans = [RowPlan(text, [k.text for k in keep], dropped=[k.text for k in row if k not in keep],
                         protected=tuple(i for i, k in enumerate(keep) if k.source == PROTECTED))
                 for text, row, keep in zip(texts, found, kept, strict=True)]
        if self.substitute_rank:
            self.substitute(plans, kept)
        columns = context.columns if context is not None else {}
        limit = self._keyword_limit() if any(plan.protected for plan in plans) else None
        for index, (plan, rng) in enumerate(zip(plans, rngs, strict=True)):
            if limit is not None and len(plan.keywords) > limit:
                plan.reason = TOO_MANY_PROTECTED
                continue
            plan.orders = keyword_orders(len(plan.keywords), self.permutations, rng, in_order=plan.protected)
            if not plan.orders:
                plan.reason = NO_KEYWORDS
            before = context_before(_text(columns.get("before"), index), self.context_chars)
            after = context_after(_text(columns.get("after"), index), self.context_chars)
            plan.model_inputs = [model_input(plan.ordered_keywords(o), before, after) for o in range(len(plan.orders))]
        return plans

    # -- filtering --------------------------------------------------------------------------

    def dropped_count(self, keywords: int) -> int:
        """round(drop_rate * |K|), halves up; none when a sentence has a single keyword."""
        return 0 if keywords < 2 else math.floor(self.drop_rate * keywords + 0.5)

    def filtered(self, texts: Sequence[str], found: list[list[Keyword]]) -> list[list[Keyword]]:
        """Each sentence's keywords without its ``round(drop_rate * |K|)`` least informative,
        scored by the generator's teacher-forced mean token log-probability of the sentence
        (one batched call for the batch), and at most what T5's sentinels allow. Protected
        keywords are never dropped (a row with more of them than a template holds keeps them
        all, and :meth:`plan` gives it no order)."""
        limit = self._keyword_limit()
        droppable = [[p for p, k in enumerate(keywords) if k.source != PROTECTED] for keywords in found]
        drops = [min(len(free), max(self.dropped_count(len(keywords)), len(keywords) - limit))
                 for keywords, free in zip(found, droppable, strict=True)]
        pairs: list[tuple[int, int, str]] = []  # (row, keyword, scoring input)
        for row, keywords in enumerate(found):
            if drops[row]:
                for position in droppable[row]:
                    keyword = keywords[position]
                    if self.keyword_scoring == "alone":
                        source = keyword.text
                    else:
                        source = " ".join(k.text for k in keywords if k is not keyword)
                    pairs.append((row, position, source))
        scores: dict[tuple[int, int], float] = {}
        if pairs:
            from augkit.plugin import load_seq2seq

            model = load_seq2seq(self.generator, device=self.device)
            results = model.score([source for _, _, source in pairs], [texts[row] for row, _, _ in pairs],
                                  description="scoring keywords")
            scores = {(row, position): result.per_token for (row, position, _), result in zip(pairs, results, strict=True)}
        kept: list[list[Keyword]] = []
        for row, keywords in enumerate(found):
            drop = drops[row]
            if not drop:
                kept.append(list(keywords))
                continue
            informative = {position: scores[(row, position)] for position in droppable[row]}
            if self.keyword_scoring == "leave_one_out":  # the sentence stays likely without it: little information
                informative = {position: -value for position, value in informative.items()}
            least = set(sorted(droppable[row], key=lambda p: (informative[p], p))[:drop])
            kept.append([k for position, k in enumerate(keywords) if position not in least])
        return kept

    def _keyword_limit(self) -> int:
        """Keywords one template can hold: one fewer than the generator's sentinels."""
        from augkit.plugin import load_seq2seq

        tokenizer = load_seq2seq(self.generator, device=self.device).tokenizer
        unknown = tokenizer.unk_token_id
        count = 0
        while count < T5_SENTINELS and tokenizer.convert_tokens_to_ids(SENTINEL.format(count)) not in (None, unknown):
            count += 1
        if not count:
            from augkit.plugin import InvalidParameterError

            raise InvalidParameterError(
                f"paramac: generator {self.generator!r} has no T5 sentinel tokens ({SENTINEL.format(0)}): ParaMac infills "
                "spans with a T5 model (t5-base, t5-large, or a T5 fine-tuned with its sentinels)"
            )
        return count - 1

    # -- substitution -----------------------------------------------------------------------

    def substitute(self, plans: list[RowPlan], kept: list[list[Keyword]]) -> None:
        """Replace eligible words of the kept keywords by the masked LM's
        ``substitute_rank``-th prediction where WordNet allows it (one batched call)."""
        from augkit_eda.tagging import PatternTagger
        from augkit_eda.wordnet import default_lexicon

        from augkit.plugin import split_words

        tagger = PatternTagger.load()
        slots: list[WordSlot] = []
        for row, (plan, keywords) in enumerate(zip(plans, kept, strict=True)):
            if not keywords:
                continue
            sequence = split_words(plan.text)
            tags = tagger.tag_words(sequence.words, sequence.glue)
            slots += [slot for slot in substitution_slots(plan.text, row, [(k.start, k.end) for k in keywords], tags,
                                                          nouns=self.substitute_nouns)
                      if keywords[slot.keyword].source != PROTECTED]  # a protected span keeps its words
        if not slots:
            return
        from augkit.plugin import load_masked_lm

        model = load_masked_lm(self.substitution_model, device=self.device)
        fills = model.fill([plans[s.row].text for s in slots], [[(s.start, s.end)] for s in slots], k=self.substitute_rank)
        check = SubstituteCheck(default_lexicon(), STOP_WORDS, self.substitute_check)
        replaced: dict[tuple[int, int], list[tuple[int, int, str]]] = {}
        for slot, slot_fills in zip(slots, fills, strict=True):
            options = slot_fills[0] if slot_fills else []
            if len(options) < self.substitute_rank:
                continue
            word = plans[slot.row].text[slot.start : slot.end]
            prediction = options[self.substitute_rank - 1].token
            if check.accepts(word, prediction):
                replaced.setdefault((slot.row, slot.keyword), []).append((slot.offset, slot.offset + len(word), match_case(word, prediction)))
        for (row, position), changes in replaced.items():
            original = plans[row].keywords[position]
            rewritten = original
            for start, end, new in sorted(changes, reverse=True):
                rewritten = rewritten[:start] + new + rewritten[end:]
            plans[row].keywords[position] = rewritten
            plans[row].substitutions[original] = rewritten


def _text(values: Any, index: int) -> str:
    """A context cell as text: missing (None, NaN) and absent columns are ''."""
    if values is None:
        return ""
    value = values[index]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)
