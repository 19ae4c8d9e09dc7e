"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests: each request is answered by the
next response of a script (a reply, an error, a delay), and every request is recorded."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from augkit.testing.loopback import HOST, SHUTDOWN_POLL_SECONDS


def chat_completion_body(
    content: str | None | Sequence[str | None],
    *,
    model: str = "scripted",
    prompt_tokens: int = 10,
    completion_tokens: int | None = None,
    finish_reason: str = "stop",
) -> dict[str, Any]:
    """An OpenAI chat completion: one choice per item of ``content`` (a string is one choice;
    an empty list gives no choice at all; ``None`` a choice without text), and ``usage``
    with ``prompt_tokens`` and ``completion_tokens`` (by default the words of every choice).

    >>> chat_completion_body("hi there")["choices"][0]["message"]["content"]
    'hi there'
    >>> chat_completion_body(["a", "b c"])["usage"]["completion_tokens"]
    3
    """
    contents = [content] if content is None or isinstance(content, str) else list(content)
    if completion_tokens is None:
        completion_tokens = sum(len(text.split()) for text in contents if text)
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": index, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}
            for index, text in enumerate(contents)
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
    }


def error_body(message: str, *, kind: str = "server_error", code: str | None = None) -> dict[str, Any]:
    """An OpenAI error body: ``{"error": {"message", "type", "code"}}``."""
    return {"error": {"message": message, "type": kind, "code": code}}


@dataclass(frozen=True)
class ScriptedResponse:
    """One answer of a :class:`ScriptedChatServer`: HTTP ``status``, ``body`` (a dict sent as
    JSON, or a string / bytes sent as they are, malformed JSON included), sent after ``delay``
    seconds, with extra ``headers`` (``Retry-After``...)."""

    status: int = 200
    body: Mapping[str, Any] | str | bytes = field(default_factory=dict)
    delay: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)


def reply(content: str | None | Sequence[str | None], *, delay: float = 0.0, **body: Any) -> ScriptedResponse:
    """A 200 chat completion whose choices say ``content`` (see :func:`chat_completion_body`,
    which takes the other keywords), after ``delay`` seconds."""
    return ScriptedResponse(200, chat_completion_body(content, **body), delay)


def error(status: int, message: str | None = None, *, retry_after: float | None = None, delay: float = 0.0) -> ScriptedResponse:
    """An OpenAI-style error answer (429 rate limit, 500, 503...), with a ``Retry-After``
    header when ``retry_after`` is given."""
    kinds = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error", 429: "rate_limit_error"}
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    body = error_body(message or f"scripted error {status}", kind=kinds.get(status, "server_error"))
    return ScriptedResponse(status, body, delay, headers)


