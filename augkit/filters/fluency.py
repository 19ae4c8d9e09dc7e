"""Score each candidate's fluency under a causal language model; keep every candidate."""

from __future__ import annotations

import math

from augkit.errors import InvalidParameterError
from augkit.filters.scorer import Scorer, check_model_and_device
from augkit.models.needs import ModelNeed

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
        Where to run it: ``auto`` (default: CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
    scale : str
        ``logprob`` (default): the mean token log-probability. ``paramac``: ParaMac's
        released code's ``sigmoid(4 / perplexity) - 0.5`` of it (0 to 0.5, higher is more
        fluent), the scale its ranking weights 4.0 / 8.0 / 1.2 were set on.
    """

    name = "fluency"
    scores = ("fluency",)
    uses_model = True  # a causal language model

    def __init__(self, model: str = DEFAULT_FLUENCY_MODEL, device: str = "auto", scale: str = "logprob"):
        check_model_and_device("fluency", model, device, "a causal language model")
        if scale not in FLUENCY_SCALES:
            raise InvalidParameterError(f"fluency: scale must be one of {', '.join(FLUENCY_SCALES)}, got {scale!r}")
        self.model = model
        self.device = device
        self.scale = scale

    def required_models(self) -> list[ModelNeed]:
        return [ModelNeed(self.model, "causal", "model", "fluency")]

    def score_pairs(self, sources: list[str], texts: list[str]) -> list[float]:
        """Every candidate of the batch scored in one batched call."""
        from augkit.models.loading import load_causal_lm

        logprobs = load_causal_lm(self.model, device=self.device).mean_logprob(texts)
        return logprobs if self.scale == "logprob" else [paramac_fluency(value) for value in logprobs]
