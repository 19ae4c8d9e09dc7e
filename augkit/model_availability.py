"""The one message for a model that cannot be loaded, whatever library loads it."""

from __future__ import annotations

import os


def model_not_available_message(model: str, kind: str, error: BaseException, *, alternative: str | None = None) -> str:
    """Say which ``kind`` of model (``"sentence-transformers"``, ``"causal language"`` ...)
    named ``model`` could not be loaded, the first line of why, and how to provide it;
    ``alternative`` adds one more way (e.g. a package that ships the model)."""
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    looks_like_path = os.path.isabs(model) or model.startswith((".", "~"))
    if looks_like_path and not os.path.exists(os.path.expanduser(model)):
        reason = "no such directory"  # not the hub's "couldn't connect", which says nothing here
    lines = [f"{kind} model {model!r} is not available: {reason}"]
    if os.path.isabs(model) or model.startswith((".", "~")) or os.path.exists(model):
        lines.append("  a model directory must hold config.json, the tokenizer files and model.safetensors (save_pretrained)")
    else:
        lines += [
            "  provide it in one of these ways:",
            "  - pass a local directory that holds the model (saved with save_pretrained, safetensors weights)",
            f"  - or put that directory at $AUGKIT_MODEL_DIR/{model.partition('@')[0]} (AUGKIT_MODEL_DIR may list several folders)",
            "  - on a machine with network, download it into the Hugging Face cache (HF_HOME) and copy that cache here",
        ]
        if alternative:
            lines.append(f"  - {alternative}")
        lines.append("  (set HF_HUB_OFFLINE=1 to fail at once instead of retrying the network)")
    return "\n".join(lines)
