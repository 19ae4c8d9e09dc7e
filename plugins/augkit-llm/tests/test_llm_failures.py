"""LLM runs that fail say so: against a scripted OpenAI-compatible server, on CLINC150 validation
rows, through ``augkit augment``.

- A row without a usable reply (no JSON list, an empty reply, a request that failed after its
  retries) is a failed row: ``--strict`` fails the run (exit 1) with the reasons counted, and a
  run in which every row failed exits 1 without it, writing nothing.
- A usable reply whose texts only repeat the source is not a failure.
- A reply that could not be used is not served from the cache: a rerun asks again, unless
  ``cache_unusable`` says otherwise.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from augkit.testing import run_command
from augkit.testing.scripted_chat import error, reply

NO_LIST = "Sure! Here are some paraphrases, one per line."


@pytest.fixture(scope="module")
def table(shared_data, tmp_path_factory):
    """4 CLINC150 validation rows (every 500th) as a CSV."""
    lines = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text().splitlines()[::500][:4]
    path = tmp_path_factory.mktemp("rows") / "rows.csv"
    pd.DataFrame({"text": lines}).to_csv(path, index=False)
    return path


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    import augkit_llm.client as client

    monkeypatch.setattr(client, "backoff_delay", lambda *args, **kwargs: 0.0)


def augment(server, table, output, *extra):
    return run_command(["augment", str(table), "-m", "llm_paraphrase", "-n", "1", "--seed", "0", "--no-progress",
                 "--batch-size", "4", "-p", f"base_url={server.base_url}", "-p", "model=scripted", "-p", "concurrency=1",
                 "-p", "max_retries=1", "-p", f"cache_dir={output.parent / 'cache'}", "-o", str(output), *extra])


def text_of(request) -> str:
    return request["messages"][-1]["content"].split("Text: ", 1)[1].split("\n", 1)[0]


def test_strict_fails_on_any_row_without_a_usable_reply_counting_the_reasons(scripted_llm_server, table, tmp_path, capsys):
    script = [reply('["A fine paraphrase"]'), reply(NO_LIST), error(500), error(500), reply("")]
    server = scripted_llm_server(script)
    assert augment(server, table, tmp_path / "strict.csv", "--strict") == 1
    err = capsys.readouterr().err
    assert "augkit: failed: augmenting " in err
    assert "3 of 4 rows of its batch failed: " in err
    for reason in ("1 llm_paraphrase: no JSON list in the reply", "1 llm_paraphrase: the server answered 500",
                   "1 llm_paraphrase: the reply is empty"):
        assert reason in err, err
    assert not (tmp_path / "strict.csv").exists()


def test_without_strict_the_failures_are_counted_and_the_run_completes(scripted_llm_server, table, tmp_path, capsys):
    server = scripted_llm_server([reply('["A fine paraphrase"]'), reply(NO_LIST), reply(NO_LIST), reply(NO_LIST)])
    assert augment(server, table, tmp_path / "out.csv") == 0
    err = capsys.readouterr().err
    assert "3 rows got no augmentation: 3 augmentation failed (llm_paraphrase: no JSON list in the reply)" in err
    assert len(pd.read_csv(tmp_path / "out.csv")) == 5


def test_a_run_in_which_every_row_failed_exits_1_with_the_reasons_and_writes_nothing(scripted_llm_server, table, tmp_path,
                                                                                    capsys):
    server = scripted_llm_server([reply(NO_LIST), reply("[]"), error(500), error(500), reply(NO_LIST)])
    output = tmp_path / "out.csv"
    assert augment(server, table, output) == 1
    err = capsys.readouterr().err
    assert ("augkit: failed: nothing was augmented: a step failed on all 4 rows asked: 2 llm_paraphrase: no JSON list in "
            "the reply, 1 llm_paraphrase: the list is empty, 1 llm_paraphrase: the server answered 500") in err
    assert f"{output} was not written" in err and not output.exists()


def test_replies_that_only_repeat_the_source_are_not_failures(scripted_llm_server, table, tmp_path, capsys):
    server = scripted_llm_server(lambda request: reply(json.dumps([text_of(request)])))
    assert augment(server, table, tmp_path / "out.csv", "--strict") == 0
    err = capsys.readouterr().err
    assert "4 rows got no augmentation: 4 llm_paraphrase: every text in the reply repeats the source or an earlier one" in err


def test_an_unusable_reply_is_asked_for_again_on_a_rerun(scripted_llm_server, table, tmp_path, capsys):
    """The same job twice: the first reply to a row could not be used, the rerun asks for it
    again (and uses the new reply); the usable replies come from the cache."""
    first = {}

    def answer(request):
        text = text_of(request)
        if text not in first:
            first[text] = True
            return reply(NO_LIST if len(first) == 1 else json.dumps([f"Kindly: {text}"]))
        return reply(json.dumps([f"Asked again: {text}"]))

    server = scripted_llm_server(answer)
    assert augment(server, table, tmp_path / "first.csv") == 0
    assert "1 augmentation failed (llm_paraphrase: no JSON list in the reply)" in capsys.readouterr().err
    assert len(server.chat_requests) == 4
    assert augment(server, table, tmp_path / "second.csv") == 0
    err = capsys.readouterr().err
    assert len(server.chat_requests) == 5, "only the row whose reply was unusable is asked again"
    assert "every row got at least one augmentation" in err and "usage: 4 requests, 3 from the cache" in err
    second = pd.read_csv(tmp_path / "second.csv")
    assert second["text"].str.startswith("Asked again: ").sum() == 1


def test_cache_unusable_serves_the_unusable_reply_again(scripted_llm_server, table, tmp_path, capsys):
    server = scripted_llm_server(lambda request: reply(NO_LIST))
    assert augment(server, table, tmp_path / "first.csv", "-p", "cache_unusable=true") == 1
    assert augment(server, table, tmp_path / "second.csv", "-p", "cache_unusable=true") == 1
    assert len(server.chat_requests) == 4, "the rerun asked nothing: it repeated the cached failures"
    assert augment(server, table, tmp_path / "third.csv") == 1
    assert len(server.chat_requests) == 8, "by default the unusable replies are asked for again"
    capsys.readouterr()
