"""Hugging Face seq2seq models converted for CTranslate2, once, into augkit's cache.

A model (hub id, ``id@revision``, folder, ``$AUGKIT_MODEL_DIR``) is resolved to its local
files as the transformers engine resolves it, converted with CTranslate2's own converter
(``ctranslate2.converters.TransformersConverter``) into
``$AUGKIT_CACHE_DIR/ctranslate2/<name>-<digest>-<quantization>``, and reused afterwards.
The digest is of the source's own files (weights, configuration, tokenizer), so a changed
or re-downloaded model is converted again, and two revisions never share a folder. The
converted folder also holds the tokenizer and the model's configuration, so it is complete
on its own. A conversion is written to a temporary folder and renamed into place: a killed
conversion leaves no half folder that a later run would trust.

A folder that is already a CTranslate2 model (``model.bin`` beside ``config.json``) is used
as it is.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from augkit.errors import MissingDependencyError, ModelNotAvailableError
from augkit.files.cache_root import cache_folder
from augkit.models.hub_access import may_download
from augkit.models.spec import ModelSource

CACHE_NAME = "ctranslate2"
INSTALL = 'pip install "augkit[ctranslate2]"'
#: Files of a source model whose bytes decide its digest (the ones present are read).
DIGESTED = ("config.json", "generation_config.json", "model.safetensors", "model.safetensors.index.json",
            "tokenizer.json", "tokenizer_config.json", "spiece.model", "source.spm", "target.spm", "vocab.json",
            "sentencepiece.bpe.model", "special_tokens_map.json")
#: What the quantization of a stored conversion is for each compute type asked for: int8
#: types are stored in int8 (a quarter of the disk); the others in float32, quantized (or
#: not) when loaded.
STORED_AS = {"int8": "int8", "int8_float32": "int8", "int8_float16": "int8", "int8_bfloat16": "int8"}


def is_ctranslate2_folder(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a CTranslate2 model folder (``model.bin`` and ``config.json``)."""
    folder = Path(path)
    return (folder / "model.bin").is_file() and (folder / "config.json").is_file()


def converted_model(source: ModelSource, compute_type: str) -> Path:
    """The CTranslate2 folder of ``source`` for ``compute_type``: the given folder when it
    already is one, else the cached conversion (made now when missing)."""
    folder = local_folder(source)
    if is_ctranslate2_folder(folder):
        return folder
    quantization = STORED_AS.get(compute_type, "float32")
    target = cache_folder(CACHE_NAME) / f"{_slug(str(source.spec))}-{source_digest(folder)}-{quantization}"
    if not is_ctranslate2_folder(target):
        _convert(folder, target, quantization)
    return target


def local_folder(source: ModelSource) -> Path:
    """The folder holding ``source``'s files: itself, or its snapshot in the Hugging Face
    cache (downloaded first when the hub is reachable and allowed)."""
    if source.local:
        return Path(source.location)
    try:
        from huggingface_hub import snapshot_download
    except ImportError as error:
        raise MissingDependencyError(f"converting a hub model for CTranslate2 needs huggingface_hub: {INSTALL}") from error
    try:
        return Path(snapshot_download(source.location, revision=source.revision, local_files_only=True))
    except Exception:  # noqa: BLE001 -- not cached: ask the hub, once per run (it says why not)
        try:
            may_download(source.location, source.revision)
        except OSError as error:
            raise ModelNotAvailableError(_not_available(source, str(error))) from None
    try:
        return Path(snapshot_download(source.location, revision=source.revision))
    except Exception as error:  # noqa: BLE001 -- any download failure is the model's availability
        raise ModelNotAvailableError(_not_available(source, str(error).splitlines()[0] if str(error) else type(error).__name__)) from None


def source_digest(folder: Path) -> str:
    """16 hex digits of SHA-256 over the names and bytes of the model's :data:`DIGESTED` files."""
    digest = hashlib.sha256()
    for name in DIGESTED:
        path = folder / name
        if path.is_file():
            digest.update(name.encode() + b"\0")
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:16]


def _convert(folder: Path, target: Path, quantization: str) -> None:
    try:
        from ctranslate2.converters import TransformersConverter
    except ImportError as error:
        raise MissingDependencyError(f"runtime='ctranslate2' needs the ctranslate2 package: {INSTALL}") from error
    from transformers import AutoConfig, AutoTokenizer, GenerationConfig

    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        TransformersConverter(str(folder), trust_remote_code=False).convert(
            str(staging / "model"), quantization=None if quantization == "float32" else quantization, force=True)
        AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False).save_pretrained(str(staging / "model"))
        hf_config = AutoConfig.from_pretrained(str(folder), trust_remote_code=False)
        hf_config.to_json_file(str(staging / "model" / "hf_config.json"))
        try:
            GenerationConfig.from_pretrained(str(folder)).save_pretrained(str(staging / "model"))
        except OSError:
            GenerationConfig.from_model_config(hf_config).save_pretrained(str(staging / "model"))
        try:
            os.replace(staging / "model", target)
        except OSError:  # another process converted it meanwhile: theirs is as good
            if not is_ctranslate2_folder(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).name if os.sep in name else name.replace("/", "--"))[:80]


def _not_available(source: ModelSource, reason: str) -> str:
    return (f"seq2seq model {str(source.spec)!r} is not available for CTranslate2: {reason}. Download it where the hub "
            "is reachable, give a local folder (or $AUGKIT_MODEL_DIR/<name>), or give a folder converted with "
            "ct2-transformers-converter")
