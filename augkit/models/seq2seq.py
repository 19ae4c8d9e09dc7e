"""Batched generation and teacher-forced scoring with a sequence-to-sequence model
(translation, paraphrasing): the engine every neural augkit plugin runs on.

Both operations sort their inputs by length, batch them by a token budget, run under
``torch.inference_mode`` and return results in input order. Inputs longer than the
model's limit are split into sentences and processed piecewise (generation) or cut to the
limit (scoring); either way the caller is told which inputs, and a warning is issued.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from augkit.errors import InvalidParameterError
from augkit.models.batching import (
    DEFAULT_TOKEN_BUDGET,
    pad_rows,
    token_budget_batches,
)
from augkit.models.generation_options import (
    check_generation_options,
    checked_probability,
    checked_unigram_sources,
)
from augkit.models.loaded import LoadedModel
from augkit.models.long_inputs import Piece, pack_pieces
from augkit.models.seq2seq_outputs import GenerationResult, TargetScore
from augkit.seeding import generator, seeded_torch
from augkit.terminal.progress import progress_bar

#: A model whose tokenizer claims no limit (a huge sentinel) is cut here.
FALLBACK_MAX_INPUT_TOKENS = 512

#: Decoder rows per generation step (inputs x beams) are made a multiple of this with
#: filler copies of the batch's first input. Measured here (torch 2.13, x86-64 AVX2): a
#: linear layer gives bitwise the same row for any number of rows that is a multiple of 4
#: (or at least 12), and slightly different rows for 1, 2, 3, 5, 6, 7, 9, 10 or 11 rows,
#: enough to flip near-tied beams. With it, an input's outputs do not depend on the batch.
ROW_MULTIPLE = 4

#: Step key of the per-input generator that draws which source unigrams an input's outputs
#: may not hold (``forbid_source_unigrams``): ``generator(seed, this key, source text)``.
FORBID_STEP_KEY = "forbid_source_unigrams"


@dataclass(frozen=True)
class _Unit:
    """One piece of one input, as the model sees it."""

    item: int
    piece: int
    ids: tuple[int, ...]


class Seq2SeqModel(LoadedModel):
    """A loaded seq2seq model and its tokenizer; get one with
    :func:`augkit.models.load_seq2seq` (shared per process) rather than building it.

    >>> model = load_seq2seq("Helsinki-NLP/opus-mt-en-fr")            # doctest: +SKIP
    >>> model.generate(["Where is my card?"], num_beams=4, num_return=2).texts   # doctest: +SKIP
    [["Où est ma carte ?", "Où est ma carte?"]]
    """

    @property
    def model_config(self) -> Any:
        """The model's transformers configuration."""
        return self.model.config

    @property
    def generation_config(self) -> Any:
        """The model's generation defaults (transformers' ``GenerationConfig``)."""
        return self.model.generation_config

    @property
    def max_input_tokens(self) -> int:
        """The longest input the model accepts, in tokens (end-of-sequence included)."""
        limits = [getattr(self.model_config, "max_position_embeddings", None), self.tokenizer.model_max_length]
        usable = [int(limit) for limit in limits if isinstance(limit, int) and 0 < limit < 1_000_000]
        return min(usable) if usable else FALLBACK_MAX_INPUT_TOKENS

    # -- generation ---------------------------------------------------------------------

    def generate(
        self,
        texts: Sequence[str],
        *,
        num_beams: int = 4,
        num_return: int = 1,
        do_sample: bool = False,
        top_p: float | None = None,
        top_k: int | None = None,
        seeds: Sequence[int] | None = None,
        forbid_source_unigrams: float = 0.0,
        unigram_sources: Sequence[str] | None = None,
        max_new_tokens: int | None = None,
        min_new_tokens: int | None = None,
        max_input_tokens: int | None = None,
        long_inputs: Literal["split", "truncate"] = "split",
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        progress: bool = False,
        description: str = "generating",
        skip_special_tokens: bool = True,
    ) -> GenerationResult:
        """Generate ``num_return`` sequences for each text.

        Beam search (``num_beams`` >= ``num_return``) by default; ``do_sample=True`` samples
        instead (nucleus sampling with ``top_p``, restricted to the ``top_k`` likeliest tokens
        when given; 0 lifts the model's own top-k default), one text at a time seeded by
        ``seeds[i]`` so that a text's samples do not depend on the other texts. Texts
        longer than ``max_input_tokens`` (default: the model's limit) are split into
        sentences which are generated separately and joined (``long_inputs="split"``), or
        cut (``"truncate"``); the result lists them and a warning says how many. Empty
        texts get no outputs. ``skip_special_tokens=False`` keeps special tokens other than
        padding and end-of-sequence in the outputs: T5's sentinels (``<extra_id_0>``) that
        mark which span of a span-infilling input each piece fills.

        ``forbid_source_unigrams`` > 0 is Bart-uni, ProtAugment's diverse decoding (Dopierre
        et al. 2021): each distinct token of input ``i``'s source (``unigram_sources[i]``,
        default the input itself; special tokens, end-of-sequence and padding never) is
        forbidden in input ``i``'s outputs with that probability, drawn from ``seeds[i]``
        (0 when no seeds) and the source text: the same seed gives the same forbidden
        tokens and outputs whatever the batch. A prompted model passes the bare sentences
        as ``unigram_sources`` so the prompt's own words stay allowed.
        :meth:`forbidden_unigrams` tells which tokens are forbidden.
        """
        check_generation_options(num_beams, num_return, do_sample, top_p, seeds, len(texts), top_k)
        probability = checked_probability(forbid_source_unigrams)
        checked_unigram_sources(unigram_sources, texts)
        options = self._generation_options(num_beams, num_return, do_sample, top_p, top_k, max_new_tokens, min_new_tokens)
        limit = self._limit(max_input_tokens)
        units, split, truncated = self._units(texts, limit, long_inputs)
        _warn_long_inputs(self.name, limit, split, truncated, len(texts))
        banned: list[tuple[int, ...]] | None = None
        if probability > 0:
            banned = self.forbidden_unigrams(texts, probability, seeds=seeds, unigram_sources=unigram_sources)
        outputs: dict[tuple[int, int], list[str]] = {}
        with progress_bar(len(units), shown=progress, description=description, unit="text") as bar:
            for batch in self._generation_batches(units, num_beams, num_return, do_sample, token_budget):
                seed = seeds[batch[0].item] if do_sample and seeds is not None else None
                batch_bans = None if banned is None else [banned[unit.item] for unit in batch]
                generated = self._generate_batch(batch, options, num_return, seed, skip_special_tokens, batch_bans)
                for unit, sequences in zip(batch, generated, strict=True):
                    outputs[(unit.item, unit.piece)] = sequences
                bar.update(len(batch))
        return GenerationResult(_join_pieces(texts, units, outputs, num_return), split, truncated)

    def _generation_batches(self, units, num_beams, num_return, do_sample, token_budget) -> list[list[_Unit]]:
        if do_sample:  # one input per batch: torch's sampler draws from one global stream
            by_item: dict[int, list[_Unit]] = {}
            for unit in units:
                by_item.setdefault(unit.item, []).append(unit)
            return list(by_item.values())
        rows = max(num_beams, num_return)
        return [[units[i] for i in batch] for batch in token_budget_batches([len(u.ids) for u in units], token_budget, rows_per_item=rows)]

    def _generate_batch(self, batch: list[_Unit], options: dict, num_return: int, seed: int | None,
                        skip_special_tokens: bool = True, banned: list[tuple[int, ...]] | None = None) -> list[list[str]]:
        import torch

        rows = [unit.ids for unit in batch]
        if seed is None:  # beam search: see ROW_MULTIPLE
            fillers = _filler_items(len(rows), options["num_beams"])
            rows += [rows[0]] * fillers
            if banned is not None:
                banned = banned + [banned[0]] * fillers
        input_ids, attention_mask = self._pad(rows)
        from augkit.models.constraints import lean_constraints

        with torch.inference_mode(), seeded_torch(seed, self.device):
            sequences = self.model.generate(
                input_ids=input_ids, attention_mask=attention_mask,
                **lean_constraints(self.model.generation_config, options, banned),
            )
        if skip_special_tokens:
            decoded = self.tokenizer.batch_decode(sequences, skip_special_tokens=True)
        else:
            ends = {self.tokenizer.pad_token_id, self.tokenizer.eos_token_id}
            decoded = [self.tokenizer.decode([t for t in row if t not in ends], skip_special_tokens=False)
                       for row in sequences.tolist()]
        return [[text.strip() for text in decoded[i * num_return : (i + 1) * num_return]] for i in range(len(batch))]

    def forbidden_unigrams(
        self,
        texts: Sequence[str],
        probability: float,
        *,
        seeds: Sequence[int] | None = None,
        unigram_sources: Sequence[str] | None = None,
    ) -> list[tuple[int, ...]]:
        """The token ids :meth:`generate` with ``forbid_source_unigrams=probability`` forbids
        in each text's outputs (empty for an empty text).

        Each distinct token of the source (``unigram_sources[i]``, default ``texts[i]``),
        in order of first appearance, is forbidden when a draw of its own generator, seeded
        from ``seeds[i]`` (0 without seeds) and the source text, falls below
        ``probability``: ProtAugment's flat drop chance. Special tokens (sentinels and
        unknown included), end-of-sequence, padding and the decoder's start token are never
        drawn, so an output can always end. Bans are by id: a forbidden word may come back
        spelled by other tokens, and one the model can only spell with a forbidden token is
        left out or reworded; both are accepted, diverging from the source is the point.
        """
        probability = checked_probability(probability)
        if seeds is not None and len(seeds) != len(texts):
            raise InvalidParameterError(f"seeds must have one seed per text: {len(seeds)} seeds for {len(texts)} texts")
        sources = checked_unigram_sources(unigram_sources, texts)
        present = [i for i, text in enumerate(texts) if isinstance(text, str) and text.strip()]
        never = self._never_forbidden_ids()
        banned: list[tuple[int, ...]] = [()] * len(texts)
        for item, ids in zip(present, self._token_ids([sources[i] for i in present]), strict=True):
            draws = generator(0 if seeds is None else seeds[item], FORBID_STEP_KEY, sources[item])
            banned[item] = tuple(t for t in dict.fromkeys(ids) if t not in never and draws.random() < probability)
        return banned

    def _never_forbidden_ids(self) -> set[int]:
        config, generation = self.model_config, self.generation_config
        never = set(self.tokenizer.all_special_ids)
        for value in (self.tokenizer.eos_token_id, self.tokenizer.pad_token_id, generation.eos_token_id,
                      generation.pad_token_id, config.decoder_start_token_id, generation.decoder_start_token_id):
            never.update([value] if isinstance(value, int) else list(value or []))
        return never

    def _generation_options(self, num_beams, num_return, do_sample, top_p, top_k, max_new_tokens, min_new_tokens) -> dict:
        """The decoding options of one :meth:`generate` call (a runtime refuses here what it
        cannot do)."""
        options: dict[str, Any] = {"num_return_sequences": num_return, "do_sample": do_sample}
        options["num_beams"] = 1 if do_sample else num_beams
        if do_sample and top_p is not None:
            options["top_p"] = top_p
        if do_sample and top_k is not None:
            options["top_k"] = top_k
        if max_new_tokens is not None:
            options["max_new_tokens"] = max_new_tokens
        if min_new_tokens is not None:
            options["min_new_tokens"] = min_new_tokens
        return options

    # -- teacher-forced scoring ---------------------------------------------------------

    def score(
        self,
        sources: Sequence[str],
        targets: Sequence[str],
        *,
        max_input_tokens: int | None = None,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        progress: bool = False,
        description: str = "scoring",
    ) -> list[TargetScore]:
        """log P(target | source) under the model for each pair, by teacher forcing: one
        forward pass with the target as the decoder's input, summing the log-probability
        of each target token and of the end of sequence. Sources and targets longer than
        the limit are cut (and a warning says how many pairs)."""
        if len(sources) != len(targets):
            raise InvalidParameterError(f"score needs as many targets as sources, got {len(targets)} and {len(sources)}")
        limit = self._limit(max_input_tokens)
        source_ids = self._token_ids(list(sources))
        target_ids = self._token_ids(list(targets), target=True)
        cut = [i for i in range(len(sources)) if len(source_ids[i]) > limit or len(target_ids[i]) > limit]
        if cut:
            _warn(f"{len(cut)} of {len(sources)} pairs were longer than {limit} tokens and scored on their first {limit} tokens ({self.name})")
        source_ids = [_cut(ids, limit) for ids in source_ids]
        target_ids = [_cut(ids, limit) for ids in target_ids]
        lengths = [len(s) + len(t) for s, t in zip(source_ids, target_ids, strict=True)]
        scores: list[TargetScore | None] = [None] * len(sources)
        with progress_bar(len(sources), shown=progress, description=description, unit="text") as bar:
            for batch in token_budget_batches(lengths, token_budget):
                logprobs = self._target_logprobs([source_ids[i] for i in batch], [target_ids[i] for i in batch])
                for i, logprob in zip(batch, logprobs, strict=True):
                    scores[i] = TargetScore(logprob, len(target_ids[i]))
                bar.update(len(batch))
        return scores  # type: ignore[return-value]

    def _target_logprobs(self, sources: list[tuple[int, ...]], targets: list[tuple[int, ...]]) -> list[float]:
        import torch

        input_ids, attention_mask = self._pad(sources)
        labels, label_mask = self._pad(targets)
        decoder_input_ids = self._shift_right(labels)
        with torch.inference_mode():
            logits = self.model(
                input_ids=input_ids, attention_mask=attention_mask,
                decoder_input_ids=decoder_input_ids, decoder_attention_mask=label_mask,
            ).logits
            logits = logits.float()
            # log_softmax picked at the targets, without writing a second vocabulary-sized tensor
            logprobs = logits.gather(-1, labels.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)
            sums = (logprobs * label_mask).double().sum(dim=1)
        return [float(value) for value in sums.cpu()]

    def _shift_right(self, labels: Any) -> Any:
        start = self.model.config.decoder_start_token_id
        if start is None:
            start = self.tokenizer.pad_token_id
        shifted = labels.new_full(labels.shape, self.tokenizer.pad_token_id)
        shifted[:, 1:] = labels[:, :-1]
        shifted[:, 0] = start
        return shifted

    # -- shared -------------------------------------------------------------------------

    def _limit(self, max_input_tokens: int | None) -> int:
        if max_input_tokens is None:
            return self.max_input_tokens
        if isinstance(max_input_tokens, bool) or not isinstance(max_input_tokens, int) or max_input_tokens < 2:
            raise InvalidParameterError(f"max_input_tokens must be an integer >= 2, got {max_input_tokens!r}")
        return min(max_input_tokens, self.max_input_tokens)

    def _token_ids(self, texts: list[str], *, target: bool = False) -> list[tuple[int, ...]]:
        if not texts:
            return []
        # verbose=False: lengths over the limit are expected here and handled by the caller
        encoded = self.tokenizer(text_target=texts, verbose=False) if target else self.tokenizer(texts, verbose=False)
        return [tuple(ids) for ids in encoded["input_ids"]]

    def _units(self, texts: Sequence[str], limit: int, long_inputs: str) -> tuple[list[_Unit], list[int], list[int]]:
        """Each non-empty text as one unit, or several when it is longer than ``limit``."""
        if long_inputs not in ("split", "truncate"):
            raise InvalidParameterError(f"long_inputs must be 'split' or 'truncate', got {long_inputs!r}")
        present = [i for i, text in enumerate(texts) if isinstance(text, str) and text.strip()]
        ids = dict(zip(present, self._token_ids([texts[i] for i in present]), strict=True))
        units: list[_Unit] = []
        split: list[int] = []
        truncated: list[int] = []
        for item in present:
            if len(ids[item]) <= limit:
                units.append(_Unit(item, 0, ids[item]))
                continue
            pieces = pack_pieces(texts[item], limit, self._count_tokens) if long_inputs == "split" else [Piece(texts[item], True)]
            if len(pieces) > 1:
                split.append(item)
            if any(piece.truncated for piece in pieces):
                truncated.append(item)
            piece_ids = self._token_ids([piece.text for piece in pieces])
            units.extend(_Unit(item, p, _cut(piece_ids[p], limit)) for p in range(len(pieces)))
        return units, split, truncated

    def _count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, verbose=False)["input_ids"])

    def _pad(self, rows: Sequence[Sequence[int]]) -> tuple[Any, Any]:
        """Right-padded ids and mask, padded to a multiple of 8 tokens, on the device."""
        return pad_rows(rows, self.tokenizer.pad_token_id, self.device)


