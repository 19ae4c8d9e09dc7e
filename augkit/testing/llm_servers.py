"""OpenAI-compatible chat servers on 127.0.0.1 for testing LLM augmentation for real.

:func:`start_transformers_serve` runs transformers' own ``transformers serve`` (the
``transformers[serving]`` extra) pinned to a local model folder, such as a random chat model
from :func:`augkit.testing.build_chat_model`, and returns a :class:`ServedModel` whose
``stop()`` ends it by its PID. :class:`~augkit.testing.scripted_chat.ScriptedChatServer`
answers ``/v1/chat/completions`` from a script (statuses, bodies, delays, headers) and records
every request: for the exact cases a random model cannot give (malformed JSON, 429 then
success, a slow answer).

>>> from augkit.testing.scripted_chat import ScriptedChatServer, error, reply
>>> with ScriptedChatServer([error(429, retry_after=1), reply('["a", "b"]')]) as server:  # doctest: +SKIP
...     openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=1).chat.completions.create(...)

Both servers' ``base_url`` end in ``/v1``, as ``openai.OpenAI(base_url=...)`` takes them. Nothing here
imports transformers or openai: the real server runs in its own process.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from augkit.testing.loopback import HOST, free_port

#: What ``transformers serve`` imports beyond transformers and torch (its ``serving`` extra;
#: ``openai`` for its response types).
SERVING_MODULES = ("fastapi", "uvicorn", "pydantic", "openai", "rich")
#: Seconds ``stop()`` waits after SIGTERM before SIGKILL: uvicorn's graceful shutdown of
#: ``transformers serve`` takes one to three seconds here.
STOP_GRACE_SECONDS = 10.0


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


