"""Whether the Hugging Face hub may be asked for a model now, asked at most once per run.

huggingface_hub retries a request that gets no answer (``http_backoff``: 5 retries, waits of
1, 2, 4, 8 and 8 s), and loading a model asks for several files: with the hub unreachable, a
first ``load_seq2seq("t5-small")`` took 50.9 s before it failed (DNS failing at once). augkit asks the hub itself
first, once, without retries and with a short timeout (:data:`HUB_TRY_SECONDS`); when that gets
no answer, the rest of the run (:func:`forget_hub_answer` starts one) never touches the network
again and every missing model is named at once instead.

Pure Python until a question is asked: huggingface_hub is imported then, never at import.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

#: Variables that turn the hub off, as huggingface_hub reads them (``TRANSFORMERS_OFFLINE`` is
#: transformers' older name for the same switch).
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
#: The values huggingface_hub takes as true (``constants.ENV_VARS_TRUE_VALUES``).
_TRUE = frozenset({"1", "ON", "YES", "TRUE"})
#: Seconds the one try may take to get an answer. The hub answers a HEAD in well under a
#: second from a connected machine; a network that drops packets instead of refusing them
#: would otherwise hold the run for huggingface_hub's 10 s per attempt.
HUB_TRY_SECONDS = 5.0

_lock = threading.Lock()
#: Why the hub could not be reached in this run (None: not tried, or it answered).
_unreachable: str | None = None


def offline_setting() -> str | None:
    """The variable that turns the hub off (``HF_HUB_OFFLINE=1``), as it is set, or None."""
    for name in OFFLINE_VARIABLES:
        value = os.environ.get(name, "")
        if value.strip().upper() in _TRUE:
            return f"{name}={value.strip()}"
    return None


def hub_unavailable() -> str | None:
    """Why the hub may not be asked now, in words, or None when it may: an offline setting in
    force (``not downloaded: HF_HUB_OFFLINE=1 is set``), or why this run's one try got no
    answer (``the Hugging Face hub cannot be reached (tried once: ...)``)."""
    setting = offline_setting()
    if setting:
        return f"not downloaded: {setting} is set"
    if _unreachable is not None:
        return f"the Hugging Face hub cannot be reached (tried once: {_unreachable})"
    return None


@dataclass(frozen=True)
class HubAnswer:
    """What the hub said about a model: ``found`` when it holds the model's ``config.json``
    at the revision, otherwise ``why`` says what is wrong (no answer, no such model, ...)."""

    found: bool
    why: str = ""
    #: True when the hub could not be asked at all (offline, or no answer this run).
    unreachable: bool = False


def ask_hub(repo_id: str, revision: str | None = None) -> HubAnswer:
    """Ask the hub (once, no retries) whether it holds ``repo_id`` at ``revision``. A first
    question that gets no answer marks the hub unreachable for the rest of the run, so that
    later questions and loads are answered without the network."""
    global _unreachable
    why = hub_unavailable()
    if why:
        return HubAnswer(False, why, unreachable=True)
    try:
        status = _head_config(repo_id, revision)
    except Exception as error:  # noqa: BLE001 -- any failure to get an answer is the network's
        reason = _first_line(error)
        with _lock:
            _unreachable = reason
        return HubAnswer(False, hub_unavailable() or reason, unreachable=True)
    if status >= 500:
        with _lock:
            _unreachable = f"it answered {status}"
        return HubAnswer(False, hub_unavailable() or _unreachable, unreachable=True)
    at = f" at revision {revision!r}" if revision else ""
    if status < 400:
        return HubAnswer(True)
    if status == 404:
        return HubAnswer(False, f"the hub has no model {repo_id!r}{at} (check the name)")
    if status in (401, 403):
        return HubAnswer(False, f"the hub refuses {repo_id!r}{at}: no such model, or a private or gated one "
                                "(log in with `hf auth login` or set HF_TOKEN)")
    return HubAnswer(True)  # another answer (429, ...): the hub is there; the download will say more


def may_download(repo_id: str, revision: str | None = None) -> None:
    """Raise :class:`OSError` saying why ``repo_id`` cannot be downloaded now, unless the hub
    holds it: asked here first (no retries; not at all once a try of this run got no answer,
    or with an offline setting), so that a loader's own retries never meet an unreachable hub."""
    answer = ask_hub(repo_id, revision)
    if not answer.found:
        raise OSError(f"not in the Hugging Face cache, and {answer.why}" if answer.unreachable else answer.why)


def note_unreachable(error: BaseException) -> None:
    """Remember that a download in this run failed to reach the hub (a loader's own try, when
    it got further than :func:`ask_hub`), so that later loads do not try again."""
    global _unreachable
    with _lock:
        _unreachable = _first_line(error)


def forget_hub_answer() -> None:
    """Start a new run: the next question asks the hub again (a network that came back is
    used; one that went is found out again, once)."""
    global _unreachable
    with _lock:
        _unreachable = None


def in_hub_cache(repo_id: str, revision: str | None = None) -> bool:
    """Whether the local Hugging Face cache (``$HF_HOME``) holds ``repo_id``'s ``config.json``
    at ``revision``; never touches the network."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    try:
        return isinstance(try_to_load_from_cache(repo_id, "config.json", revision=revision), str)
    except ValueError:  # not a valid repository id: it cannot be in the cache
        return False


def _head_config(repo_id: str, revision: str | None) -> int:
    """The status of a HEAD on ``repo_id``'s ``config.json`` (redirects not followed: one
    request, to the hub alone)."""
    from huggingface_hub import constants
    from huggingface_hub.utils import build_hf_headers, get_session

    url = constants.HUGGINGFACE_CO_URL_TEMPLATE.format(repo_id=repo_id, revision=_quoted(revision or "main"),
                                                       filename="config.json")
    response = get_session().head(url, headers=build_hf_headers(), follow_redirects=False, timeout=HUB_TRY_SECONDS)
    return response.status_code


def _quoted(revision: str) -> str:
    from urllib.parse import quote

    return quote(revision, safe="")


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
