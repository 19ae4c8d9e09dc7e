"""Connecting to Ray for ``augkit augment --backend ray`` (extra ``augkit[ray]``)."""

from __future__ import annotations

from augkit.errors import MissingDependencyError

RAY_EXTRA = "the Ray backend needs ray: pip install 'augkit[ray]'"


def connect(address: str | None = None) -> None:
    """Join the Ray cluster at ``address`` (``ray://host:10001`` or ``host:6379``), or start a
    local Ray instance when there is none; nothing when this process is connected already."""
    try:
        import ray
    except ImportError as error:
        raise MissingDependencyError(RAY_EXTRA) from error
    if ray.is_initialized():
        return
    options = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address:
        ray.init(address=address, **options)
    else:
        ray.init(**options)
