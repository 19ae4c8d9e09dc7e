"""ChatClient against scripted OpenAI-compatible servers (exact faults: 500s, 429s, slow answers,
empty choices, unknown models, a closed port) and against a real ``transformers serve``; its
ResponseCache; and the API key, which is sent to the server and nowhere else."""

from __future__ import annotations

import json
import logging
import random
import time

import augkit_llm.client as client_module
import pytest
from augkit_llm.cache import (
    CACHE_DIR_ENV,
    CachedReply,
    ResponseCache,
    default_cache_folder,
)
from augkit_llm.client import (
    ChatClient,
    ChatRequest,
    ChatResult,
    ServerNotAvailableError,
    UnknownModelError,
    backoff_delay,
)

from augkit.plugin import InvalidParameterError, ModelNotAvailableError
from augkit.testing.loopback import free_port
from augkit.testing.scripted_chat import (
    ScriptedResponse,
    error,
    reply,
)

KEY_ENV = "AUGKIT_TEST_LLM_KEY"
SECRET = "sk-test-5ecret-d0-not-leak-7f3a"


def ask(text: str, **settings) -> ChatRequest:
    return ChatRequest((("system", "Answer with a JSON list of strings."), ("user", text)), **settings)


def last_user_text(payload) -> str:
    return payload["messages"][-1]["content"]


@pytest.fixture
def fast_backoff(monkeypatch):
    """Back-off of 0 s, recording each (attempt, retry_after) the client asked about."""
    asked = []

    def no_wait(attempt, initial, maximum, retry_after, rng):
        asked.append((attempt, retry_after))
        return 0.0

    monkeypatch.setattr(client_module, "backoff_delay", no_wait)
    return asked


def make_client(server_or_url, model="scripted", **options) -> ChatClient:
    base_url = server_or_url if isinstance(server_or_url, str) else server_or_url.base_url
    options.setdefault("api_key_env", KEY_ENV)
    return ChatClient(base_url, model, **options)


# -- requests and their keys ---------------------------------------------------------------------


def test_the_request_key_is_stable_and_covers_every_setting():
    base = ask("lost my card", temperature=0.7, top_p=0.9, max_tokens=100, seed=1)
    assert base.key() == ask("lost my card", temperature=0.7, top_p=0.9, max_tokens=100, seed=1).key()
    assert len(base.key()) == 64 and int(base.key(), 16) >= 0
    changed = [
        ask("lost my card!", temperature=0.7, top_p=0.9, max_tokens=100, seed=1),
        ask("lost my card", temperature=0.8, top_p=0.9, max_tokens=100, seed=1),
        ask("lost my card", temperature=0.7, top_p=0.95, max_tokens=100, seed=1),
        ask("lost my card", temperature=0.7, top_p=0.9, max_tokens=101, seed=1),
        ask("lost my card", temperature=0.7, top_p=0.9, max_tokens=100, seed=2),
        ask("lost my card", temperature=0.7, top_p=0.9, max_tokens=100, seed=None),
        ChatRequest((("user", "lost my card"),), temperature=0.7, top_p=0.9, max_tokens=100, seed=1),
    ]
    assert len({base.key()} | {request.key() for request in changed}) == len(changed) + 1


def test_a_request_built_from_lists_equals_one_built_from_tuples():
    from_lists = ChatRequest([["user", "hi"]], temperature=1, seed=0)
    from_tuples = ChatRequest((("user", "hi"),), temperature=1.0, seed=0)
    assert from_lists == from_tuples and from_lists.key() == from_tuples.key()
    assert hash(from_lists) == hash(from_tuples)


@pytest.mark.parametrize(
    "settings",
    [{"temperature": -1}, {"top_p": 1.5}, {"max_tokens": 0}, {"seed": -1}, {"seed": 1.5}, {"temperature": True}],
)
def test_bad_request_settings_are_refused_with_their_name(settings):
    with pytest.raises(InvalidParameterError, match=next(iter(settings))):
        ask("hi", **settings)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"base_url": "127.0.0.1:8000/v1"}, "base_url"),
        ({"model": ""}, "model"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"concurrency": 0}, "concurrency"),
        ({"initial_backoff": -1.0}, "initial_backoff"),
    ],
)
def test_bad_client_settings_are_refused_with_their_name(arguments, named):
    settings = {"base_url": "http://127.0.0.1:1/v1", "model": "m", **arguments}
    with pytest.raises(InvalidParameterError, match=named):
        ChatClient(settings.pop("base_url"), settings.pop("model"), **settings)


