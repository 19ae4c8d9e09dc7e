"""A disk cache of chat replies, so that re-runs and ``--resume`` cost no request.

An entry is keyed by the server's ``base_url``, the ``model`` and the request's own key
(:meth:`augkit_llm.client.ChatRequest.key`: messages, sampling settings, seed), and holds the
reply's text and token usage: one small JSON file per entry, under a subfolder named by the
first two hex digits of its key so that no folder grows past a few thousand files. Entries are
written to a temporary file and renamed into place, so a reader sees a whole entry or none; an
entry that does not read back (truncated, edited, from an older format) is a miss and is
overwritten by the next ``put``. Nothing secret is stored: no API key, no base_url (it may hold
credentials), only a hash of them.

>>> cache = ResponseCache(tmp_folder)                                    # doctest: +SKIP
>>> cache.put("http://127.0.0.1:8000/v1", "qwen", request, CachedReply("[\\"hi\\"]", 12, 3))  # doctest: +SKIP
>>> cache.get("http://127.0.0.1:8000/v1", "qwen", request).text          # doctest: +SKIP
'["hi"]'
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import NamedTuple, Protocol

from augkit.plugin import CACHE_DIR_ENV, cache_folder

__all__ = ["CACHE_DIR_ENV", "CachedReply", "ResponseCache", "default_cache_folder"]

class ChatRequest(Protocol):
    """What the cache needs of a request (:class:`augkit_llm.client.ChatRequest`, which
    imports this module): its stable key."""

    def key(self) -> str: ...


#: Bumped when an entry's layout changes, so that older entries read as misses.
ENTRY_FORMAT = 1


class CachedReply(NamedTuple):
    """A stored reply: its text and the tokens the request cost when it was made."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


def default_cache_folder() -> Path:
    """``$AUGKIT_CACHE_DIR/llm``, else ``~/.cache/augkit/llm``."""
    return cache_folder("llm")


class ResponseCache:
    """Chat replies on disk under ``folder`` (default :func:`default_cache_folder`), one JSON
    file per (base_url, model, request); safe to share between threads and processes."""

    def __init__(self, folder: str | os.PathLike[str] | None = None):
        self.folder = Path(folder).expanduser() if folder is not None else default_cache_folder()

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.folder)!r})"

    def entry_path(self, base_url: str, model: str, request: ChatRequest) -> Path:
        """The file that holds (or would hold) the reply to ``request`` from ``model`` at
        ``base_url`` (a trailing slash on base_url does not matter)."""
        identity = json.dumps([ENTRY_FORMAT, base_url.rstrip("/"), model, request.key()], ensure_ascii=False)
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()
        return self.folder / digest[:2] / f"{digest}.json"

    def get(self, base_url: str, model: str, request: ChatRequest) -> CachedReply | None:
        """The stored reply, or None when there is none or it does not read back whole."""
        path = self.entry_path(base_url, model, request)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or entry.get("format") != ENTRY_FORMAT:
            return None
        text, prompt_tokens, completion_tokens = (entry.get(k) for k in ("text", "prompt_tokens", "completion_tokens"))
        if not isinstance(text, str) or not all(_is_count(n) for n in (prompt_tokens, completion_tokens)):
            return None
        return CachedReply(text, prompt_tokens, completion_tokens)

    def put(self, base_url: str, model: str, request: ChatRequest, reply: CachedReply) -> Path:
        """Stores ``reply`` atomically (replacing any entry, a corrupt one included) and
        returns its file."""
        path = self.entry_path(base_url, model, request)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {
            "format": ENTRY_FORMAT,
            "text": reply.text,
            "prompt_tokens": int(reply.prompt_tokens),
            "completion_tokens": int(reply.completion_tokens),
        }
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(entry, file, ensure_ascii=False)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return path


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
