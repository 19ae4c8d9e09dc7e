"""Load a model once per process and share it: cache keyed by (source, revision, kind,
device, dtype). Weights are safetensors only and no code from a model repository runs."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

from augkit.errors import (
    InvalidParameterError,
    MissingDependencyError,
    ModelNotAvailableError,
)
from augkit.models.availability import model_not_available_message
from augkit.models.device import resolve_device, resolve_dtype
from augkit.models.hub_access import may_download, note_unreachable
from augkit.models.needs import MODEL_KINDS
from augkit.models.spec import ModelSource, ModelSpec, resolve_model_source
from augkit.terminal.progress import third_party_bars

MODELS_EXTRA = 'pip install "augkit[models]"'

#: Attention kernel of loaded models. Measured here (torch 2.13 CPU): with ``sdpa`` the
#: same input decoded in a batch of 2 to 4 gets scores that differ in the last bits from
#: row to row, enough to reorder near-tied beams; with ``eager`` every row is bitwise
#: equal (given a row count that is a multiple of 4, see ``seq2seq.ROW_MULTIPLE``), so
#: outputs do not depend on the batch.
ATTENTION = "eager"

_cache: dict[tuple, Any] = {}
_lock = threading.Lock()


#: The engines a seq2seq model runs on (``load_seq2seq(..., runtime=...)``).
SEQ2SEQ_RUNTIMES = ("transformers", "ctranslate2")


@dataclass(frozen=True)
class Runtime:
    """What runs a method's seq2seq models, as its ``runtime``, ``compute_type`` and
    ``threads`` parameters say: a method keeps one and passes :meth:`options` to
    :func:`load_seq2seq`, so that a new runtime needs no change in the method."""

    name: str = "transformers"
    compute_type: str = "auto"
    threads: int | None = None

    def options(self) -> dict[str, Any]:
        """Keyword arguments of :func:`load_seq2seq`."""
        return {"runtime": self.name, "compute_type": self.compute_type, "threads": self.threads}


def load_seq2seq(spec: str | os.PathLike | ModelSpec, *, device: str = "auto", dtype: str = "auto",
                 runtime: str = "transformers", compute_type: str = "auto", threads: int | None = None):
    """The shared :class:`~augkit.models.seq2seq.Seq2SeqModel` for ``spec`` (a hub id, an
    ``id@revision``, or a directory saved with ``save_pretrained``), loaded on first use.

    ``runtime="ctranslate2"`` runs it in CTranslate2 instead of torch
    (:class:`~augkit.models.ct2_seq2seq.CTranslate2Seq2Seq`: converted once into augkit's
    cache, :mod:`augkit.models.ct2_conversion`; a CTranslate2 folder is used as it is), with
    ``compute_type`` (``auto``, ``int8``, ``int8_float32``, ``int16``, ``float32``) and
    ``threads`` (0 or None: CTranslate2 decides); ``dtype`` applies to the transformers
    runtime only.

    Raises :class:`~augkit.errors.ModelNotAvailableError` with one message saying how to
    provide the model when it is neither local nor cached and cannot be downloaded.
    """
    from augkit.models.seq2seq import Seq2SeqModel

    if runtime == "transformers":
        return _shared_runtime(spec, "seq2seq", Seq2SeqModel, device, dtype)
    if runtime != "ctranslate2":
        raise InvalidParameterError(f"runtime must be one of {', '.join(SEQ2SEQ_RUNTIMES)}, got {runtime!r}")
    from augkit.models.ct2_seq2seq import load_ctranslate2

    source = resolve_model_source(spec)
    device = resolve_device(device)
    key = (source.location, source.revision, "ctranslate2", device, compute_type, threads)
    with _lock:
        if key not in _cache:
            _cache[key] = load_ctranslate2(source, device, compute_type, threads)
        return _cache[key]


def load_masked_lm(spec: str | os.PathLike | ModelSpec, *, device: str = "auto", dtype: str = "auto"):
    """The shared :class:`~augkit.models.masked_lm.MaskedLM` (a ``bert-base-uncased``-shaped
    fill-mask model) for ``spec``; same resolution, sharing, safety and errors as
    :func:`load_seq2seq`."""
    from augkit.models.masked_lm import MaskedLM

    return _shared_runtime(spec, "masked", MaskedLM, device, dtype)


def load_causal_lm(spec: str | os.PathLike | ModelSpec, *, device: str = "auto", dtype: str = "auto"):
    """The shared :class:`~augkit.models.causal_lm.CausalLM` (a GPT-2-shaped language model)
    for ``spec``; same resolution, sharing, safety and errors as :func:`load_seq2seq`."""
    from augkit.models.causal_lm import CausalLM

    return _shared_runtime(spec, "causal", CausalLM, device, dtype)


def load_pair_classifier(spec: str | os.PathLike | ModelSpec, *, device: str = "auto", dtype: str = "auto"):
    """The shared :class:`~augkit.models.pair_classifier.PairClassifier` (an MNLI-shaped
    sequence-pair classifier) for ``spec``; same resolution, sharing, safety and errors as
    :func:`load_seq2seq`."""
    from augkit.models.pair_classifier import PairClassifier

    return _shared_runtime(spec, "pair", PairClassifier, device, dtype)


def _shared_runtime(spec: str | os.PathLike | ModelSpec, kind: str, runtime: type, device: str, dtype: str) -> Any:
    """One ``runtime(name, model, tokenizer, device)`` per (source, revision, kind, device,
    dtype) in this process, built around the shared pretrained model."""
    source = resolve_model_source(spec)
    device = resolve_device(device)
    key = (source.location, source.revision, f"{kind}-runtime", device, dtype)
    with _lock:
        if key not in _cache:
            model, tokenizer = _cached_pretrained(source, kind, device, dtype)
            _cache[key] = runtime(str(source.spec), model, tokenizer, device)
        return _cache[key]


def load_pretrained(spec: str | os.PathLike | ModelSpec, kind: str, *, device: str = "auto", dtype: str = "auto") -> tuple[Any, Any]:
    """``(model, tokenizer)`` of kind ``"seq2seq"``, ``"causal"`` (language model),
    ``"masked"`` (fill-mask), ``"pair"`` (sequence-pair classifier) or ``"token"`` (a bare
    encoder, ``AutoModel``: token embeddings) for ``spec``, in eval
    mode on ``device``, shared per process; same resolution, safety and errors as
    :func:`load_seq2seq`."""
    source = resolve_model_source(spec)
    device = resolve_device(device)
    with _lock:
        return _cached_pretrained(source, kind, device, dtype)


def load_for_training(spec: str | os.PathLike | ModelSpec, kind: str = "seq2seq", *, device: str = "cpu") -> tuple[Any, Any]:
    """A fresh ``(model, tokenizer)`` to fine-tune: not shared with the inference cache (its
    weights will change), in float32 and train mode; same resolution, safety and errors as
    :func:`load_seq2seq`."""
    device = resolve_device(device)
    model, tokenizer = _load_pretrained(resolve_model_source(spec), kind, device, resolve_dtype("float32", device))
    return model.train(), tokenizer


def _cached_pretrained(source: ModelSource, kind: str, device: str, dtype: str) -> tuple[Any, Any]:
    key = (source.location, source.revision, kind, device, dtype)
    if key not in _cache:
        _cache[key] = _load_pretrained(source, kind, device, resolve_dtype(dtype, device))
    return _cache[key]


def clear_model_cache() -> None:
    """Forget every loaded model (they are freed once nothing else holds them)."""
    with _lock:
        _cache.clear()


#: The transformers auto class of each kind of model (named in messages as
#: :data:`augkit.models.needs.MODEL_KINDS` says).
_AUTO_CLASSES = {
    "seq2seq": "AutoModelForSeq2SeqLM",
    "causal": "AutoModelForCausalLM",
    "masked": "AutoModelForMaskedLM",
    "pair": "AutoModelForSequenceClassification",
    "token": "AutoModel",
}


def _load_pretrained(source: ModelSource, kind: str, device: str, torch_dtype: Any) -> tuple[Any, Any]:
    if kind not in _AUTO_CLASSES:
        raise ValueError(f"kind must be one of {', '.join(_AUTO_CLASSES)}, got {kind!r}")
    auto_class, description = _AUTO_CLASSES[kind], MODEL_KINDS[kind]
    try:
        import transformers
    except ImportError as error:
        raise MissingDependencyError(f"{description} models need torch and transformers: {MODELS_EXTRA}") from error
    options = {"revision": source.revision, "trust_remote_code": False}
    try:
        with third_party_bars():
            tokenizer = _from_local_first(transformers.AutoTokenizer.from_pretrained, source, options)
            model = _from_local_first(
                getattr(transformers, auto_class).from_pretrained, source,
                {**options, "use_safetensors": True, "dtype": torch_dtype, "attn_implementation": ATTENTION},
            )
    except (OSError, ValueError) as error:
        raise ModelNotAvailableError(model_not_available_message(str(source.spec), description, error)) from error
    return model.to(device).eval(), tokenizer


def _from_local_first(load, source: ModelSource, options: dict) -> Any:
    """Load from the local cache without touching the network; only when that fails ask the
    hub, and only when it may be asked (:func:`augkit.models.hub_access.may_download`: once per run,
    no retries), so that a cached model never waits on a dead network and a missing one
    fails at once."""
    if source.local:
        return load(source.location, **options)
    try:
        return load(source.location, local_files_only=True, **options)
    except OSError:
        may_download(source.location, source.revision)
    try:
        return load(source.location, **options)
    except OSError as error:
        if _no_connection(error):
            note_unreachable(error)
        raise


def _no_connection(error: BaseException) -> bool:
    """Whether a download failed for want of the network (transformers words it "couldn't
    connect"), not because the hub lacks the model."""
    return "connect" in str(error).lower()
