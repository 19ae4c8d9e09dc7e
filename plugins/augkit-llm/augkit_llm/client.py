"""Chat completions from any OpenAI-compatible server, in batches, with retries and a cache.

:class:`ChatClient` sends a list of :class:`ChatRequest` to ``base_url`` (vLLM, llama.cpp's
server, Ollama, text-generation-inference, ``transformers serve``, OpenAI) through the official
``openai`` client, at most ``concurrency`` at a time, and returns one :class:`ChatResult` per
request in the input order. Overload and transient faults (429, 5xx, timeouts, dropped
connections) are retried with exponential back-off and full jitter; a fault of the whole setup
(no server at base_url, an unknown model, a refused key) stops the call with a
:class:`~augkit.plugin.ModelNotAvailableError` that says what to check; a fault of one request
(an empty choice, a 400 for that prompt, a timeout on every attempt) is that row's
:attr:`ChatResult.problem`. The API key comes from an environment variable and is never part
of a message, a repr, a result or the cache.

>>> client = ChatClient("http://127.0.0.1:8000/v1", "Qwen/Qwen2.5-0.5B-Instruct")   # doctest: +SKIP
>>> [result] = client.complete([ChatRequest((("user", "Say hi as a JSON list."),), seed=1)])  # doctest: +SKIP
>>> result.text, result.problem                                                  # doctest: +SKIP
('["hi"]', None)
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import math
import os
import random
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from augkit.plugin import (
    InvalidParameterError,
    ModelNotAvailableError,
    check_int,
    unknown_name_message,
)
from augkit_llm.cache import CachedReply, ResponseCache

__all__ = [
    "ChatClient",
    "ChatRequest",
    "ChatResult",
    "ServerNotAvailableError",
    "UnknownModelError",
    "backoff_delay",
]

#: Sent as the bearer token when the key's environment variable is unset: local servers
#: (vLLM, llama.cpp, Ollama, transformers serve) ignore it, and the openai client refuses to
#: start without some key.
NO_KEY_PLACEHOLDER = "no-key"
#: Bumped when what a request sends changes, so that cached replies of older requests miss.
REQUEST_KEY_FORMAT = 1
#: How much of a server's error message a problem or an error repeats.
MAX_SERVER_MESSAGE = 200
#: Seconds to wait for the model list when explaining a 404 (the server just answered, so a
#: slow list means it is busy, not that it is missing).
MODEL_LIST_TIMEOUT = 10.0
#: Status codes worth another try: request timeout, too early, rate limited, and every 5xx.
RETRIED_STATUSES = frozenset({408, 425, 429})
#: Words of a 400/422 message that mean the model, not the prompt, is wrong (vLLM, Ollama and
#: OpenAI answer 404; some proxies answer 400 "invalid model", and transformers serve started
#: with a model answers 400 "Server is pinned to '<model>'; requested '<other>'.").
UNKNOWN_MODEL_HINTS = re.compile(r"model\b.*\b(not found|does not exist|no such)|invalid model|pinned to", re.I | re.S)
#: How far down a chain of exceptions to look for the reason a connection failed.
MAX_CAUSE_DEPTH = 10
BEARER = re.compile(r"(Bearer\s+)\S+", re.I)


class ServerNotAvailableError(ModelNotAvailableError):
    """No OpenAI-compatible server answered at ``base_url`` (after the retries), or it refused
    the API key."""


class UnknownModelError(ModelNotAvailableError):
    """The server at ``base_url`` does not serve ``model``; ``available`` lists what it does
    serve (empty when it would not say)."""

    def __init__(self, message: str, *, model: str, available: Sequence[str] = ()):
        super().__init__(message)
        self.model = model
        self.available = tuple(available)


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion to ask for: ``messages`` as ``(role, content)`` pairs, sampling
    settings and the ``seed`` sent to servers that honour it (OpenAI's ``seed`` field). One
    answer per request (``n`` is always 1): ask for several texts inside the one answer.

    >>> a = ChatRequest((("user", "Paraphrase: lost my card"),), temperature=0.7, seed=3)
    >>> a.key() == ChatRequest([["user", "Paraphrase: lost my card"]], temperature=0.7, seed=3).key()
    True
    >>> a.key() == ChatRequest((("user", "Paraphrase: lost my card"),), temperature=0.7, seed=4).key()
    False
    """

    messages: tuple[tuple[str, str], ...]
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = None

    def __post_init__(self):
        try:
            messages = tuple((role, content) for role, content in self.messages)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"messages must be (role, content) pairs, got {self.messages!r}") from None
        if not messages or not all(isinstance(r, str) and isinstance(c, str) for r, c in messages):
            raise InvalidParameterError(f"messages must be a non-empty sequence of (role, content) strings, got {self.messages!r}")
        object.__setattr__(self, "messages", messages)
        for name, low, high in (("temperature", 0.0, math.inf), ("top_p", 0.0, 1.0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise InvalidParameterError(f"{name} must be a number in [{low}, {high}], got {value!r}")
            object.__setattr__(self, name, float(value))
        check_int("max_tokens", self.max_tokens, 1)
        if self.seed is not None:
            check_int("seed", self.seed, 0)

    def key(self) -> str:
        """A stable hex sha256 of everything that decides the answer (messages, temperature,
        top_p, max_tokens, seed, n): equal requests have equal keys in every process."""
        canonical = {
            "format": REQUEST_KEY_FORMAT,
            "messages": [list(message) for message in self.messages],
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "n": 1,
        }
        text = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ChatResult:
    """The answer to one :class:`ChatRequest`: ``text`` (None when there is none, and then
    ``problem`` says why in a few words), the tokens it cost (0 when the server did not say),
    whether it came from the cache, how many requests it took (0 for a cache hit) and the
    server's ``finish_reason`` (``"length"``: cut at max_tokens)."""

    text: str | None
    problem: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    attempts: int = 0
    finish_reason: str | None = None

    @property
    def ok(self) -> bool:
        """True when the request gave a text."""
        return self.text is not None


def backoff_delay(attempt: int, initial: float, maximum: float, retry_after: float | None, rng: random.Random) -> float:
    """Seconds to wait after failed attempt ``attempt`` (1 for the first): the server's
    ``Retry-After`` when it gave one, else "full jitter" (uniform in ``[0, initial * 2 **
    (attempt - 1)]``, AWS Architecture Blog, "Exponential Backoff And Jitter", 2015); never
    more than ``maximum``."""
    if retry_after is not None:
        return max(0.0, min(retry_after, maximum))
    return rng.uniform(0.0, min(maximum, initial * 2 ** (attempt - 1)))


class _Stopped(Exception):
    """Another request of the same call failed for good; this one gives up."""


class _Failure:
    """Why the last attempt failed: the text for a problem, whether to retry, the server's
    Retry-After, and whether it was a connection that never happened."""

    def __init__(self, reason: str, *, retry: bool, retry_after: float | None = None, unreachable: bool = False):
        self.reason, self.retry, self.retry_after, self.unreachable = reason, retry, retry_after, unreachable


class ChatClient:
    """Sends :class:`ChatRequest` batches to the OpenAI-compatible server at ``base_url``.

    ``base_url`` is the API root (``http://127.0.0.1:8000/v1`` for vLLM and transformers
    serve, ``http://127.0.0.1:11434/v1`` for Ollama, ``https://api.openai.com/v1``); ``model``
    the served model's name. The key is read from the environment variable ``api_key_env``
    (unset: local servers need none). ``timeout`` bounds each request in seconds; failed
    requests are retried up to ``max_retries`` times after ``initial_backoff`` doubling up to
    ``max_backoff`` seconds (with full jitter, or the server's Retry-After); ``concurrency``
    requests are in flight at most. With a ``cache``, answered requests are stored and a
    repeated request is answered from it without contacting the server (only when its stored
    reply is one the caller can use, if :meth:`complete` is told how to tell).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 5,
        initial_backoff: float = 1.0,
        max_backoff: float = 30.0,
        concurrency: int = 4,
        cache: ResponseCache | None = None,
    ):
        if not isinstance(base_url, str) or urllib.parse.urlsplit(base_url).scheme not in ("http", "https"):
            raise InvalidParameterError(f"base_url must be an http(s) URL such as 'http://127.0.0.1:8000/v1', got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise InvalidParameterError(f"model must be the served model's name, got {model!r}")
        if not isinstance(api_key_env, str) or not api_key_env:
            raise InvalidParameterError(f"api_key_env must name an environment variable, got {api_key_env!r}")
        for name, value in (("timeout", timeout), ("initial_backoff", initial_backoff), ("max_backoff", max_backoff)):
            positive = name == "timeout"
            number = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
            if not number or value < 0 or (positive and value == 0):
                kind = "positive" if positive else "non-negative"
                raise InvalidParameterError(f"{name} must be a {kind}, finite number of seconds, got {value!r}")
        check_int("max_retries", max_retries, 0)
        check_int("concurrency", concurrency, 1)
        if cache is not None and not isinstance(cache, ResponseCache):
            raise InvalidParameterError(f"cache must be a ResponseCache or None, got {type(cache).__name__}")
        self.base_url = base_url
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max_retries
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.concurrency = concurrency
        self.cache = cache
        self._openai_client: Any = None
        self._secret = ""
        self._lock = threading.Lock()
        self._jitter = random.Random()

    def __repr__(self) -> str:
        return (
            f"ChatClient(base_url={self._url!r}, model={self.model!r}, api_key_env={self.api_key_env!r}, "
            f"timeout={self.timeout!r}, max_retries={self.max_retries!r}, initial_backoff={self.initial_backoff!r}, "
            f"max_backoff={self.max_backoff!r}, concurrency={self.concurrency!r}, cache={self.cache!r})"
        )

    @property
    def _url(self) -> str:
        """base_url as shown to people: a password in it (``http://user:pw@host``) hidden."""
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.password is None:
            return self.base_url
        netloc = parts.netloc.rsplit("@", 1)
        return urllib.parse.urlunsplit(parts._replace(netloc=f"{parts.username}:***@{netloc[-1]}"))

    def complete(self, requests: Sequence[ChatRequest], *, usable: Callable[[str], bool] | None = None) -> list[ChatResult]:
        """One :class:`ChatResult` per request, in the order given.

        ``usable``: whether a stored reply's text is one the caller can use (parse); a stored
        reply it refuses is not served but asked again, and the new reply replaces it in the
        cache (until then it stays there, for inspection). None serves every stored reply.

        Raises :class:`ServerNotAvailableError` when no server answers at base_url after the
        retries (or it refuses the key) and :class:`UnknownModelError` when it does not serve
        the model; requests answered before that are in the cache.
        """
        requests = list(requests)
        for request in requests:
            if not isinstance(request, ChatRequest):
                raise InvalidParameterError(f"complete() takes ChatRequest objects, got {type(request).__name__}")
        results: list[ChatResult | None] = [None] * len(requests)
        pending = []
        for index, request in enumerate(requests):
            stored = self.cache.get(self.base_url, self.model, request) if self.cache is not None else None
            if stored is None or (usable is not None and not usable(stored.text)):
                pending.append(index)
            else:
                results[index] = ChatResult(stored.text, None, stored.prompt_tokens, stored.completion_tokens, cached=True, attempts=0)
        if pending:
            stop = threading.Event()
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(pending)), thread_name_prefix="augkit-llm") as pool:
                futures = {pool.submit(self._complete_one, requests[index], stop): index for index in pending}
                done, _ = wait(futures, return_when=FIRST_EXCEPTION)
                failed = [future for future in futures if future.done() and not future.cancelled() and future.exception()]
                if failed:
                    stop.set()
                    pool.shutdown(wait=True, cancel_futures=True)
                    errors = [f.exception() for f in futures if f.done() and not f.cancelled() and f.exception()]
                    raise next((e for e in errors if not isinstance(e, _Stopped)), errors[0]) from None
                for future, index in futures.items():
                    results[index] = future.result()
        return results  # type: ignore[return-value]

    # -- one request ------------------------------------------------------------------------

    def _complete_one(self, request: ChatRequest, stop: threading.Event) -> ChatResult:
        failure = None
        attempts = 0
        for attempts in range(1, self.max_retries + 2):
            if stop.is_set():
                raise _Stopped()
            result, failure = self._attempt(request, attempts)
            if result is not None:
                if self.cache is not None and result.text is not None:
                    reply = CachedReply(result.text, result.prompt_tokens, result.completion_tokens)
                    self.cache.put(self.base_url, self.model, request, reply)
                return result
            if not failure.retry or attempts > self.max_retries:
                break
            delay = backoff_delay(attempts, self.initial_backoff, self.max_backoff, failure.retry_after, self._jitter)
            if stop.wait(delay):
                raise _Stopped()
        if failure.unreachable:
            raise ServerNotAvailableError(
                f"no LLM server answers at {self._url} ({failure.reason}; {attempts} attempts); check that the "
                f"server is running and that base_url is its OpenAI-compatible API root, "
                f"e.g. 'http://127.0.0.1:8000/v1'"
            )
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        return ChatResult(None, f"{failure.reason}{tries}", attempts=attempts)

    def _attempt(self, request: ChatRequest, attempt: int) -> tuple[ChatResult | None, _Failure | None]:
        """The result of one request, or why it failed; raises for faults of the whole setup."""
        import openai

        options: dict[str, Any] = {}
        if request.seed is not None:
            options["seed"] = request.seed
        try:
            response = self._client().chat.completions.create(
                model=self.model,
                messages=[{"role": role, "content": content} for role, content in request.messages],
                temperature=request.temperature,
                top_p=request.top_p,
                max_tokens=request.max_tokens,
                n=1,
                **options,
            )
        except openai.APITimeoutError:
            return None, _Failure(f"no answer within the {self.timeout:g} s timeout", retry=True)
        except openai.APIConnectionError as error:
            return None, _Failure(f"connection failed: {self._scrub(_cause_text(error))}", retry=True, unreachable=True)
        except openai.APIStatusError as error:
            return None, self._status_failure(error)
        return self._result(response, attempt), None

    def _status_failure(self, error: Any) -> _Failure:
        status = error.status_code
        message = self._scrub(_server_message(error))
        if status in RETRIED_STATUSES or status >= 500:
            return _Failure(f"the server answered {status}: {message}", retry=True, retry_after=_retry_after(error.response))
        if status in (401, 403):
            raise ServerNotAvailableError(
                f"the LLM server at {self._url} refused the request ({status}: {message}); check the API key "
                f"in the environment variable ${self.api_key_env}"
                + ("" if os.environ.get(self.api_key_env) else " (it is not set)")
            )
        if status == 404:
            raise self._unknown_model(status, message)
        if UNKNOWN_MODEL_HINTS.search(message):
            # Only a hint: believe it when the server's own list lacks the model, else the
            # 400 is this prompt's.
            served = self._served_models()
            if served is not None and self.model not in served:
                raise self._unknown_model(status, message, served)
        return _Failure(f"the server rejected the request ({status}: {message})", retry=False)

    def _unknown_model(self, status: int, message: str, served: tuple[str, ...] | None = None) -> ModelNotAvailableError:
        served = served if served is not None else self._served_models()
        if served is not None and self.model not in served:
            text = unknown_name_message("model", self.model, list(served), listing=f"models served at {self._url}")
            return UnknownModelError(f"{text}; check model= (the server said {status}: {message})", model=self.model, available=served)
        if served is None:
            return UnknownModelError(
                f"the LLM server at {self._url} answered {status} ({message}) for model {self.model!r} and did not list "
                f"its models; check model= and that base_url is the OpenAI-compatible API root (usually ending in /v1)",
                model=self.model,
            )
        return ServerNotAvailableError(
            f"the LLM server at {self._url} lists model {self.model!r} but answered {status} ({message}) to a chat "
            f"completion; check that base_url is the OpenAI-compatible API root (usually ending in /v1) and that "
            f"the model is a chat model"
        )

    def _served_models(self) -> tuple[str, ...] | None:
        """The ids of ``GET {base_url}/models``, sorted; None when it does not answer."""
        try:
            listing = self._client().models.list(timeout=min(self.timeout, MODEL_LIST_TIMEOUT))
            return tuple(sorted({str(model.id) for model in listing.data}))
        except Exception:  # noqa: BLE001 - only an explanation is at stake; the 404 is raised anyway
            return None

    def _result(self, response: Any, attempt: int) -> ChatResult:
        usage = getattr(response, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None) or 0
        completion_tokens = getattr(usage, "completion_tokens", None) or 0
        counts = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "attempts": attempt}
        choices = getattr(response, "choices", None) or []
        if not choices:
            return ChatResult(None, "the server returned no choice", **counts)
        choice = choices[0]
        finish_reason = getattr(choice, "finish_reason", None)
        content = getattr(getattr(choice, "message", None), "content", None)
        if content is None:
            return ChatResult(None, f"the reply has no text (finish_reason {finish_reason})", finish_reason=finish_reason, **counts)
        if not isinstance(content, str) or not content.strip():
            return ChatResult(None, "the reply is empty", finish_reason=finish_reason, **counts)
        return ChatResult(self._scrub(content, bearer=False), None, finish_reason=finish_reason, **counts)

    # -- the openai client and the key -------------------------------------------------------

    def _client(self) -> Any:
        with self._lock:
            if self._openai_client is None:
                try:
                    import openai
                except ImportError:
                    from augkit.plugin import MissingDependencyError

                    raise MissingDependencyError("augkit-llm needs the openai package: pip install openai") from None
                self._secret = os.environ.get(self.api_key_env, "").strip()
                self._openai_client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self._secret or NO_KEY_PLACEHOLDER,
                    timeout=self.timeout,
                    max_retries=0,
                )
            return self._openai_client

    def _scrub(self, text: str, *, bearer: bool = True) -> str:
        """``text`` without the API key, and (in the server's error messages, which may echo
        headers, not in a model's reply) without any bearer token."""
        if self._secret:
            text = text.replace(self._secret, "***")
        return BEARER.sub(r"\1***", text) if bearer else text


