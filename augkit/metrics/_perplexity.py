"""Perplexity of texts under a causal language model, batched, plus the geometric mean
and standard deviation to summarise it.

Scoring is :meth:`augkit.models.CausalLM.token_logprobs`, the runtime every causal-LM
user shares (token-budget batches, results independent of the batch); torch and
transformers are imported on first use, and a model is loaded once per (model, device) in
a process.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from augkit.errors import InvalidParameterError
from augkit.steps.params import check_texts

if TYPE_CHECKING:
    import numpy as np

#: The model Chevasson et al. (2022) score fluency with.
DEFAULT_PERPLEXITY_MODEL = "distilgpt2"


def perplexity(
    texts: Sequence[str],
    model: str = DEFAULT_PERPLEXITY_MODEL,
    *,
    batch_size: int = 16,
    device: str = "cpu",
    add_start_token: bool = True,
) -> np.ndarray:
    """Perplexity of each text under a causal language model: a float64 numpy array, one
    value per text, in input order.

    PPL(x) = exp(-(1/T) * sum_{t=1..T} log p(x_t | x_<t)), the exponential of the mean
    negative log-likelihood of the text's T tokens. With ``add_start_token`` (default) the
    tokenizer's BOS token (or EOS, GPT-2's <|endoftext|>) is put first so that the first
    word is scored too; otherwise the first token is only context. A text with no token to
    score (empty, or one token without a start token) gets NaN. Texts longer than the
    model's context are cut to it (a warning says how many).

    ``model`` is a Hugging Face model id (from the local cache when offline) or a local
    directory saved with ``save_pretrained``. It is loaded with
    ``AutoModelForCausalLM.from_pretrained(model, use_safetensors=True,
    trust_remote_code=False)``: safetensors weights only, never code from the model
    repository. Scoring is :meth:`augkit.models.CausalLM.token_logprobs`: texts are sorted
    by length and batched with texts of the same padded length (at most ``batch_size`` per
    forward pass), right-padded, with an attention mask and the padding left out of the
    loss, so the values do not depend on the batch size (up to float rounding).

    Aggregating: perplexities are skewed; Chevasson et al., 2022 (dist-2's paper) report
    the geometric mean and standard deviation (the mean and std of log PPL, exponentiated):
    :func:`geometric_mean` and :func:`geometric_std`.

    Raises :class:`~augkit.errors.ModelNotAvailableError` when the model is neither a local
    directory nor in the Hugging Face cache (and cannot be downloaded), and
    :class:`~augkit.errors.MissingDependencyError` without torch or transformers.
    """
    import numpy as np

    items = check_texts("texts", texts)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidParameterError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    if not items:
        return np.full(0, np.nan, dtype=np.float64)
    mean_logprobs = _runtime(model, device).mean_logprob(items, add_start_token=add_start_token, batch_size=batch_size)
    return np.exp(-np.asarray(mean_logprobs, dtype=np.float64))


def geometric_mean(values: Iterable[float]) -> float:
    """exp(mean(log v)) over the finite values (NaN, from texts with nothing to score, are
    left out): the average of perplexities that Chevasson et al., 2022 report."""
    logs = _finite_logs(values)
    return math.exp(sum(logs) / len(logs))


def geometric_std(values: Iterable[float]) -> float:
    """exp(std(log v)) (population std) over the finite values: a multiplicative spread,
    1.0 when all values are equal."""
    logs = _finite_logs(values)
    mean = sum(logs) / len(logs)
    return math.exp(math.sqrt(sum((x - mean) ** 2 for x in logs) / len(logs)))


def _finite_logs(values: Iterable[float]) -> list[float]:
    logs = []
    for value in values:
        value = float(value)
        if math.isnan(value):
            continue
        if value <= 0 or math.isinf(value):
            raise InvalidParameterError(f"geometric mean needs positive finite values, got {value!r}")
        logs.append(math.log(value))
    if not logs:
        raise InvalidParameterError("geometric mean of no values (all empty or NaN)")
    return logs


def _runtime(model: str, device: str) -> Any:
    if not isinstance(model, str) or not model.strip():
        raise InvalidParameterError(f"model must be a model id or a directory, got {model!r}")
    from augkit.models.loading import load_causal_lm as load_runtime

    return load_runtime(model, device=device, dtype="float32")


def load_causal_lm(model: str, device: str = "cpu") -> tuple[Any, Any]:
    """``(tokenizer, model)`` of the shared :class:`~augkit.models.CausalLM` for a causal LM
    id or directory (or a folder under ``$AUGKIT_MODEL_DIR``), in eval mode on ``device``:
    kept for callers of this module; new code uses :func:`augkit.models.load_causal_lm`."""
    runtime = _runtime(model, device)
    return runtime.tokenizer, runtime.model