def _filler_items(items: int, rows_per_item: int) -> int:
    """Extra inputs that make ``items x rows_per_item`` a multiple of :data:`ROW_MULTIPLE`."""
    extra = 0
    while ((items + extra) * rows_per_item) % ROW_MULTIPLE:
        extra += 1
    return extra


def _cut(ids: tuple[int, ...], limit: int) -> tuple[int, ...]:
    """The first ``limit`` ids, keeping the final end-of-sequence id when cut."""
    return ids if len(ids) <= limit else ids[: limit - 1] + ids[-1:]


def _join_pieces(texts, units: list[_Unit], outputs: dict, num_return: int) -> list[list[str]]:
    """Per input, the i-th sequence of every piece joined with spaces, for each i."""
    pieces: dict[int, list[list[str]]] = {}
    for unit in units:  # units are in (item, piece) order
        pieces.setdefault(unit.item, []).append(outputs[(unit.item, unit.piece)])
    joined: list[list[str]] = []
    for item in range(len(texts)):
        parts = pieces.get(item)
        if parts is None:
            joined.append([])
            continue
        count = min(len(part) for part in parts)
        joined.append([" ".join(part[i] for part in parts).strip() for i in range(min(count, num_return))])
    return joined


def _warn_long_inputs(name: str, limit: int, split: list[int], truncated: list[int], count: int) -> None:
    if split:
        _warn(f"{len(split)} of {count} inputs were longer than {limit} tokens and were split into sentences ({name})")
    if truncated:
        _warn(f"{len(truncated)} of {count} inputs had a sentence longer than {limit} tokens, cut to its first {limit} tokens ({name})")


def _warn(message: str) -> None:
    warnings.warn(f"augkit: {message}", RuntimeWarning, stacklevel=4)
