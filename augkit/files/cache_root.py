"""Where augkit keeps what it can rebuild: ``$AUGKIT_CACHE_DIR``, else ``~/.cache/augkit``.

Each user of the cache has its own subfolder (``llm`` for chat replies, ``ctranslate2`` for
converted models); deleting any of them costs only the time to rebuild it.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable naming augkit's cache root.
CACHE_DIR_ENV = "AUGKIT_CACHE_DIR"


def cache_folder(name: str) -> Path:
    """``$AUGKIT_CACHE_DIR/<name>``, else ``~/.cache/augkit/<name>`` (not created here)."""
    root = os.environ.get(CACHE_DIR_ENV)
    base = Path(root).expanduser() if root else Path.home() / ".cache" / "augkit"
    return base / name
