"""augkit.testing's chat model and LLM test servers: a random chat model whose template
renders, a real ``transformers serve`` answering the openai client and stopped by its PID,
and a scripted server that replays statuses and delays in order and records every request."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request

import pytest

from augkit.testing.llm_servers import (
    start_transformers_serve,
    transformers_serve_unavailable,
)
from augkit.testing.scripted_chat import ScriptedResponse, error, reply

SECRET = "sk-test-never-echoed"
MESSAGES = [{"role": "system", "content": "Paraphrase the text."}, {"role": "user", "content": "I lost my card"}]


def client(base_url: str, **options):
    openai = pytest.importorskip("openai")
    return openai.OpenAI(base_url=base_url, api_key=SECRET, **options)


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.load(answer)


# --- the chat model ------------------------------------------------------------------------


def test_chat_model_template_renders_system_user_and_generation_prompt(tiny_chat_model):
    transformers = pytest.importorskip("transformers")
    assert "chat_template" in json.loads((tiny_chat_model / "tokenizer_config.json").read_text())
    assert (tiny_chat_model / "model.safetensors").is_file() and not list(tiny_chat_model.glob("*.bin"))
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_chat_model)
    rendered = tokenizer.apply_chat_template(MESSAGES, tokenize=False, add_generation_prompt=True)
    assert rendered == (
        "<|im_start|>system\nParaphrase the text.<|im_end|>\n"
        "<|im_start|>user\nI lost my card<|im_end|>\n<|im_start|>assistant\n"
    )
    without_system = tokenizer.apply_chat_template(MESSAGES[1:], tokenize=False, add_generation_prompt=False)
    assert without_system.startswith("<|im_start|>system\n") and not without_system.endswith("assistant\n")
    ids = tokenizer.encode(rendered)
    assert ids.count(tokenizer.convert_tokens_to_ids("<|im_start|>")) == 3
    assert tokenizer.eos_token == "<|im_end|>"


# --- transformers serve --------------------------------------------------------------------


def test_transformers_serve_answers_a_chat_completion_through_the_openai_client(llm_server):
    assert get_json(llm_server.base_url.removesuffix("/v1") + "/health") == {"status": "ok"}
    assert [model["id"] for model in get_json(llm_server.base_url + "/models")["data"]] == [llm_server.model]
    answer = client(llm_server.base_url).chat.completions.create(
        model=llm_server.model, messages=MESSAGES, max_tokens=12, temperature=0.8, seed=1,
    )
    assert len(answer.choices) == 1
    assert isinstance(answer.choices[0].message.content, str)
    assert answer.usage.prompt_tokens > 0 and 0 < answer.usage.completion_tokens <= 12
    assert answer.usage.total_tokens == answer.usage.prompt_tokens + answer.usage.completion_tokens


def test_transformers_serve_honours_seed_and_temperature_zero_but_gives_one_choice_whatever_n(llm_server):
    chat = client(llm_server.base_url).chat.completions

    def text(**options) -> str:
        answer = chat.create(model=llm_server.model, messages=MESSAGES, max_tokens=12, **options)
        return answer.choices[0].message.content

    assert text(temperature=1.0, seed=7) == text(temperature=1.0, seed=7)
    assert text(temperature=0.0) == text(temperature=0.0)
    # `n` is accepted and ignored (transformers serve lists it as unsupported): ask n times
    assert len(chat.create(model=llm_server.model, messages=MESSAGES, max_tokens=4, n=3).choices) == 1


def test_transformers_serve_rejects_another_model_name(llm_server):
    openai = pytest.importorskip("openai")
    with pytest.raises(openai.BadRequestError) as failure:
        client(llm_server.base_url).chat.completions.create(model="gpt-4o", messages=MESSAGES, max_tokens=4)
    # FastAPI's {"detail": ...}, not OpenAI's {"error": {"message": ...}}: the reason is in the body
    assert "pinned" in failure.value.body["detail"]


@pytest.mark.slow
def test_transformers_serve_is_stopped_by_its_pid(tiny_chat_model):
    assert transformers_serve_unavailable() is None, "the test extra installs transformers[serving]"
    served = start_transformers_serve(tiny_chat_model)
    try:
        assert served.process.poll() is None and os.getpgid(served.pid) == served.pid
    finally:
        served.stop()
    assert served.process.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.kill(served.pid, 0)
    with pytest.raises(urllib.error.URLError):
        get_json(served.base_url + "/models")


# --- the scripted server -------------------------------------------------------------------


def test_scripted_server_replays_statuses_and_delays_in_order_and_records_requests(scripted_llm_server):
    server = scripted_llm_server([error(500), error(429, retry_after=0), reply("a paraphrase", delay=0.3, prompt_tokens=5)])
    started = time.monotonic()
    answer = client(server.base_url, max_retries=2).chat.completions.create(model="scripted", messages=MESSAGES, seed=3)
    assert time.monotonic() - started >= 0.3
    assert answer.choices[0].message.content == "a paraphrase"
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (5, 2)
    requests = server.chat_requests
    assert len(requests) == 3 and server.remaining == 0
    assert all(request.json["messages"] == MESSAGES and request.json["seed"] == 3 for request in requests)
    assert all(request.headers["authorization"] == f"Bearer {SECRET}" for request in requests)
    assert all(request.delivered for request in requests)
    assert requests[2].answered - requests[2].received >= 0.3


def test_scripted_server_sends_raw_bodies_headers_and_a_loud_500_once_the_script_runs_out(scripted_llm_server):
    server = scripted_llm_server([ScriptedResponse(200, '{"choices": [', headers={"X-Case": "malformed"})], models=("m1", "m2"))
    url = server.base_url + "/chat/completions"
    post = urllib.request.Request(url, data=json.dumps({"model": "m1", "messages": MESSAGES}).encode(), method="POST")
    with urllib.request.urlopen(post, timeout=5) as answer:
        assert answer.read() == b'{"choices": [' and answer.headers["X-Case"] == "malformed"
    with pytest.raises(urllib.error.HTTPError) as failure:
        urllib.request.urlopen(post, timeout=5)
    assert failure.value.code == 500 and "script exhausted after 1" in failure.value.read().decode()
    assert [model["id"] for model in get_json(server.base_url + "/models")["data"]] == ["m1", "m2"]


def test_scripted_server_answers_a_body_cut_short_400_without_spending_the_script(scripted_llm_server):
    """A client killed while sending leaves a body shorter than its Content-Length: the server
    answers 400 naming the bytes that arrived, keeps its script for the next request and leaves
    the cut request out of chat_requests (tests read their JSON)."""
    import socket

    server = scripted_llm_server([reply("kept for the next request")])
    whole = json.dumps({"model": "scripted", "messages": MESSAGES}).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as connection:
        head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {len(whole)}\r\n\r\n".encode()
        connection.sendall(head + whole[:10])
        connection.shutdown(socket.SHUT_WR)
        answer = connection.makefile("rb").read().decode()
    assert answer.startswith("HTTP/1.1 400") and f"10 of {len(whole)} bytes arrived" in answer
    assert server.remaining == 1 and server.chat_requests == [] and len(server.requests) == 1
    assert client(server.base_url, max_retries=0).chat.completions.create(model="scripted", messages=MESSAGES).choices[0].message.content == "kept for the next request"
    assert len(server.chat_requests) == 1


def test_scripted_server_answers_concurrent_requests_from_a_callable_script(scripted_llm_server):
    server = scripted_llm_server(lambda request: reply(request["messages"][-1]["content"].upper(), delay=0.3))
    chat = client(server.base_url, max_retries=0).chat.completions
    texts = {}

    def ask(text: str) -> None:
        answer = chat.create(model="scripted", messages=[{"role": "user", "content": text}])
        texts[text] = answer.choices[0].message.content

    threads = [threading.Thread(target=ask, args=(f"text {i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert texts == {f"text {i}": f"TEXT {i}" for i in range(4)}
    assert server.max_in_flight == 4


def test_scripted_server_slow_answer_trips_the_client_timeout(scripted_llm_server):
    openai = pytest.importorskip("openai")
    server = scripted_llm_server([reply("late", delay=1.0)])
    with pytest.raises(openai.APITimeoutError):
        client(server.base_url, max_retries=0, timeout=0.2).chat.completions.create(model="scripted", messages=MESSAGES)
    assert len(server.chat_requests) == 1
