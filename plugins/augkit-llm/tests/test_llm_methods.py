"""``llm_paraphrase`` and ``llm_generate`` end to end on BANKING77 rows: against a scripted
OpenAI-compatible server for exact replies (prompts, seeds, parsing, duplicates, reasons,
usage and cost, retries, the cache, the key kept out of everything), and against a real
``transformers serve`` for the mechanics (random weights: the replies are noise, so a row
may get nothing; the run must still be complete, reproducible from the cache and counted)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import augkit
from augkit.plugin import InvalidParameterError, ModelNotAvailableError
from augkit.testing import run_command
from augkit.testing.scripted_chat import error, reply


@pytest.fixture
def params(tmp_path) -> dict:
    return {"model": "scripted", "cache_dir": str(tmp_path / "cache"), "max_retries": 2}


def by_text(rows_frame):
    """A script answering each request with paraphrases built from its row's text."""
    def answer(request):
        user = request["messages"][-1]["content"]
        text = user.split("Text: ", 1)[1].split("\n", 1)[0]
        return reply(json.dumps([f"Could you help: {text}", text.upper() + "!", text]))
    return answer


def test_paraphrases_come_from_the_reply_without_copies_of_the_source(scripted_llm_server, rows, params):
    server = scripted_llm_server(by_text(rows))
    out = augkit.augment(list(rows["text"]), "llm_paraphrase", n=3, seed=0, base_url=server.base_url, **params)
    for text, made in zip(rows["text"], out):
        assert made == [f"Could you help: {text}"], "the upper-cased copy and the source itself are the same text"
    assert len(server.chat_requests) == len(rows)
    request = server.chat_requests[0].json
    assert request["model"] == "scripted" and request["messages"][0]["role"] == "system"
    assert "JSON list" in request["messages"][1]["content"] and request["temperature"] == 0.7


def test_seeds_follow_the_run_seed_and_the_cache_replays_the_run(scripted_llm_server, rows, params):
    server = scripted_llm_server(by_text(rows))
    texts = list(rows["text"])
    first, report = augkit.augment_with_report(texts, "llm_paraphrase", n=1, seed=5, base_url=server.base_url, **params)
    seeds = [r.json["seed"] for r in server.chat_requests]
    assert report.usage["requests"] == len(texts) and report.usage["cached"] == 0
    again, cached = augkit.augment_with_report(texts, "llm_paraphrase", n=1, seed=5, base_url=server.base_url, **params)
    assert again == first and len(server.chat_requests) == len(texts), "the second run asks the server nothing"
    assert cached.usage["cached"] == len(texts)
    augkit.augment(texts, "llm_paraphrase", n=1, seed=6, base_url=server.base_url, **params)
    assert [r.json["seed"] for r in server.chat_requests[len(texts):]] != seeds, "another run seed, other request seeds"
    augkit.augment(texts, "llm_paraphrase", n=1, seed=5, base_url=server.base_url, cache=False, **params)
    assert len(server.chat_requests) == 3 * len(texts), "cache=False asks again"


def test_unreadable_replies_give_the_row_nothing_and_say_why(scripted_llm_server, rows, params):
    texts = list(rows["text"][:4])
    script = [reply('["A fine paraphrase of the first row"]'), reply("Sure! Here you go: no list at all"),
              reply([]), reply('```json\n["fenced, and fine",]\n```')]
    server = scripted_llm_server(script)
    out, report = augkit.augment_with_report(texts, "llm_paraphrase", n=2, seed=0, base_url=server.base_url,
                                             concurrency=1, **params)
    assert out == [["A fine paraphrase of the first row"], [], [], ["fenced, and fine"]]
    reasons = report.without_augmentation
    assert sum(reasons.values()) == 2 and all(reason.startswith("augmentation failed (llm_paraphrase: ") for reason in reasons)
    assert any("no JSON list" in reason for reason in reasons) and report.rows_failed == 2
    assert "2 rows got no augmentation" in report.summary()
    # the trace says it too, row by row: a row's own entry, with no candidate and the reason
    server = scripted_llm_server(script)
    _, trace = augkit.augment(pd.DataFrame({"text": texts}), "llm_paraphrase", n=2, seed=0, base_url=server.base_url,
                              concurrency=1, trace=True, **{**params, "cache": False})
    none = trace[trace["fate"] == "none"]
    assert none["source"].tolist() == [1, 2] and none["candidate"].isna().all()
    assert "no JSON list" in none["reason"].iloc[0] and set(none["reason"]) == set(reasons)
    assert trace[trace["fate"] == "kept"]["source"].tolist() == [0, 3]


