"""Score each candidate's fluency under a causal language model; keep every candidate."""

from __future__ import annotations

import math

from augkit.candidate import Candidate
from augkit.errors import InvalidParameterError
from augkit.filters.base import BatchContext
from augkit.filters.scorer import Scorer

#: The language model ``fluency`` scores with unless told otherwise: GPT-2 small, the model
#: ParaMac scores fluency with.
DEFAULT_FLUENCY_MODEL = "gpt2"
#: What the score is on (see :class:`FluencyScorer`).
FLUENCY_SCALES = ("logprob", "paramac")


def paramac_fluency(mean_logprob: float) -> float:
    """ParaMac's released code's fluency, ``sigmoid(4 / perplexity) - 0.5`` with perplexity
    ``exp(-mean_logprob)``: 0.5 at perplexity 0, 0.0 as it grows (NaN stays NaN).

    >>> round(paramac_fluency(-math.log(40.0)), 4)  # perplexity 40
    0.025
    """
    if math.isnan(mean_logprob):
        return math.nan
    return 1.0 / (1.0 + math.exp(-4.0 * math.exp(mean_logprob))) - 0.5


class FluencyScorer(Scorer):
    """Adds the score ``fluency`` (how fluent a candidate reads) and keeps every candidate.

    The score is the mean per-token log-probability (natural log) of the candidate under a
    causal language model, after the model's start token. Higher is more
    fluent (0 is the ceiling; ``exp(-fluency)`` is the perplexity). Keeps every candidate:
    a ranker such as ``top_k`` then weighs the score. An empty candidate scores NaN.

    The model is loaded on first use (never in ``__init__``), once per process, so the step
    pickles light to worker processes; each batch's candidates are scored in one batched
    call whose results do not depend on the batch.

    Parameters
    ----------
    model : str
        A causal LM: hub id (``id@revision``), directory, or folder under
        ``$AUGKIT_MODEL_DIR`` (safetensors weights, no remote code). Default ``gpt2``.
    device : str
        Where to run it: ``cpu``, ``cuda``, ``cuda:N`` or ``auto``.
    scale : str
        ``logprob`` (default): the mean token log-probability. ``paramac``: ParaMac's
        released code's ``sigmoid(4 / perplexity) - 0.5`` of it (0 to 0.5, higher is more
        fluent), the scale its ranking weights 4.0 / 8.0 / 1.2 were set on.
    """

    name = "fluency"
    scores = ("fluency",)
    uses_model = True  # a causal language model

    def __init__(self, model: str = DEFAULT_FLUENCY_MODEL, device: str = "cpu", scale: str = "logprob"):
        if not isinstance(model, str) or not model.strip():
            raise InvalidParameterError(f"fluency: model must be a causal language model id or directory, got {model!r}")
        if not isinstance(device, str) or not device.strip():
            raise InvalidParameterError(f"fluency: device must be 'cpu', 'cuda', 'cuda:N' or 'auto', got {device!r}")
        if scale not in FLUENCY_SCALES:
            raise InvalidParameterError(f"fluency: scale must be one of {', '.join(FLUENCY_SCALES)}, got {scale!r}")
        self.model = model
        self.device = device
        self.scale = scale

    def score_batch(self, sources: list[str], candidates: list[list[Candidate]], context: BatchContext) -> list[list[float]]:
        """Every candidate of the batch scored in one batched call."""
        texts = [candidate.text for row in candidates for candidate in row]
        if not texts:
            return [[] for _ in candidates]
        from augkit.models.loading import load_causal_lm

        logprobs = load_causal_lm(self.model, device=self.device).mean_logprob(texts)
        values = iter(logprobs if self.scale == "logprob" else map(paramac_fluency, logprobs))
        return [[next(values) for _ in row] for row in candidates]
