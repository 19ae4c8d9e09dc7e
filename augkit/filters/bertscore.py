"""Score each candidate's BERTScore F1 against its source; keep every candidate."""

from __future__ import annotations

from augkit.errors import InvalidParameterError
from augkit.filters.scorer import Scorer, check_model_and_device
from augkit.metrics._bertscore import DEFAULT_BERTSCORE_MODEL
from augkit.models.needs import ModelNeed


class BertScoreScorer(Scorer):
    """Adds each candidate's BERTScore F1 against its source; drops nothing.

    The score ``bertscore`` is BERTScore (Zhang et al., 2020) with the source as reference.

    Each token of the candidate is matched to its most similar token of the source (cosine
    of contextual embeddings from one layer of ``model``) and the reverse; the F1 of those
    two averages is the score, as :func:`augkit.metrics.bertscore` computes it (the same
    numbers as the ``bert-score`` package, raw: not rescaled). Higher means closer in
    meaning and wording, 1.0 for a copy. ParaMac ranks its candidates with BERTScore as the
    semantic score. An empty candidate scores 0.

    The model is loaded on first use (never in ``__init__``), once per process, so the step
    pickles light to worker processes; each batch's candidates are scored in one batched
    call whose results do not depend on the batch.

    Parameters
    ----------
    model : str
        An encoder: hub id (``id@revision``), directory, folder under ``$AUGKIT_MODEL_DIR``
        or a sentence-transformers folder (safetensors weights, no remote code). Default
        ``roberta-large-mnli`` (:data:`~augkit.metrics.DEFAULT_BERTSCORE_MODEL`).
    layer : int, optional
        Hidden layer whose token embeddings are compared (0 is the embedding output). None:
        bert-score's tuned layer for the models it lists (19 for ``roberta-large-mnli``),
        else the model's last layer.
    device : str
        Where to run it: ``auto`` (default: CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
    """

    name = "bertscore"
    scores = ("bertscore",)
    uses_model = True  # an encoder's token embeddings

    def __init__(self, model: str = DEFAULT_BERTSCORE_MODEL, layer: int | None = None, device: str = "auto"):
        check_model_and_device("bertscore", model, device, "an encoder's")
        if layer is not None and (isinstance(layer, bool) or not isinstance(layer, int) or layer < 0):
            raise InvalidParameterError(f"bertscore: layer must be None or an integer >= 0 (0: the embedding output), got {layer!r}")
        self.model = model
        self.layer = layer
        self.device = device

    def required_models(self) -> list[ModelNeed]:
        return [ModelNeed(self.model, "token", "model", "BERTScore")]

    def score_pairs(self, sources: list[str], texts: list[str]) -> list[float]:
        """Every candidate of the batch scored against its source in one batched call."""
        from augkit.metrics import bertscore

        return [score.f1 for score in bertscore(texts, sources, model=self.model, layer=self.layer, device=self.device)]
