"""Device and dtype choices for model loading (``auto`` picks CUDA when present): the one
place every model family asks. Seeding torch for a generation is :func:`augkit.seeding.seeded_torch`."""

from __future__ import annotations

from typing import Any

from augkit.errors import InvalidParameterError

#: dtype names accepted by :func:`resolve_dtype`.
DTYPES = ("auto", "float32", "float16", "bfloat16")


def resolve_device(device: str) -> str:
    """``"auto"`` -> ``"cuda"`` when torch sees a GPU, else ``"cpu"``; other strings
    (``"cpu"``, ``"cuda:1"``, ``"mps"``) are passed to torch as they are."""
    if not isinstance(device, str) or not device.strip():
        raise InvalidParameterError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device == "auto":
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def resolve_dtype(dtype: str, device: str) -> Any:
    """The torch dtype for ``dtype``: ``"auto"`` is float16 on CUDA and float32 elsewhere
    (half precision is slow or unsupported on most CPUs)."""
    if dtype not in DTYPES:
        raise InvalidParameterError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    import torch

    if dtype == "auto":
        return torch.float16 if device.startswith("cuda") else torch.float32
    return getattr(torch, dtype)
