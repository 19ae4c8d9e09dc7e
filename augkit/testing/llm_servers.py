"""OpenAI-compatible chat servers on 127.0.0.1 for testing LLM augmentation for real.

:func:`start_transformers_serve` runs transformers' own ``transformers serve`` (the
``transformers[serving]`` extra) pinned to a local model folder, such as a random chat model
from :func:`augkit.testing.build_chat_model`, and returns a :class:`ServedModel` whose
``stop()`` ends it by its PID. :class:`ScriptedChatServer` answers ``/v1/chat/completions``
from a script (statuses, bodies, delays, headers) and records every request: for the exact
cases a random model cannot give (malformed JSON, 429 then success, a slow answer).

>>> from augkit.testing.llm_servers import ScriptedChatServer, error, reply
>>> with ScriptedChatServer([error(429, retry_after=1), reply('["a", "b"]')]) as server:  # doctest: +SKIP
...     openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=1).chat.completions.create(...)

Both ``base_url`` end in ``/v1``, as ``openai.OpenAI(base_url=...)`` takes them. Nothing here
imports transformers or openai: the real server runs in its own process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: Host every test server binds: loopback only, never reachable from outside the machine.
HOST = "127.0.0.1"
#: What ``transformers serve`` imports beyond transformers and torch (its ``serving`` extra;
#: ``openai`` for its response types).
SERVING_MODULES = ("fastapi", "uvicorn", "pydantic", "openai", "rich")
#: Seconds ``stop()`` waits after SIGTERM before SIGKILL: uvicorn's graceful shutdown of
#: ``transformers serve`` takes one to three seconds here.
STOP_GRACE_SECONDS = 10.0
#: How often the scripted server's loop looks for a shutdown request: the stdlib's 0.5 s
#: would add half a second to every test that closes one.
SHUTDOWN_POLL_SECONDS = 0.05


def transformers_serve_unavailable() -> str | None:
    """Why ``transformers serve`` cannot run in this environment, or ``None`` when it can."""
    if importlib.util.find_spec("transformers") is None or importlib.util.find_spec("torch") is None:
        return "transformers serve needs torch and transformers: pip install 'augkit[models]'"
    missing = [name for name in SERVING_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        return f"transformers serve needs {', '.join(missing)}: pip install 'transformers[serving]'"
    if importlib.util.find_spec("transformers.cli.serve") is None:
        return "this transformers has no `transformers serve` command (transformers >= 5 has it)"
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 free at the time of asking."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


@dataclass
class ServedModel:
    """A running ``transformers serve``: ``base_url`` (``http://127.0.0.1:<port>/v1``), the
    ``model`` name a request must give (the folder's absolute path: the server is pinned to
    it and answers 400 to any other name), its ``pid`` and ``process``, and ``log``, the file
    its output goes to. ``stop()`` ends it; so does leaving a ``with`` block."""

    base_url: str
    model: str
    pid: int
    process: subprocess.Popen
    log: Path

    def stop(self, timeout: float = STOP_GRACE_SECONDS) -> int:
        """SIGTERM the server's process group (its PID: it leads its own session), SIGKILL it
        if it is still there after ``timeout`` seconds, wait for it; return its exit code."""
        if self.process.poll() is None:
            _signal_group(self.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                _signal_group(self.pid, signal.SIGKILL)
                self.process.wait()
        return self.process.returncode

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the server's output, for error messages."""
        try:
            return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def __enter__(self) -> ServedModel:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass


def start_transformers_serve(
    model_folder: str | os.PathLike,
    *,
    port: int | None = None,
    timeout: float = 120.0,
    device: str = "cpu",
    extra_args: Sequence[str] = (),
) -> ServedModel:
    """Start ``transformers serve`` on 127.0.0.1 (``port``, else a free one), pinned to the
    local ``model_folder`` (preloaded, so it is ready when healthy), with the Hugging Face hub
    switched off, and wait up to ``timeout`` seconds for ``GET /health`` to answer 200.

    The server runs as ``python -m transformers.cli.transformers serve`` under this
    interpreter, in a session of its own so that ``stop()`` can end it and anything it
    started by its PID. It fails with the end of the server's log if it exits or is not
    healthy in time. A request names the model by :attr:`ServedModel.model`.
    """
    folder = Path(model_folder).resolve()
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"no model folder at {folder} (config.json missing)")
    port = free_port() if port is None else port
    command = [
        sys.executable, "-m", "transformers.cli.transformers", "serve", str(folder),
        "--host", HOST, "--port", str(port), "--device", device, "--log-level", "warning", *extra_args,
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
    log = Path(tempfile.mkstemp(prefix="transformers-serve-", suffix=".log")[1])
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    served = ServedModel(f"http://{HOST}:{port}/v1", str(folder), process.pid, process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"transformers serve exited with code {process.returncode} before it was healthy:\n{served.log_tail()}")
        if _healthy(f"http://{HOST}:{port}/health"):
            return served
        time.sleep(0.2)
    served.stop()
    raise TimeoutError(f"transformers serve was not healthy within {timeout:g} s:\n{served.log_tail()}")


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return answer.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


# ---------------------------------------------------------------------------------------------
# The scripted server


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
    answer is pending, and after it if the client had gone: ``delivered`` says)."""

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
        try:
            self.send_response(answer.status)
            headers = {"Content-Type": "application/json", **answer.headers, "Content-Length": str(len(data))}
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            request.delivered = True
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
            self.close_connection = True
        request.answered = time.monotonic()

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
