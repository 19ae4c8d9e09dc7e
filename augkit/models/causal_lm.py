"""Per-token log-probabilities (fluency, perplexity) and seeded sampling with a causal
language model (GPT-2-shaped), batched.

Scoring sorts texts by length, batches those of one padded length by a token budget and
returns results in input order, so a text's scores do not depend on the batch. Sampling
runs one prompt at a time under its own seed (torch's sampler draws from one global
stream), so a prompt's continuations do not depend on the other prompts either.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from augkit.errors import InvalidParameterError
from augkit.models.batching import DEFAULT_TOKEN_BUDGET, pad_rows, token_budget_batches
from augkit.models.limits import warn_cut
from augkit.models.loaded import LoadedModel
from augkit.seeding import draw_seed, generator, seeded_torch
from augkit.terminal.progress import progress_bar

#: Step key of the per-prompt seeds derived from ``generate(..., seed=)``.
GENERATION_SEED_KEY = "causal-lm-generate"


class CausalLM(LoadedModel):
    """A loaded causal language model and its tokenizer; get one with
    :func:`augkit.models.load_causal_lm` (shared per process) rather than building it.

    >>> lm = load_causal_lm("gpt2")                                          # doctest: +SKIP
    >>> lm.mean_logprob(["I lost my card", "card my lost I"])              # doctest: +SKIP
    [-4.1, -7.9]
    >>> lm.generate(["My card was"], n=2, seed=0, max_new_tokens=5)         # doctest: +SKIP
    [[' declined at the shop', ' stolen last night.']]
    """

    @property
    def start_token_id(self) -> int | None:
        """The token a text is scored (and a prompt continued) after: BOS, or EOS when the
        tokenizer has no BOS (GPT-2's ``<|endoftext|>`` is both)."""
        bos = self.tokenizer.bos_token_id
        return bos if bos is not None else self.tokenizer.eos_token_id

    # -- scoring ------------------------------------------------------------------------

    def token_logprobs(
        self,
        texts: Sequence[str],
        *,
        add_start_token: bool = True,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        batch_size: int | None = None,
        progress: bool = False,
    ) -> list[list[float]]:
        """For each text, log p(x_t | x_<t) (natural log) of each of its tokens, in order.

        With ``add_start_token`` (default) the start token (:attr:`start_token_id`) comes
        first, so the first token is scored too; otherwise the first token is only context.
        A text with nothing to score (empty, or one token without a start token) gets
        ``[]``. Texts longer than the context are cut to it (a warning says how many).
        Batches hold texts of one padded length, at most ``token_budget`` padded tokens
        and ``batch_size`` texts.
        """
        if isinstance(texts, str):
            raise InvalidParameterError("token_logprobs takes a list of texts, not one string")
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidParameterError(f"texts to score must be str; item {index} is {type(text).__name__}")
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1):
            raise InvalidParameterError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        limit = self.max_input_tokens
        rows = self._rows(list(texts), add_start_token)
        warn_cut(self.name, sum(len(row) > limit for row in rows), len(rows), limit)
        rows = [row[:limit] for row in rows]
        results: list[list[float]] = [[] for _ in rows]
        scored = [i for i, row in enumerate(rows) if len(row) >= 2]
        with progress_bar(len(scored), shown=progress, description="scoring", unit="text") as bar:
            for batch in token_budget_batches([len(rows[i]) for i in scored], token_budget, max_items=batch_size):
                members = [scored[b] for b in batch]
                for i, values in zip(members, self._batch_logprobs([rows[i] for i in members]), strict=True):
                    results[i] = values
                bar.update(len(members))
        return results

    def mean_logprob(self, texts: Sequence[str], **options: Any) -> list[float]:
        """Mean per-token log-probability of each text (NaN when nothing is scored): higher
        is more fluent; ``exp(-value)`` is the perplexity. Options as :meth:`token_logprobs`."""
        return [math.fsum(values) / len(values) if values else math.nan for values in self.token_logprobs(texts, **options)]

    def _rows(self, texts: list[str], add_start_token: bool) -> list[tuple[int, ...]]:
        start = self.start_token_id
        prefix = (start,) if add_start_token and start is not None else ()
        ids = self.tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"] if texts else []
        return [prefix + tuple(row) for row in ids]

    def _batch_logprobs(self, rows: list[tuple[int, ...]]) -> list[list[float]]:
        import torch

        input_ids, attention_mask = pad_rows(rows, self._pad_id, self.device)
        with torch.inference_mode():
            logits = self.model(input_ids=input_ids, attention_mask=attention_mask).logits[:, :-1].float()
            targets = input_ids[:, 1:].unsqueeze(-1)
            # log_softmax picked at the targets, without a second vocabulary-sized tensor
            values = (logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, dim=-1)).double().cpu()
        return [values[r, : len(row) - 1].tolist() for r, row in enumerate(rows)]

    @property
    def _pad_id(self) -> int:
        pad = self.tokenizer.pad_token_id
        return pad if pad is not None else (self.tokenizer.eos_token_id or 0)

    # -- sampling -----------------------------------------------------------------------

    def generate(
        self,
        prompts: Sequence[str],
        n: int = 1,
        *,
        seed: int = 0,
        seeds: Sequence[int] | None = None,
        top_k: int | None = 50,
        top_p: float | None = 1.0,
        temperature: float = 1.0,
        max_new_tokens: int = 20,
        progress: bool = False,
    ) -> list[list[str]]:
        """``n`` sampled continuations of each prompt: ``out[i]`` holds the new text only
        (special tokens left out; ``prompts[i] + out[i][j]`` is the whole text).

        Prompt ``i`` is sampled under ``seeds[i]`` when given, else under a seed derived
        from ``seed`` and the prompt's text, so the same prompt gets the same continuations
        alone or in any batch. ``top_k`` (0 or None: no cut) and ``top_p`` restrict the
        tokens sampled from; each prompt starts after the start token, and a prompt longer
        than the context minus ``max_new_tokens`` keeps its end (a warning says how many).
        """
        if isinstance(prompts, str):
            raise InvalidParameterError("generate takes a list of prompts, not one string")
        _check_sampling(n, top_k, top_p, temperature, max_new_tokens, seeds, len(prompts))
        prompts = list(prompts)
        for index, prompt in enumerate(prompts):
            if not isinstance(prompt, str):
                raise InvalidParameterError(f"prompts must be str; item {index} is {type(prompt).__name__}")
        if seeds is None:
            seeds = [draw_seed(generator(seed, GENERATION_SEED_KEY, prompt)) for prompt in prompts]
        room = self.max_input_tokens - max_new_tokens
        if room < 1:
            raise InvalidParameterError(f"max_new_tokens={max_new_tokens} leaves no room for a prompt in {self.name}'s {self.max_input_tokens}-token context")
        rows = self._rows(prompts, add_start_token=True) if prompts else []
        warn_cut(self.name, sum(len(row) > room for row in rows), len(rows), room, "prompts")
        options = {
            "do_sample": True, "num_return_sequences": n, "max_new_tokens": max_new_tokens,
            "top_k": top_k or 0, "top_p": 1.0 if top_p is None else top_p, "temperature": temperature,
            "pad_token_id": self._pad_id, "eos_token_id": self.tokenizer.eos_token_id,
        }
        outputs: list[list[str]] = []
        with progress_bar(len(rows), shown=progress, description="generating", unit="prompt") as bar:
            for row, row_seed in zip(rows, seeds, strict=True):
                outputs.append(self._sample(row[-room:], row_seed, options))
                bar.update(1)
        return outputs

    def _sample(self, row: tuple[int, ...], seed: int, options: dict) -> list[str]:
        import torch

        input_ids, attention_mask = pad_rows([row], self._pad_id, self.device, width=len(row))
        with torch.inference_mode(), seeded_torch(seed, self.device):
            sequences = self.model.generate(input_ids=input_ids, attention_mask=attention_mask, **options)
        return self.tokenizer.batch_decode(sequences[:, len(row) :], skip_special_tokens=True)


def _check_sampling(n, top_k, top_p, temperature, max_new_tokens, seeds, count) -> None:
    for name, value in (("n", n), ("max_new_tokens", max_new_tokens)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0):
        raise InvalidParameterError(f"top_k must be an integer >= 0 (0: no top-k cut), got {top_k!r}")
    if top_p is not None and (isinstance(top_p, bool) or not isinstance(top_p, (int, float)) or not 0 < top_p <= 1):
        raise InvalidParameterError(f"top_p must be in (0, 1], got {top_p!r}")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or temperature <= 0:
        raise InvalidParameterError(f"temperature must be > 0, got {temperature!r}")
    if seeds is not None and len(seeds) != count:
        raise InvalidParameterError(f"seeds must have one seed per prompt: {len(seeds)} seeds for {count} prompts")
