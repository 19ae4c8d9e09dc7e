"""The Hugging Face hub is asked at most once per run when it does not answer, and an offline
setting in force is never suggested (issue 35, section 4). The faults are caused: a local
"hub" that accepts each connection and closes it without a word (as a dead proxy does), and a
local hub that answers HEAD requests for one model only."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading

import pytest

import augkit
from augkit.errors import ModelNotAvailableError
from augkit.models.hub_access import forget_hub_answer

pytest.importorskip("transformers")


class _SilentHub:
    """A TCP server on a free local port that accepts connections and closes them at once,
    counting them: what a run sees of a hub it cannot reach, without a minute of timeouts."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.connections = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            connection.close()

    def close(self):
        self.server.close()


@pytest.fixture
def silent_hub():
    hub = _SilentHub()
    yield hub
    hub.close()


def _run(code: str, endpoint: str, **extra: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter whose hub is ``endpoint`` (huggingface_hub reads it at import)."""
    env = {key: value for key, value in os.environ.items() if key not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.update(HF_ENDPOINT=endpoint, HF_HUB_DISABLE_TELEMETRY="1", **extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)


def test_an_unreachable_hub_is_tried_once_for_every_model_of_a_run(silent_hub):
    """ParaMac's four hub models: one connection in all, and one error naming the four."""
    done = _run("import augkit, sys\n"
                "try:\n"
                "    augkit.augment(['what is the capital of france'], 'paramac', n=1, seed=0)\n"
                "except augkit.ModelNotAvailableError as error:\n"
                "    print(error)\n", silent_hub.url)
    assert done.returncode == 0, done.stderr
    assert silent_hub.connections == 1
    assert "paramac needs 4 models that are not available here" in done.stdout
    assert "(each: not on this machine, and the Hugging Face hub cannot be reached (tried once:" in done.stdout
    assert "(HF_HUB_OFFLINE=1 skips even the one try of the hub)" in done.stdout  # not set: worth saying


def test_after_the_first_failure_later_loads_go_straight_to_the_offline_message(silent_hub):
    """Loaders called by hand: the first asks the hub once; the second does not try again."""
    done = _run("from augkit.models import load_causal_lm, load_seq2seq\n"
                "for load, name in ((load_seq2seq, 'augkit-tests/no-such-t5'), (load_causal_lm, 'augkit-tests/no-such-gpt2')):\n"
                "    try:\n"
                "        load(name, device='cpu')\n"
                "    except Exception as error:\n"
                "        print(type(error).__name__, str(error).splitlines()[0])\n", silent_hub.url)
    assert done.returncode == 0, done.stderr
    assert silent_hub.connections == 1
    first, second = done.stdout.splitlines()
    assert first.startswith("ModelNotAvailableError seq2seq model 'augkit-tests/no-such-t5' is not available: "
                            "not in the Hugging Face cache, and the Hugging Face hub cannot be reached (tried once:")
    assert second.startswith("ModelNotAvailableError causal language model 'augkit-tests/no-such-gpt2' is not available: "
                             "not in the Hugging Face cache, and the Hugging Face hub cannot be reached (tried once:")


@pytest.mark.parametrize("setting", ["HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"])
def test_an_offline_setting_in_force_is_never_suggested(silent_hub, setting):
    """Set, it is named as the reason and not suggested, and the hub is not touched."""
    done = _run("from augkit.models import load_seq2seq\n"
                "try:\n"
                "    load_seq2seq('augkit-tests/no-such-t5', device='cpu')\n"
                "except Exception as error:\n"
                "    print(error)\n", silent_hub.url, **{setting: "1"})
    assert done.returncode == 0, done.stderr
    assert f"not downloaded: {setting}=1 is set" in done.stdout
    assert "HF_HUB_OFFLINE=1 skips" not in done.stdout and "set HF_HUB_OFFLINE" not in done.stdout
    assert silent_hub.connections == 0


class _OneModelHub(http.server.BaseHTTPRequestHandler):
    """Answers HEAD for ``augkit-tests/present``'s config.json and 404 for anything else."""

    def do_HEAD(self):  # noqa: N802 (http.server's name)
        self.send_response(200 if self.path == "/augkit-tests/present/resolve/main/config.json" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture
def one_model_hub(monkeypatch):
    from huggingface_hub import constants

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _OneModelHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", url + "/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    forget_hub_answer()
    yield url
    server.shutdown()
    forget_hub_answer()


def test_a_hub_that_answers_is_asked_for_each_model_and_a_wrong_name_is_said_before_any_download(one_model_hub):
    pipeline = augkit.Pipeline.from_string(
        "eda|fluency(model='augkit-tests/present')|bertscore(model='augkit-tests/absent')")
    with pytest.raises(ModelNotAvailableError) as raised:
        pipeline.check_models()
    message = str(raised.value)
    assert "needs 1 model that is not available here" in message
    assert ("'augkit-tests/absent' (token-embedding model, BERTScore; set by bertscore.model): "
            "the hub has no model 'augkit-tests/absent' (check the name)") in message
    assert "set by fluency.model" not in message
    assert "hf download" not in message  # a wrong name wants correcting, not downloading