# -- answers, order, concurrency ----------------------------------------------------------------


def test_results_come_back_in_input_order_when_answers_arrive_in_reverse(scripted_llm_server):
    count = 8

    def answer(payload):
        index = int(last_user_text(payload))
        return reply(json.dumps([f"text {index}"]), delay=0.05 * (count - index))

    server = scripted_llm_server(answer)
    results = make_client(server, concurrency=count).complete([ask(str(i)) for i in range(count)])
    assert [result.text for result in results] == [json.dumps([f"text {i}"]) for i in range(count)]
    assert all(result.problem is None and result.attempts == 1 and not result.cached for result in results)
    assert results[0].prompt_tokens == 10 and results[0].completion_tokens == 2


def test_at_most_concurrency_requests_are_in_flight(scripted_llm_server):
    server = scripted_llm_server(lambda payload: reply('["ok"]', delay=0.1))
    results = make_client(server, concurrency=3).complete([ask(f"row {i}") for i in range(10)])
    assert all(result.ok for result in results)
    assert len(server.chat_requests) == 10
    assert server.max_in_flight == 3


def test_each_request_asks_for_one_choice_with_its_settings_and_seed(scripted_llm_server):
    server = scripted_llm_server([reply('["a"]'), reply('["b"]')])
    make_client(server, concurrency=1).complete([ask("x", temperature=0.3, top_p=0.8, max_tokens=64, seed=11), ask("y")])
    first, second = (request.json for request in server.chat_requests)
    assert first["model"] == "scripted" and first["n"] == 1
    assert (first["temperature"], first["top_p"], first["max_tokens"], first["seed"]) == (0.3, 0.8, 64, 11)
    assert first["messages"] == [{"role": "system", "content": "Answer with a JSON list of strings."}, {"role": "user", "content": "x"}]
    assert "seed" not in second


def test_an_empty_list_of_requests_sends_nothing(scripted_llm_server):
    server = scripted_llm_server()
    assert make_client(server).complete([]) == []
    assert server.requests == []


# -- retries ------------------------------------------------------------------------------------------


def test_500s_and_429s_then_success_are_retried(scripted_llm_server, fast_backoff):
    server = scripted_llm_server([error(500), error(503), error(429, retry_after=7), reply('["finally"]')])
    [result] = make_client(server).complete([ask("hi")])
    assert result == ChatResult('["finally"]', None, 10, 1, cached=False, attempts=4, finish_reason="stop")
    assert len(server.chat_requests) == 4
    assert fast_backoff == [(1, None), (2, None), (3, 7.0)]  # Retry-After honoured


def test_a_server_failing_past_max_retries_gives_the_row_a_problem(scripted_llm_server, fast_backoff):
    server = scripted_llm_server(default=error(500, "CUDA out of memory"))
    [result] = make_client(server, max_retries=2).complete([ask("hi")])
    assert result.text is None and result.attempts == 3
    assert result.problem == "the server answered 500: CUDA out of memory after 3 attempts"
    assert len(server.chat_requests) == 3


def test_a_slow_answer_past_the_timeout_is_retried_then_reported(scripted_llm_server, fast_backoff):
    server = scripted_llm_server(default=reply('["late"]', delay=1.0))
    started = time.monotonic()
    [result] = make_client(server, timeout=0.2, max_retries=1).complete([ask("hi")])
    assert time.monotonic() - started < 1.5
    assert result.text is None and result.attempts == 2
    assert result.problem == "no answer within the 0.2 s timeout after 2 attempts"
    assert len(server.chat_requests) == 2


def test_a_slow_answer_then_a_fast_one_succeeds(scripted_llm_server, fast_backoff):
    server = scripted_llm_server([reply('["late"]', delay=1.0), reply('["fast"]')])
    [result] = make_client(server, timeout=0.2).complete([ask("hi")])
    assert (result.text, result.attempts) == ('["fast"]', 2)


