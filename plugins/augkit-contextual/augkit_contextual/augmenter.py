"""The ``contextual`` method: words replaced or inserted where a masked language model
proposes them in context (Kobayashi 2018), optionally conditioned on the row's label (Wu et
al. 2019, C-BERT), every proposal filtered by EDA's substitution rules."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import augkit
from augkit.plugin import (
    BatchContext,
    GeneratedRow,
    InputError,
    InvalidParameterError,
    ModelNeed,
    first_distinct,
    join_words,
    match_case,
    split_words,
)
from augkit_contextual.proposals import (
    DEFAULT_MIN_ZIPF,
    Proposal,
    ProposalReader,
    check_sampling,
    draw,
)
from augkit_contextual.slots import Slot, insertion_slots, masked, substitution_slots

#: The masked LM by default: DistilRoBERTa (Sanh et al. 2019), 6 layers distilled from
#: RoBERTa-base: half of bert-base-uncased's layers, so about twice as fast per proposal, and
#: cased, so a proposal keeps the case the sentence needs ("Visa" stays a name) instead of
#: BERT-uncased's lower case. docs/methods/contextual.md compares the two.
DEFAULT_MODEL = "distilroberta-base"
#: Share of a text's words changed per output: EDA's alpha (Wei and Zou 2019, 0.1), so that
#: the two methods' strengths compare; at least one word.
DEFAULT_AUG_P = 0.1
#: Proposals drawn among the likeliest accepted ones (after the rules). Kobayashi 2018
#: samples from the whole distribution at a temperature; 10 keeps rare, off-sense words out.
DEFAULT_TOP_K = 10
#: Fills read per slot before the rules: the rules refuse most of the likeliest (the word
#: itself, its forms, stop words, pieces), so many more than ``top_k`` are read.
MIN_FILLS_READ = 50
FILLS_PER_PROPOSAL = 5
#: Extra attempts per missing output, from the slots already proposed for, before a row
#: returns fewer than ``n`` (short texts have few distinct edits).
TOP_UP_ATTEMPTS_PER_OUTPUT = 3
ACTIONS = ("substitute", "insert")
CONDITIONS = ("label",)
#: Why a row got no output, in the words of the run's summary.
NO_SLOT = {
    "substitute": ("contextual: no word may be replaced (every word is a stop word, negation, number, name, "
                   "protected or not made of letters)"),
    "insert": "contextual: the text has no words to insert between",
}
UNKNOWN_LABEL = "contextual: label {label!r} is not among the labels the model was trained on ({model})"


@dataclass
class _Row:
    """One row's work: its slots, planned outputs and what the model proposed."""

    text: str
    words: list[str]
    rng: random.Random
    slots: list[Slot]
    label: Any  # what the model reads before the text (condition="label"), else None
    plans: list[tuple[int, ...]] = field(default_factory=list)
    proposals: dict[int, list[Proposal]] = field(default_factory=dict)
    refused: Counter = field(default_factory=Counter)