def test_retries_then_success_and_the_cost_in_the_summary(scripted_llm_server, rows, params, monkeypatch):
    import augkit_llm.client as client

    monkeypatch.setattr(client, "backoff_delay", lambda *args, **kwargs: 0.0)
    server = scripted_llm_server([error(500), error(429, retry_after=0), reply('["Paid for, once"]', prompt_tokens=1000,
                                                                             completion_tokens=500)])
    out, report = augkit.augment_with_report(list(rows["text"][:1]), "llm_paraphrase", n=1, seed=0,
                                             base_url=server.base_url, prompt_price=2.0, completion_price=8.0, **params)
    assert out == [["Paid for, once"]] and len(server.chat_requests) == 3
    assert report.usage["prompt_tokens"] == 1000 and report.usage["completion_tokens"] == 500
    assert report.usage["cost_nanodollars"] == 1000 * 2000 + 500 * 8000
    assert "cost $0.006000" in report.summary()


def test_the_api_key_is_sent_and_never_shown(scripted_llm_server, rows, params, monkeypatch, tmp_path, capsys):
    secret = "sk-test-DO-NOT-LEAK-1234567890"
    monkeypatch.setenv("MY_LLM_KEY", secret)
    server = scripted_llm_server(by_text(rows))
    table = tmp_path / "rows.csv"
    rows.to_csv(table, index=False)
    out = tmp_path / "out.csv"
    code = run_command(["augment", str(table), "-m", "llm_paraphrase", "-n", "1", "--seed", "0", "--label-column", "label",
                 "-p", f"base_url={server.base_url}", "-p", "model=scripted", "-p", "api_key_env=MY_LLM_KEY",
                 "-p", f"cache_dir={params['cache_dir']}", "--trace", str(tmp_path / "trace.csv"), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert all(r.headers["authorization"] == f"Bearer {secret}" for r in server.chat_requests)
    assert "usage: 12 requests" in captured.err
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), path
    assert secret not in captured.out + captured.err


def test_generate_shows_the_labels_examples_from_the_run(scripted_llm_server, rows, params):
    server = scripted_llm_server(lambda request: reply('["A brand new example"]'))
    out = augkit.augment(rows, "llm_generate", n=1, seed=0, label_column="label", num_examples=3, base_url=server.base_url, **params)
    made = out[out["augkit_method"].notna()]
    assert len(made) == len(rows) and set(made["text"]) == {"A brand new example"}
    assert list(made["label"]) == list(rows["label"])
    for request in server.chat_requests:
        prompt = request.json["messages"][1]["content"]
        label = prompt.split("Label: ", 1)[1].split("\n", 1)[0]
        shown = [line[2:] for line in prompt.split("\n") if line.startswith("- ")]
        assert len(shown) == 3
        assert set(shown) <= set(rows.loc[rows["label"] == label, "text"].map(lambda t: " ".join(t.split())))


def test_wrong_settings_are_named(rows, params):
    with pytest.raises(InvalidParameterError, match="user_prompt uses the field"):
        augkit.augment(["a"], "llm_paraphrase", n=1, seed=0, user_prompt="Rewrite {sentence}", **params)
    with pytest.raises(InvalidParameterError, match="base_url"):
        augkit.augment(["a"], "llm_paraphrase", n=1, seed=0, base_url="localhost:8000", **params)
    with pytest.raises(augkit.InputError, match="label column"):
        augkit.augment(rows, "llm_generate", n=1, seed=0, base_url="http://127.0.0.1:9/v1", **params)


def test_a_server_that_is_down_stops_the_run_naming_it(params, monkeypatch):
    import augkit_llm.client as client

    from augkit.testing.loopback import free_port

    monkeypatch.setattr(client, "backoff_delay", lambda *args, **kwargs: 0.0)
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(ModelNotAvailableError, match=url.replace(".", r"\.")):
        augkit.augment(["I lost my card"], "llm_paraphrase", n=1, seed=0, base_url=url, strict=True, **params)


@pytest.mark.slow
def test_a_real_server_runs_the_mechanics(llm_server, rows, tmp_path):
    """transformers serve with random weights: requests, usage and the cache for real."""
    texts = list(rows["text"][:6])
    options = {"base_url": llm_server.base_url, "model": llm_server.model, "max_new_tokens": 24, "concurrency": 2,
               "cache_dir": str(tmp_path / "cache")}

    def run(**extra):
        try:
            return augkit.augment_with_report(texts, "llm_paraphrase", n=2, seed=0, **options, **extra)
        except augkit.NothingAugmentedError as nothing:  # noise rarely holds a JSON list: every row may fail
            return [[] for _ in texts], nothing.report

    first, report = run()
    assert report.usage["requests"] == len(texts) and report.usage["prompt_tokens"] > 0
    assert all(isinstance(row, list) for row in first)
    assert report.rows_augmented + sum(report.without_augmentation.values()) == len(texts)
    again, cached = run()
    assert [row for row, before in zip(again, first) if before] == [row for row in first if row], \
        "usable replies come from the cache"
    assert cached.usage["cached"] == len(texts) - report.rows_failed, "unusable replies are asked for again"
    _, kept = run(cache_unusable=True)
    assert kept.usage["cached"] == len(texts), "cache_unusable serves the unusable replies too"


def test_generate_contrasts_each_label_with_its_nearest_labels(scripted_llm_server, rows, params):
    server = scripted_llm_server(lambda request: reply('["Another new example"]'))
    augkit.augment(rows, "llm_generate", n=1, seed=0, label_column="label", num_examples=2, contrast=2, base_url=server.base_url, **params)
    for request in server.chat_requests:
        prompt = request.json["messages"][1]["content"]
        label = prompt.split("Label: ", 1)[1].split("\n", 1)[0]
        shown = [line.rsplit(" (label: ", 1) for line in prompt.split("\n") if "(label: " in line]
        others = list(dict.fromkeys(other.rstrip(")") for _, other in shown))
        assert len(others) == 2 and label not in others and set(others) <= set(rows["label"])
        for example, other in shown:
            assert example[2:] in set(rows.loc[rows["label"] == other.rstrip(")"), "text"]), "examples are the run's originals"
        assert f'Each new example must belong to "{label}" and not to "{others[0]}" or "{others[1]}".' in prompt


def test_avoid_is_the_old_name_of_contrast(scripted_llm_server, rows, params):
    server = scripted_llm_server(lambda request: reply('["Another new example"]'))
    with pytest.warns(FutureWarning, match="llm_generate: parameter 'avoid' is now called 'contrast'"):
        augkit.augment(rows, "llm_generate", n=1, seed=0, label_column="label", avoid=1, base_url=server.base_url, **params)
    assert all("and not to" in request.json["messages"][1]["content"] for request in server.chat_requests)


def test_no_cache_on_the_command_line_asks_again(scripted_llm_server, rows, params, tmp_path, capsys):
    server = scripted_llm_server(by_text(rows))
    table = tmp_path / "rows.csv"
    rows.head(3).to_csv(table, index=False)
    common = ["augment", str(table), "-m", "llm_paraphrase|dedup", "-n", "1", "--seed", "0", "-p", f"llm_paraphrase.base_url={server.base_url}",
              "-p", "llm_paraphrase.model=scripted", "-p", f"llm_paraphrase.cache_dir={params['cache_dir']}"]
    assert run_command([*common, "-o", str(tmp_path / "a.csv")]) == 0
    assert run_command([*common, "-o", str(tmp_path / "b.csv")]) == 0
    assert len(server.chat_requests) == 3, "the second run reads the cache"
    assert run_command([*common, "--no-cache", "-o", str(tmp_path / "c.csv")]) == 0
    assert len(server.chat_requests) == 6
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "c.csv").read_text()
    capsys.readouterr()