def test_backoff_is_full_jitter_capped_and_honours_retry_after():
    rng = random.Random(0)
    delays = [backoff_delay(attempt, 1.0, 30.0, None, rng) for attempt in (1, 2, 3, 4, 5, 6, 7) for _ in range(200)]
    per_attempt = [delays[i * 200 : (i + 1) * 200] for i in range(7)]
    for attempt, values in enumerate(per_attempt, start=1):
        ceiling = min(30.0, 2 ** (attempt - 1))
        assert all(0.0 <= value <= ceiling for value in values)
        assert max(values) > 0.8 * ceiling  # jitter spans the whole range
    assert backoff_delay(1, 1.0, 30.0, 7.0, rng) == 7.0
    assert backoff_delay(1, 1.0, 30.0, 600.0, rng) == 30.0


def test_retry_after_is_read_as_seconds_milliseconds_or_a_date():
    class Response:
        def __init__(self, headers):
            self.headers = headers

    assert client_module._retry_after(Response({"retry-after": "2.5"})) == 2.5
    assert client_module._retry_after(Response({"retry-after-ms": "250"})) == 0.25
    assert client_module._retry_after(Response({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0
    assert client_module._retry_after(Response({"retry-after": "soon"})) is None
    assert client_module._retry_after(Response({})) is None


# -- the row's problems -----------------------------------------------------------------------------


def test_an_empty_choice_or_no_text_is_the_rows_problem_not_an_exception(scripted_llm_server):
    server = scripted_llm_server([reply([]), reply(None), reply("   "), reply('["fine"]')])
    results = make_client(server, concurrency=1).complete([ask(str(i)) for i in range(4)])
    assert [result.problem for result in results] == [
        "the server returned no choice",
        "the reply has no text (finish_reason stop)",
        "the reply is empty",
        None,
    ]
    assert [result.text for result in results] == [None, None, None, '["fine"]']


def test_a_400_for_one_prompt_fails_that_row_only(scripted_llm_server, fast_backoff):
    def answer(payload):
        if "too long" in last_user_text(payload):
            return error(400, "This model's maximum context length is 2048 tokens. However, you requested 5000 tokens.")
        return reply('["ok"]')

    server = scripted_llm_server(answer)
    results = make_client(server).complete([ask("fine"), ask("too long"), ask("fine too")])
    assert [result.text for result in results] == ['["ok"]', None, '["ok"]']
    assert results[1].problem.startswith("the server rejected the request (400: This model's maximum context length")
    assert results[1].attempts == 1 and fast_backoff == []  # a 400 is not retried


def test_a_reply_cut_at_max_tokens_says_so(scripted_llm_server):
    server = scripted_llm_server([reply('["a", "b', finish_reason="length")])
    [result] = make_client(server).complete([ask("x")])
    assert (result.text, result.finish_reason) == ('["a", "b', "length")


# -- faults of the whole setup ----------------------------------------------------------------------


def test_a_server_that_is_down_raises_naming_base_url(fast_backoff, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    base_url = f"http://127.0.0.1:{free_port()}/v1"
    client = make_client(base_url, max_retries=2)
    with pytest.raises(ServerNotAvailableError) as raised:
        client.complete([ask("a"), ask("b"), ask("c")])
    message = str(raised.value)
    assert isinstance(raised.value, ModelNotAvailableError)
    assert base_url in message and "check that the server is running" in message and "3 attempts" in message
    assert SECRET not in message and raised.value.__cause__ is None


def test_an_unknown_model_raises_naming_it_and_listing_the_served_ones(scripted_llm_server):
    server = scripted_llm_server(default=error(404, "The model `qwen-2.5-7b` does not exist."), models=("qwen2.5-7b-instruct", "llama-3-8b"))
    with pytest.raises(UnknownModelError) as raised:
        make_client(server, model="qwen-2.5-7b").complete([ask("a"), ask("b")])
    message = str(raised.value)
    assert "unknown model 'qwen-2.5-7b'" in message and server.base_url in message
    assert "llama-3-8b, qwen2.5-7b-instruct" in message and "did you mean 'qwen2.5-7b-instruct'" in message
    assert raised.value.available == ("llama-3-8b", "qwen2.5-7b-instruct")


def test_a_400_naming_the_model_is_an_unknown_model_when_the_list_lacks_it(scripted_llm_server):
    server = scripted_llm_server(default=error(400, "model 'nope' not found, try pulling it first"), models=("llama3",))
    with pytest.raises(UnknownModelError, match="unknown model 'nope'.*llama3"):
        make_client(server, model="nope").complete([ask("a")])


def test_a_404_for_a_listed_model_says_to_check_base_url(scripted_llm_server):
    server = scripted_llm_server(default=error(404, "Not Found"), models=("scripted",))
    with pytest.raises(ServerNotAvailableError, match=r"lists model 'scripted' but answered 404 .*check that base_url is the OpenAI-compatible API root"):
        make_client(server).complete([ask("a")])


def test_a_refused_key_raises_naming_the_variable_not_the_key(scripted_llm_server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    server = scripted_llm_server(default=error(401, f"Incorrect API key provided: {SECRET}"))
    with pytest.raises(ServerNotAvailableError) as raised:
        make_client(server).complete([ask("a")])
    assert f"${KEY_ENV}" in str(raised.value) and SECRET not in str(raised.value)


# -- the API key ----------------------------------------------------------------------------------


def test_the_key_is_sent_to_the_server_and_appears_nowhere_else(scripted_llm_server, tmp_path, monkeypatch, caplog, fast_backoff):
    monkeypatch.setenv(KEY_ENV, SECRET)
    caplog.set_level(logging.DEBUG)
    echoed = f"bad header Authorization: Bearer {SECRET}"
    server = scripted_llm_server([reply('["ok"]'), error(400, echoed), error(500, echoed)], default=error(404, echoed), models=("scripted",))
    cache = ResponseCache(tmp_path / "cache")
    client = make_client(server, cache=cache, concurrency=1, max_retries=0)
    results = client.complete([ask("a"), ask("b"), ask("c")])
    with pytest.raises(ModelNotAvailableError) as raised:
        client.complete([ask("d")])
    assert {request.headers["authorization"] for request in server.chat_requests} == {f"Bearer {SECRET}"}
    texts = [repr(client), repr(results), str(results), str(raised.value), repr(raised.value), caplog.text]
    texts += [path.read_text(encoding="utf-8") for path in (tmp_path / "cache").rglob("*") if path.is_file()]
    assert results[1].problem and results[2].problem and "***" in results[1].problem
    assert not [text for text in texts if SECRET in text]


def test_without_a_key_a_placeholder_is_sent(scripted_llm_server, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    server = scripted_llm_server([reply('["ok"]')])
    [result] = make_client(server).complete([ask("a")])
    assert result.ok and server.chat_requests[0].headers["authorization"] == "Bearer no-key"


# -- the cache --------------------------------------------------------------------------------------


def test_a_second_call_is_answered_from_the_cache_without_a_request(scripted_llm_server, tmp_path):
    server = scripted_llm_server(lambda payload: reply(json.dumps([last_user_text(payload).upper()])))
    requests = [ask(f"row {i}", seed=i) for i in range(5)]
    first = make_client(server, cache=ResponseCache(tmp_path)).complete(requests)
    second = make_client(server, cache=ResponseCache(tmp_path)).complete(requests)
    assert len(server.chat_requests) == 5
    assert [r.text for r in second] == [r.text for r in first] == [json.dumps([f"ROW {i}"]) for i in range(5)]
    assert [(r.prompt_tokens, r.completion_tokens) for r in second] == [(r.prompt_tokens, r.completion_tokens) for r in first]
    assert all(r.cached and r.attempts == 0 for r in second) and not any(r.cached for r in first)


def test_the_cache_is_keyed_by_server_model_and_every_setting(tmp_path):
    cache = ResponseCache(tmp_path)
    request = ask("x", seed=1)
    cache.put("http://a/v1", "m", request, CachedReply('["x"]', 3, 4))
    assert cache.get("http://a/v1", "m", request) == CachedReply('["x"]', 3, 4)
    assert cache.get("http://a/v1/", "m", request) == CachedReply('["x"]', 3, 4)
    for base_url, model, other in [
        ("http://b/v1", "m", request),
        ("http://a/v1", "m2", request),
        ("http://a/v1", "m", ask("x", seed=2)),
        ("http://a/v1", "m", ask("x", seed=1, temperature=0.5)),
        ("http://a/v1", "m", ask("x", seed=1, top_p=0.5)),
    ]:
        assert cache.get(base_url, model, other) is None


def test_a_cache_entry_is_one_small_json_file_in_a_shard_without_secrets(tmp_path):
    cache = ResponseCache(tmp_path)
    request = ask("x")
    path = cache.put("http://user:pw@host/v1", "m", request, CachedReply('["x"]', 1, 2))
    assert path.parent.parent == tmp_path and len(path.parent.name) == 2 and path.suffix == ".json"
    entry = json.loads(path.read_text(encoding="utf-8"))
    assert entry == {"format": 1, "text": '["x"]', "prompt_tokens": 1, "completion_tokens": 2}
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == [path]  # no temporary file left


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "wrong types"])
def test_a_damaged_cache_entry_is_a_miss_and_is_overwritten(scripted_llm_server, tmp_path, damage):
    server = scripted_llm_server(default=reply('["fresh"]'))
    cache = ResponseCache(tmp_path)
    request = ask("x")
    path = cache.put(server.base_url, "scripted", request, CachedReply('["stale but whole"]', 1, 1))
    whole = path.read_text(encoding="utf-8")
    damaged = {"truncate": whole[: len(whole) // 2], "garbage": "\x00\xff{", "empty": "", "wrong types": '{"format": 1, "text": 3}'}
    path.write_text(damaged[damage], encoding="utf-8")
    [result] = make_client(server, cache=cache).complete([request])
    assert (result.text, result.cached) == ('["fresh"]', False)
    assert len(server.chat_requests) == 1
    assert cache.get(server.base_url, "scripted", request).text == '["fresh"]'


def test_problems_are_not_cached(scripted_llm_server, tmp_path):
    server = scripted_llm_server([reply([]), reply('["second time"]')])
    cache = ResponseCache(tmp_path)
    assert make_client(server, cache=cache).complete([ask("x")])[0].problem == "the server returned no choice"
    assert make_client(server, cache=cache).complete([ask("x")])[0].text == '["second time"]'


def test_the_default_cache_folder_follows_augkit_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    assert default_cache_folder() == tmp_path / "llm" == ResponseCache().folder
    monkeypatch.delenv(CACHE_DIR_ENV)
    assert str(default_cache_folder()).endswith(".cache/augkit/llm")


def test_answers_before_a_fatal_error_are_kept_in_the_cache(scripted_llm_server, tmp_path):
    def answer(payload):
        text = last_user_text(payload)
        return reply('["ok"]') if text == "good" else ScriptedResponse(404, {"error": {"message": "gone"}}, delay=0.2)

    server = scripted_llm_server(answer)
    cache = ResponseCache(tmp_path)
    with pytest.raises(ModelNotAvailableError):
        make_client(server, cache=cache, concurrency=2).complete([ask("good"), ask("bad")])
    assert cache.get(server.base_url, "scripted", ask("good")).text == '["ok"]'


# -- a real server --------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_real_transformers_serve_answers_in_order_and_from_the_cache(llm_server, tmp_path):
    requests = [ask(f"I lost my card {i}", max_tokens=32, seed=i, temperature=1.0) for i in range(4)]
    client = ChatClient(llm_server.base_url, llm_server.model, concurrency=2, cache=ResponseCache(tmp_path))
    first = client.complete(requests)
    # Random weights: a reply may be all whitespace, which is the row's problem, not an error.
    assert all((r.text is not None) != (r.problem == "the reply is empty") for r in first)
    assert all(r.attempts == 1 and r.prompt_tokens > 0 and r.completion_tokens > 0 for r in first)
    second = client.complete(requests)
    assert [r.cached for r in second] == [r.ok for r in first]  # answers are cached, problems not
    assert [r.text for r, f in zip(second, first) if f.ok] == [f.text for f in first if f.ok]


@pytest.mark.slow
def test_a_real_server_refusing_an_unknown_model_raises_naming_it(llm_server):
    with pytest.raises(UnknownModelError, match="unknown model 'no-such-model'") as raised:
        ChatClient(llm_server.base_url, "no-such-model", max_retries=0).complete([ask("hi", max_tokens=4)])
    assert llm_server.base_url in str(raised.value)
