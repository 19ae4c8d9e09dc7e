"""Seeded sampling on CTranslate2: augkit draws each token itself from the distribution
CTranslate2 computes.

CTranslate2's own sampler draws from one random generator per worker thread, seeded once when
the thread first samples, and ``translate_batch`` takes no seed: a row's samples could not
follow the row's seed. Here each step is one ``translate_batch`` call that decodes the tokens
drawn so far as a target prefix and returns the next position's logits
(``return_logits_vocab``); augkit applies temperature, top-k and top-p as transformers does
(and the minimum length and forced end) and draws with a generator seeded by the row's seed.
A row's samples therefore depend only on its seed, its input and the settings, never on the
other rows. The price is decoding the prefix again at every step (no key/value cache across
calls): ``max_new_tokens`` calls per input, each as long as the prefix so far.

The draws are numpy's, not torch's: the same seed gives other samples than the transformers
engine, with the same distribution.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class SamplingSettings:
    """How one call samples: ``top_k`` (0 or None: every token), ``top_p`` (1: every token),
    ``temperature``, the lengths (``max_new`` tokens at most, the end forbidden before
    ``min_new``), and the end-of-sequence token, forced at the last step when ``forced_end``."""

    top_k: int | None
    top_p: float
    temperature: float
    max_new: int
    min_new: int
    end_token: str
    forced_end: bool


def next_token_probabilities(logits: np.ndarray, settings: SamplingSettings) -> np.ndarray:
    """The distribution a token is drawn from: softmax of ``logits / temperature`` over the
    ``top_k`` likeliest tokens, then over the smallest set of them holding ``top_p`` of the
    mass (the token that crosses ``top_p`` included), as transformers' warpers do."""
    scaled = logits.astype(np.float64) / settings.temperature
    if settings.top_k:
        k = min(settings.top_k, scaled.size)
        threshold = np.partition(scaled, -k)[-k]
        scaled = np.where(scaled < threshold, -np.inf, scaled)
    probabilities = np.exp(scaled - scaled.max())
    probabilities /= probabilities.sum()
    if settings.top_p < 1.0:
        order = np.argsort(-probabilities, kind="stable")
        before = np.cumsum(probabilities[order]) - probabilities[order]  # mass of the likelier tokens
        dropped = order[before >= settings.top_p]
        probabilities[dropped] = 0.0
        probabilities /= probabilities.sum()
    return probabilities


def sample_sequences(
    step: Callable[[list[int], list[list[str]]], list[np.ndarray]],
    sources: int,
    num_return: int,
    settings: SamplingSettings,
    vocabulary: Sequence[str],
    seed: int | None,
) -> list[list[list[str]]]:
    """``num_return`` sampled token sequences (without the end token) for each of ``sources``
    inputs. ``step(inputs, prefixes)`` gives the next position's logits of each (input
    index, prefix) pair; draws come from one generator seeded by ``seed`` in a fixed order
    (input, then sequence, step by step), so the samples depend on nothing else."""
    rng = np.random.default_rng(seed)
    end = vocabulary.index(settings.end_token) if settings.end_token in vocabulary else None
    owners = [i for i in range(sources) for _ in range(num_return)]
    prefixes: list[list[str]] = [[] for _ in owners]
    active = list(range(len(owners)))
    for position in range(settings.max_new):
        if not active:
            break
        logits = step([owners[k] for k in active], [prefixes[k] for k in active])
        still: list[int] = []
        for k, row in zip(active, logits, strict=True):
            row = np.array(row, dtype=np.float64, copy=True)
            if end is not None and position < settings.min_new:
                row[end] = -np.inf
            if end is not None and settings.forced_end and position == settings.max_new - 1:
                token = end
            else:
                token = int(rng.choice(row.size, p=next_token_probabilities(row, settings)))
            if token == end:
                continue
            prefixes[k].append(vocabulary[token])
            still.append(k)
        active = still
    return [prefixes[i * num_return:(i + 1) * num_return] for i in range(sources)]


def logits_step(translator: Any, sources: list[list[str]], suppressed: list[list[str]] | None) -> Callable:
    """The ``step`` of :func:`sample_sequences` for a CTranslate2 translator: decodes each
    prefix (one token more, greedily, which is discarded) and returns the logits of the
    position after the prefix."""

    def step(inputs: list[int], prefixes: list[list[str]]) -> list[np.ndarray]:
        longest = max(len(prefix) for prefix in prefixes)
        results = translator.translate_batch(
            [sources[i] for i in inputs], target_prefix=prefixes, beam_size=1, max_decoding_length=longest + 1,
            min_decoding_length=0, return_logits_vocab=True, suppress_sequences=suppressed, max_input_length=0)
        return [np.asarray(result.logits[0][len(prefix)]) for result, prefix in zip(results, prefixes, strict=True)]

    return step