class Contextual(augkit.Augmenter):
    """Contextual substitution or insertion: a masked language model proposes words in the
    sentence's context (Kobayashi 2018; nlpaug's ``ContextualWordEmbsAug``).

    Per output, ``max(1, int(aug_p * words))`` words are replaced (or as many inserted). A
    word to replace is masked whole, with one mask token however many pieces the tokenizer
    cuts it into, and the model's likeliest tokens that begin a whole word are read. A
    proposal must pass EDA's substitution rules: no stop word, auxiliary, negation or
    number replaced or proposed, no antonym of the word (WordNet), no form of the word itself,
    no piece of a word or word rarer than ``min_zipf``, no capitalised word for a lower-case one. Among the first ``top_k``
    accepted, one is drawn by its probability at ``temperature`` within ``top_p``. The word
    keeps its case and the punctuation around it. Protected spans (``protect=``,
    ``protect_column=``, the codes protected by default) are never masked, and nothing is
    inserted inside one.

    Each masked word is one forward pass, batched across rows by the runtime's token budget;
    only masked positions go through the output layer. Outputs depend only on the row and the
    seed, never on the batch, the workers or the order.

    With ``condition="label"`` (C-BERT, Wu et al. 2019) the model reads the row's label before
    the text, so that its proposals fit the label: the model must be one that ``augkit train
    contextual`` fine-tuned on the user's labelled data.

    Parameters
    ----------
    model : str
        Masked language model: a hub id, a folder (one ``augkit train contextual`` wrote) or a
        name under ``$AUGKIT_MODEL_DIR``. Default ``distilroberta-base``.
    action : str
        ``substitute`` (default): replace words; ``insert``: insert words between them.
    aug_p : float
        Share of the text's words changed per output, at least one. Default 0.1 (EDA's).
    top_k : int
        Draw among the k likeliest proposals the rules accept. Default 10.
    top_p : float
        Draw within the likeliest proposals holding this share of their probability. Default 1.
    temperature : float
        Temperature of the draw: below 1 favours the likeliest. Default 1.
    min_zipf : float
        A proposal must be an English word at least this common (wordfreq's Zipf frequency; 3
        is once per million words): the tokens that begin a word are not all words. Default 3.
    condition : str, optional
        ``label``: proposals conditioned on the row's label (needs the label column and a model
        trained by ``augkit train contextual``). Default None.
    device : str
        ``auto`` (default: CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
    """

    name = "contextual"
    uses_model = True
    protects = True

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        action: str = "substitute",
        aug_p: float = DEFAULT_AUG_P,
        top_k: int = DEFAULT_TOP_K,
        top_p: float = 1.0,
        temperature: float = 1.0,
        min_zipf: float = DEFAULT_MIN_ZIPF,
        condition: str | None = None,
        device: str = "auto",
    ):
        for label, value in (("model", model), ("device", device)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidParameterError(f"contextual: {label} must be a model id or folder (non-empty str), got {value!r}")
        if action not in ACTIONS:
            raise InvalidParameterError(f"contextual: action must be one of {', '.join(ACTIONS)}; got {action!r}")
        if isinstance(aug_p, bool) or not isinstance(aug_p, (int, float)) or not 0 < aug_p <= 1:
            raise InvalidParameterError(f"contextual: aug_p must be a share of the words in (0, 1], got {aug_p!r}")
        check_sampling(top_k, top_p, temperature)
        if isinstance(min_zipf, bool) or not isinstance(min_zipf, (int, float)) or not 0 <= min_zipf <= 8:
            raise InvalidParameterError(f"contextual: min_zipf must be a Zipf frequency in [0, 8], got {min_zipf!r}")
        if condition is not None and condition not in CONDITIONS:
            raise InvalidParameterError(
                f"contextual: condition must be None or one of {', '.join(CONDITIONS)}; got {condition!r}")
        self.model = model
        self.action = action
        self.aug_p = float(aug_p)
        self.top_k = top_k
        self.top_p = float(top_p)
        self.temperature = float(temperature)
        self.min_zipf = float(min_zipf)
        self.condition = condition
        self.device = device
        self._trained_labels: frozenset[str] | None = None
        self._reader: ProposalReader | None = None

    def __getstate__(self) -> dict:
        # The proposal reader holds the tokenizer and the WordNet lexicon: rebuilt where unpickled.
        return {**self.__dict__, "_reader": None}

    def required_models(self) -> list[ModelNeed]:
        """The masked language model."""
        alternative = "or train one with `augkit train contextual DATA --label-column L -o FOLDER`" if self.condition else ""
        return [ModelNeed(self.model, "masked", "model", "proposing words in context", alternative)]

    def prepare(self, dataset) -> None:
        """With ``condition="label"``: check that the run has labels and the model was trained
        on labels (it records which)."""
        if self.condition == "label":
            if dataset.labels is None:
                raise InputError(_NO_LABELS)
            self._labels_trained()

    def augment_batch(self, texts: list[str], n: int, rngs: list[random.Random],
                      context: BatchContext | None = None) -> list[list[str]]:
        """Up to ``n`` outputs per text: the slots every row's outputs change are masked and
        proposed for in one batched pass (a second for rows left short); then each output
        draws its proposals from the row's generator."""
        if n <= 0:
            return [[] for _ in texts]
        labels = self._row_labels(texts, context)
        protected = context.protected if context is not None and context.protected is not None else [()] * len(texts)
        trained = self._labels_trained()
        results: list[Any] = [None] * len(texts)
        rows: dict[int, _Row] = {}
        for i, (text, rng, label) in enumerate(zip(texts, rngs, labels, strict=True)):
            if trained is not None and str(label) not in trained:
                results[i] = GeneratedRow([], reason=UNKNOWN_LABEL.format(label=label, model=self.model))
                continue
            slots = (substitution_slots(text, self._proposal_reader().rules, protected[i]) if self.action == "substitute"
                     else insertion_slots(text, protected[i]))
            if not slots:
                results[i] = GeneratedRow([], reason=NO_SLOT[self.action])
                continue
            row = rows[i] = _Row(text, split_words(text).words, rng, slots, label)
            changed = min(len(slots), max(1, int(self.aug_p * len(row.words))))
            row.plans = [tuple(sorted(rng.sample(range(len(slots)), changed))) for _ in range(n)]
        self._propose(rows, {i: sorted({s for plan in row.plans for s in plan}) for i, row in rows.items()})
        found = {i: self._outputs(row, n) for i, row in rows.items()}
        # A row left short masks its untried slots in a second batched pass, and draws again.
        short = {}
        for i, row in rows.items():
            untried = [s for s in range(len(row.slots)) if s not in row.proposals]
            if untried and len(found[i]) < n:
                short[i] = sorted(row.rng.sample(untried, min(len(untried), n * len(row.plans[0]))))
        if short:
            self._propose(rows, short)
            found.update({i: self._outputs(rows[i], n) for i in short})
        for i, row in rows.items():
            results[i] = found[i] or GeneratedRow([], reason=self._why_nothing(row))
        return results

    def _row_labels(self, texts: list[str], context: BatchContext | None) -> Sequence[Any]:
        """Each row's label when proposals are conditioned on it, else None per row."""
        if self.condition != "label":
            return [None] * len(texts)
        if context is None or context.labels is None:
            raise InputError(_NO_LABELS)
        return context.labels

    def _propose(self, rows: dict[int, _Row], wanted: dict[int, list[int]]) -> None:
        """Mask each wanted slot of each row (one input per slot) and keep the proposals the
        rules accept, in one call to the model for the whole batch."""
        from augkit_contextual.conditioning import conditioned

        lm = self._masked_lm()
        reader = self._proposal_reader()
        inputs, owners = [], []
        for i, slot_indices in wanted.items():
            row = rows[i]
            for s in slot_indices:
                text = masked(row.text, row.slots[s], lm.mask_token)
                if self.condition == "label":
                    text = conditioned(row.label, text, lm.tokenizer.sep_token)[0]
                inputs.append(text)
                owners.append((i, s))
        reads = max(MIN_FILLS_READ, FILLS_PER_PROPOSAL * self.top_k)
        fills = lm.fill_masked(inputs, reads)
        for (i, s), row_fills in zip(owners, fills, strict=True):
            row = rows[i]
            slot = row.slots[s]
            # the words beside the slot: an insertion or a substitute may not repeat one ("my card card")
            after = slot.index + (1 if slot.word is not None else 0)
            neighbours = tuple(row.words[max(0, slot.index - 1) : slot.index]) + tuple(row.words[after : after + 1])
            row.proposals[s] = reader.accepted(row_fills[0] if row_fills else [], slot, neighbours, self.top_k,
                                               at_text_start=slot.start == 0, refused=row.refused)

    def _outputs(self, row: _Row, n: int) -> list[str]:
        """The row's first ``n`` distinct outputs: its planned ones, then random top-ups from
        the slots that have proposals."""
        live = [s for s, found in row.proposals.items() if found]
        if not live:
            return []
        return first_distinct(row.text, self._attempts(row, live, n), n)

    def _attempts(self, row: _Row, live: list[int], n: int) -> Iterator[str]:
        changed = len(row.plans[0])
        for plan in row.plans:
            usable = [s for s in plan if s in live] or sorted(row.rng.sample(live, min(changed, len(live))))
            yield self._apply(row, usable)
        for _ in range(TOP_UP_ATTEMPTS_PER_OUTPUT * n):
            yield self._apply(row, sorted(row.rng.sample(live, min(changed, len(live)))))

    def _apply(self, row: _Row, slot_indices: Sequence[int]) -> str:
        """The row's text with a drawn proposal at each slot."""
        sequence = split_words(row.text)  # a fresh copy to edit
        for s in sorted(slot_indices, key=lambda s: row.slots[s].index, reverse=True):
            slot = row.slots[s]
            word = draw(row.proposals[s], row.rng, self.top_p, self.temperature).word
            if slot.word is not None:
                sequence.words[slot.index] = match_case(slot.word, word)
            elif slot.index == len(sequence.words):
                sequence.words.append(word)
                sequence.glue.insert(slot.index, " ")
            else:
                sequence.words.insert(slot.index, word)
                sequence.glue.insert(slot.index + 1, " ")
        return join_words(sequence)

    def _why_nothing(self, row: _Row) -> str:
        tried = len(row.proposals)
        if not any(row.proposals.values()):
            common = ", ".join(f"{reason} {count}" for reason, count in row.refused.most_common(3))
            return (f"contextual: the model proposed no word the rules accept for the {tried} "
                    f"{'word' if self.action == 'substitute' else 'gap'}{'s' if tried != 1 else ''} masked "
                    f"(most refused: {common or 'none read'}); a larger top_k reads more")
        return "contextual: every output drawn repeated the text or an earlier output (raise top_k or aug_p)"

    def _labels_trained(self) -> frozenset[str] | None:
        if self.condition != "label":
            return None
        if self._trained_labels is None:
            from augkit_contextual.conditioning import trained_labels

            labels = trained_labels(self.model)
            if labels is None:
                raise InvalidParameterError(
                    f"contextual: condition='label' needs a model fine-tuned on labelled data by `augkit train contextual "
                    f"DATA --label-column L -o FOLDER`; {self.model!r} has no record of the labels it was trained on")
            self._trained_labels = frozenset(str(label) for label in labels)
        return self._trained_labels

    def _masked_lm(self) -> Any:
        from augkit.plugin import load_masked_lm

        return load_masked_lm(self.model, device=self.device)

    def _proposal_reader(self) -> ProposalReader:
        if self._reader is None:
            from augkit_eda.substitutes import SubstituteRules

            self._reader = ProposalReader(self._masked_lm().tokenizer, SubstituteRules(), self.min_zipf)
        return self._reader


_NO_LABELS = ("contextual: condition='label' draws proposals for each row's label: name the label column "
              "(label_column=... or --label-column)")
