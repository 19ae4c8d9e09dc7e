"""The messages for models that cannot be loaded, whatever library loads them: one model a
loader failed on (:func:`model_not_available_message`), or every model a run needs and lacks
(:func:`augkit.models.needs.missing_models_message`), each with how to provide it."""

from __future__ import annotations

import os
from collections.abc import Sequence

from augkit.models.hub_access import hub_unavailable, offline_setting

#: What a model folder must hold for augkit's loaders (safetensors only, no remote code).
FOLDER_CONTENTS = "config.json, the tokenizer files and model.safetensors (save_pretrained)"


def model_not_available_message(model: str, kind: str, error: BaseException, *, alternative: str | None = None) -> str:
    """Say which ``kind`` of model (``"sentence-transformers"``, ``"causal language"`` ...)
    named ``model`` could not be loaded, the first line of why, and how to provide it;
    ``alternative`` adds one more way (e.g. a package that ships the model)."""
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    looks_like_path = os.path.isabs(model) or model.startswith((".", "~"))
    if looks_like_path and not os.path.exists(os.path.expanduser(model)):
        reason = "no such directory"  # not the hub's "couldn't connect", which says nothing here
    lines = [f"{kind} model {model!r} is not available: {reason}"]
    if looks_like_path or os.path.exists(model):
        lines.append(f"  a model directory must hold {FOLDER_CONTENTS}")
        return "\n".join(lines)
    why_not_downloaded = hub_unavailable()
    if why_not_downloaded and why_not_downloaded not in reason:
        lines[0] += f" ({why_not_downloaded})"
    name, _, revision = model.partition("@")
    lines += ways_to_provide([(name, revision or None)], "pass a local directory that holds the model (saved with "
                             "save_pretrained, safetensors weights)", alternative)
    return "\n".join(lines)


def ways_to_provide(models: Sequence[tuple[str, str | None]], local_folder: str, *alternatives: str | None) -> list[str]:
    """The lines saying how to provide hub ``models`` (``(id, revision)``) on a machine without
    the hub: the download command for each, run where the hub is reachable, and where to put
    the folders; ``local_folder`` says how to pass a folder instead, ``alternatives`` add
    other ways."""
    lines = [
        f"  provide {'each' if len(models) > 1 else 'it'} in one of these ways:",
        f"  - {local_folder}",
        "  - or download it on a machine with network and copy the folder here, into a folder that AUGKIT_MODEL_DIR "
        f"names (it may name several, separated by {os.pathsep!r}):",
        *(f"      hf download {name}{f' --revision {revision}' if revision else ''} --local-dir models/{name}"
          for name, revision in models),
        "    then set AUGKIT_MODEL_DIR=/path/to/models",
        "  - or copy a Hugging Face cache (HF_HOME) that holds it from a machine with network",
    ]
    lines += [f"  - {alternative}" for alternative in alternatives if alternative]
    why_not_downloaded = hub_unavailable()
    if why_not_downloaded and not offline_setting():
        lines.append("  (HF_HUB_OFFLINE=1 skips even the one try of the hub)")
    return lines


def package_of(hub_id: str) -> str | None:
    """The distribution that carries ``hub_id`` (:data:`augkit.models.spec.PACKAGED_MODELS`), if any."""
    from augkit.models.spec import PACKAGED_MODELS

    entry = PACKAGED_MODELS.get(hub_id)
    return entry[0].replace("_", "-") if entry else None