@dataclass
class RecordedRequest:
    """A request the scripted server received: ``method``, ``path``, ``headers`` (names
    lower-cased), the raw ``body`` and its ``json`` (``None`` when it is not JSON), and when
    it arrived and was answered (``time.monotonic()``; ``answered`` stays ``None`` while the
    answer is pending and is the moment its first byte was handed to the socket; whether the
    client was still there to read it, ``delivered`` says)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any
    received: float
    answered: float | None = None
    delivered: bool = False


Script = Iterable[ScriptedResponse] | Callable[[Any], ScriptedResponse]


class ScriptedChatServer:
    """An OpenAI-compatible chat server on 127.0.0.1 that answers from a script, in a thread.

    ``script`` is a list of :class:`ScriptedResponse` given to the ``POST
    /v1/chat/completions`` requests in order of arrival (``default`` answers once it runs
    out; without one the server answers 500 "script exhausted", so a test that asks more than
    it scripted fails loudly), or a callable taking the request's JSON and returning one.
    ``GET /v1/models`` lists ``models``; ``GET /health`` answers 200. Requests are answered
    concurrently (a thread each). Every request is kept in :attr:`requests`;
    :attr:`max_in_flight` is the most chat requests ever being answered at once.

    >>> with ScriptedChatServer([reply("hello")]) as server:  # doctest: +SKIP
    ...     server.base_url  # 'http://127.0.0.1:<port>/v1'
    """

    def __init__(self, script: Script = (), *, default: ScriptedResponse | None = None, models: Sequence[str] = ("scripted",)) -> None:
        self._callable = script if callable(script) else None
        self._script = [] if callable(script) else list(script)
        self.default = default
        self.models = tuple(models)
        self.requests: list[RecordedRequest] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._given = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------------------------
    def start(self) -> ScriptedChatServer:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        if self._server is not None:
            return self
        handler = type("ScriptedHandler", (_ScriptedHandler,), {"scripted": self})
        self._server = ThreadingHTTPServer((HOST, 0), handler)
        self._server.daemon_threads = True  # a delayed answer never holds up close()
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, name="scripted-chat-server", daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and free the port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join()
            self._server = self._thread = None

    def __enter__(self) -> ScriptedChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the scripted server is not started: use it as a context manager or call start()")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, as ``openai.OpenAI(base_url=...)`` takes it."""
        return f"http://{HOST}:{self.port}/v1"

    # --- the script ----------------------------------------------------------------------------
    def push(self, *responses: ScriptedResponse) -> None:
        """Append ``responses`` to the script."""
        with self._lock:
            self._script.extend(responses)

    @property
    def remaining(self) -> int:
        """Scripted responses not yet given."""
        return len(self._script)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The ``POST /v1/chat/completions`` requests the script answered, in order of arrival.

        A request whose body is not JSON (a client killed while sending it) is answered 400
        without reaching the script and is left out here; :attr:`requests` still holds it."""
        return [request for request in self.requests
                if request.method == "POST" and request.path.endswith("/chat/completions") and request.json is not None]

    def _next_response(self, payload: Any) -> ScriptedResponse:
        if self._callable is not None:
            return self._callable(payload)
        with self._lock:
            if self._script:
                self._given += 1
                return self._script.pop(0)
            given = self._given
        if self.default is not None:
            return self.default
        return ScriptedResponse(500, error_body(f"scripted server: script exhausted after {given} responses"))


class _ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers and the openai client's pool use it
    # TCP_NODELAY: without it a reply's body waits on the client's delayed ACK (~40 ms a request)
    disable_nagle_algorithm = True
    scripted: ScriptedChatServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # tests read server.requests, not stderr

    def _record(self) -> RecordedRequest:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            payload = json.loads(body) if body else None
        except ValueError:
            payload = None
        request = RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, payload, time.monotonic())
        with self.scripted._lock:
            self.scripted.requests.append(request)
        return request

    def _send(self, request: RecordedRequest, answer: ScriptedResponse) -> None:
        body = answer.body
        data = body if isinstance(body, bytes) else body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
        # Marked answered and delivered before the first byte goes out: a client holding the
        # answer may look at once, before this thread runs again (a race full test runs lost,
        # once for each mark). A write that fails takes the delivered mark back.
        request.answered = time.monotonic()
        request.delivered = True
        try:
            self.send_response(answer.status)
            headers = {"Content-Type": "application/json", **answer.headers, "Content-Length": str(len(data))}
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
            request.delivered = False
            self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        request = self._record()
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/models"):
            data = [{"id": name, "object": "model", "created": 0, "owned_by": "scripted"} for name in self.scripted.models]
            self._send(request, ScriptedResponse(200, {"object": "list", "data": data}))
        elif path.endswith("/health"):
            self._send(request, ScriptedResponse(200, {"status": "ok"}))
        else:
            self._send(request, ScriptedResponse(404, error_body(f"no route GET {self.path}", kind="not_found_error")))

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        request = self._record()
        if not self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):
            self._send(request, ScriptedResponse(404, error_body(f"no route POST {self.path}", kind="not_found_error")))
            return
        if request.json is None:  # a client killed while sending leaves a cut body: no script answer
            arrived, expected = len(request.body), request.headers.get("content-length", "?")
            message = f"request body is not JSON ({arrived} of {expected} bytes arrived)"
            self._send(request, ScriptedResponse(400, error_body(message, kind="invalid_request_error")))
            return
        scripted = self.scripted
        with scripted._lock:
            scripted._in_flight += 1
            scripted.max_in_flight = max(scripted.max_in_flight, scripted._in_flight)
        try:
            answer = scripted._next_response(request.json)
            if answer.delay:
                time.sleep(answer.delay)
            self._send(request, answer)
        finally:
            with scripted._lock:
                scripted._in_flight -= 1
