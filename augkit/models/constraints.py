"""Generation constraints applied in place on the few vocabulary columns they concern.

transformers applies a config's ``bad_words_ids`` and ``min_new_tokens`` with processors
that copy and rewrite the whole (rows x vocabulary) score matrix at every step: with
opus-mt's 58,101-word vocabulary that was a third of CPU decoding time (measured with the
torch profiler: ``aten::where`` and ``aten::copy_``). These processors give the same result
by writing -inf into the banned columns only. :class:`BanTokensPerInput` adds what
transformers has no processor for: bans that differ from input to input (Bart-uni).
Imported once a model is loaded (needs torch and transformers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import LogitsProcessor


class BanTokens(LogitsProcessor):
    """Never generate the given token ids (single-token ``bad_words_ids``)."""

    def __init__(self, token_ids: list[int]):
        self.token_ids = torch.tensor(sorted(set(token_ids)), dtype=torch.long)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        scores[:, self.token_ids.to(scores.device)] = -float("inf")
        return scores


class BanTokensPerInput(LogitsProcessor):
    """Never generate ``banned[i]`` in the rows of input ``i`` (its beams, or its returned
    samples): per-input single-token bans, such as Bart-uni's forbidden source unigrams.

    transformers' ``bad_words_ids`` holds one list for the whole batch, so ProtAugment pooled
    every input's bans and an input's outputs depended on its batch-mates; here each input
    gets its own, and ``-inf`` is written into those (row, column) cells only. The decoder
    keeps an input's rows next to each other, ``scores.shape[0] // len(banned)`` of them.
    """

    def __init__(self, banned: Sequence[Sequence[int]]):
        self.inputs = len(banned)
        self.input_of_ban = torch.tensor([i for i, ids in enumerate(banned) for _ in ids], dtype=torch.long)
        self.token_of_ban = torch.tensor([t for ids in banned for t in ids], dtype=torch.long)
        self._cells: dict[tuple[int, str], tuple[torch.Tensor, torch.Tensor]] = {}

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if not len(self.token_of_ban):
            return scores
        rows_per_input, stray = divmod(scores.shape[0], self.inputs)
        if stray or not rows_per_input:
            raise RuntimeError(f"{scores.shape[0]} decoder rows cannot be shared among {self.inputs} inputs")
        rows, columns = self._cells_for(rows_per_input, scores.device)
        scores[rows, columns] = -float("inf")
        return scores

    def _cells_for(self, rows_per_input: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        key = (rows_per_input, str(device))
        if key not in self._cells:
            offsets = torch.arange(rows_per_input, dtype=torch.long)
            rows = (self.input_of_ban.unsqueeze(1) * rows_per_input + offsets).reshape(-1)
            columns = self.token_of_ban.unsqueeze(1).expand(-1, rows_per_input).reshape(-1)
            self._cells[key] = (rows.to(device), columns.to(device))
        return self._cells[key]


class NoEndBefore(LogitsProcessor):
    """No end-of-sequence token before ``min_new_tokens`` tokens were generated. Counts
    its own calls (one per decoding step), so build one per ``generate`` call."""

    def __init__(self, min_new_tokens: int, eos_token_ids: list[int]):
        self.min_new_tokens = min_new_tokens
        self.eos_token_ids = torch.tensor(eos_token_ids, dtype=torch.long)
        self.steps = 0

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.steps < self.min_new_tokens:
            scores[:, self.eos_token_ids.to(scores.device)] = -float("inf")
        self.steps += 1
        return scores


class EndAtLastStep(LogitsProcessor):
    """Force the end-of-sequence token at the last allowed step (``forced_eos_token_id``),
    after every other constraint, as transformers orders it."""

    def __init__(self, last_step: int, eos_token_id: int):
        self.last_step = last_step
        self.eos_token_id = eos_token_id
        self.steps = 0

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self.steps == self.last_step:
            scores.fill_(-float("inf"))
            scores[:, self.eos_token_id] = 0
        self.steps += 1
        return scores


def lean_constraints(
    generation_config: Any, options: dict[str, Any], banned_per_input: Sequence[Sequence[int]] | None = None,
) -> dict[str, Any]:
    """``options`` for ``model.generate`` with the single-token bad words and the minimum
    number of new tokens (from ``options`` or the model's generation config) moved into
    in-place processors; everything else is left to transformers. ``banned_per_input[i]``:
    token ids the rows of input ``i`` may not generate (:class:`BanTokensPerInput`; None or
    all empty: none)."""
    options = options_without_processors = dict(options)
    processors: list[LogitsProcessor] = []
    per_input = BanTokensPerInput(banned_per_input) if banned_per_input and any(banned_per_input) else None
    eos = generation_config.eos_token_id
    eos_ids = [eos] if isinstance(eos, int) else list(eos or [])
    bad_words = generation_config.bad_words_ids or []
    single = [ids[0] for ids in bad_words if len(ids) == 1 and ids[0] not in eos_ids]
    if single and len(single) == len(bad_words):
        processors.append(BanTokens(single))
        options = {**options, "bad_words_ids": None}
    if per_input is not None:
        processors.append(per_input)
    min_new = options.get("min_new_tokens", generation_config.min_new_tokens)
    if min_new and eos_ids:
        processors.append(NoEndBefore(min_new, eos_ids))
        options = {**options, "min_new_tokens": None}
    forced_eos = options.get("forced_eos_token_id", generation_config.forced_eos_token_id)
    if processors and forced_eos is not None:
        if not isinstance(forced_eos, int):
            # Left to transformers, except the per-input bans it has no processor for; they
            # run after its forced end, which they cannot undo (end-of-sequence is never banned).
            if per_input is not None:
                from transformers import LogitsProcessorList

                options_without_processors["logits_processor"] = LogitsProcessorList([per_input])
            return options_without_processors
        # Ours run after transformers' processors, so its forced end must move after them.
        # The decoder starts from one token: step i writes token i + 1 of at most
        # max_length (max_new_tokens + 1), and the end is forced at the last position.
        max_new = options.get("max_new_tokens", generation_config.max_new_tokens)
        length = max_new + 1 if max_new else generation_config.max_length
        processors.append(EndAtLastStep(length - 2, forced_eos))
        options["forced_eos_token_id"] = None
    if processors:
        from transformers import LogitsProcessorList

        options["logits_processor"] = LogitsProcessorList(processors)
    return options