def test_it_composes_with_the_label_safety_and_meaning_filters(scripted_llm_server, rows, params):
    """A reply with a lost negation, a changed number and a fair paraphrase: the filters keep
    only the fair one, and the trace names the step that dropped each other."""
    source = "I did not get my 2 cards"
    server = scripted_llm_server([reply(json.dumps(["I did get my 2 cards", "I did not get my 3 cards",
                                                    "My 2 cards did not arrive"]))])
    out, trace = augkit.augment([source], "llm_paraphrase|negation|numbers|semantic(min=0.5)", n=3, seed=0, trace=True,
                                **{f"llm_paraphrase.{k}": v for k, v in params.items()},
                                **{"llm_paraphrase.base_url": server.base_url})
    assert out == [["My 2 cards did not arrive"]]
    fates = dict(zip(trace["candidate"], [fate if fate == "kept" else by for fate, by in zip(trace["fate"], trace["dropped_by"])]))
    assert fates == {"I did get my 2 cards": "negation", "I did not get my 3 cards": "numbers",
                     "My 2 cards did not arrive": "kept"}


def test_a_killed_job_resumes_asking_each_row_once(scripted_llm_server, shared_data, tmp_path):
    """Killed after its first chunks, an LLM file job resumed with --resume asks the server only
    for rows whose answer it never received (answers received come from the cache, even in the
    chunk the kill cut short) and writes the same file as an uninterrupted run."""
    import signal
    import subprocess
    import sys
    import time

    lines = (shared_data / "banking77" / "jianguoz" / "test" / "seq.in").read_text().splitlines()[:24]
    table = tmp_path / "rows.csv"
    pd.DataFrame({"text": lines}).to_csv(table, index=False)

    def slow(request):
        text = request["messages"][-1]["content"].split("Text: ", 1)[1].split("\n", 1)[0]
        return reply(json.dumps([f"Please help: {text}"]), delay=0.05)

    server = scripted_llm_server(slow)
    arguments = [str(table), "-m", "llm_paraphrase", "-n", "1", "--seed", "4", "--chunk-rows", "4", "--batch-size", "2",
                 "--no-progress", "-p", f"base_url={server.base_url}", "-p", "model=scripted", "-p", "concurrency=1",
                 "-p", f"cache_dir={tmp_path / 'cache'}"]
    command = [sys.executable, "-m", "augkit.cli", "augment", *arguments]
    output, job = tmp_path / "out.csv", tmp_path / ".out.csv.augkit-job"
    process = subprocess.Popen([*command, "-o", str(output)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list(job.glob("chunk-*.json"))) < 2:
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    asked_before = len(server.chat_requests)  # a request the kill cut mid-body is not among them
    assert not output.exists() and 8 <= asked_before < len(lines)

    resumed = subprocess.run([*command, "-o", str(output), "--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    prompts = [r.json["messages"][-1]["content"] for r in server.chat_requests]
    assert len(set(prompts)) == len(lines)
    repeated = [p for p in set(prompts) if prompts.count(p) > 1]
    # Only a request in flight when the job was killed (concurrency 1: at most one) is asked again:
    # its answer never reached the cache. Every answer received is read from the cache.
    assert len(repeated) <= 1 and all(prompts.index(p) == asked_before - 1 for p in repeated)

    reference = subprocess.run([*command, "-o", str(tmp_path / "reference.csv"), "--no-cache"], capture_output=True, text=True)
    assert reference.returncode == 0, reference.stderr
    assert output.read_bytes() == (tmp_path / "reference.csv").read_bytes()