def _server_message(error: Any) -> str:
    """The server's own words for an error status, shortened."""
    body = getattr(error, "body", None)
    message = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") or inner.get("detail") if isinstance(inner, dict) else inner
        message = message or body.get("detail") or body.get("message")
    if not isinstance(message, str) or not message.strip():
        message = str(body) if body else getattr(error, "message", "") or type(error).__name__
    message = " ".join(message.split())
    return message if len(message) <= MAX_SERVER_MESSAGE else message[: MAX_SERVER_MESSAGE - 1] + "…"


def _cause_text(error: BaseException) -> str:
    """The innermost reason of a connection error ("Connection refused"), not the openai
    client's generic "Connection error."."""
    cause: BaseException = error
    for _ in range(MAX_CAUSE_DEPTH):
        inner = cause.__cause__ or cause.__context__
        if inner is None:
            break
        cause = inner
    text = str(cause) or type(cause).__name__
    return " ".join(text.split())[:MAX_SERVER_MESSAGE]


def _retry_after(response: Any) -> float | None:
    """The seconds a 429/503 asks to wait (``retry-after-ms``, or ``Retry-After`` as seconds or
    an HTTP date), None when it does not say."""
    headers = getattr(response, "headers", None) or {}
    try:
        milliseconds = headers.get("retry-after-ms")
        if milliseconds is not None:
            return max(0.0, float(milliseconds) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None
