"""The LLM methods and protected spans and repetition loops (issue 35), against a scripted
server, on CLINC150 validation rows past line 2953 (read by no other test): a row's request
lists its protected spans ("Keep these exactly ..."), a row without any sends the request it
sent before (same cache entry), texts that kept every span are offered first, and a text
caught in a repetition loop is refused with a reason."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from augkit_llm.augmenters import ALL_LOOPS

import augkit
from augkit.plugin import repetition_loop
from augkit.testing.scripted_chat import reply

#: Shops and banks the rows below name, protected as the caller's phrases.
PROTECT = ["fred meyer", "td bank", "home depot"]


@pytest.fixture(scope="module")
def rows(shared_data) -> list[str]:
    lines = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()
    return [lines[2955], lines[2959], lines[2979], lines[2992]]  # no span, "fred meyer", "td bank", "home depot"


@pytest.fixture
def params(tmp_path) -> dict:
    return {"model": "scripted", "cache_dir": str(tmp_path / "cache"), "max_retries": 0, "concurrency": 1}


def text_of(request) -> str:
    return request["messages"][-1]["content"].split("Text: ", 1)[1].split("\n", 1)[0]


def _paraphrases(request):
    text = text_of(request)
    return reply(json.dumps([f"could you tell me: {text}"]))


def test_a_rows_request_lists_its_protected_spans_and_a_row_without_any_is_asked_as_before(scripted_llm_server, rows,
                                                                                           params):
    server = scripted_llm_server(_paraphrases)
    _, report = augkit.augment_with_report(rows, "llm_paraphrase", n=1, seed=0, base_url=server.base_url, protect=PROTECT,
                                           **params)
    asked = {text_of(request.json): request.json["messages"][-1]["content"] for request in server.chat_requests}
    assert 'Keep these exactly as they are written, in every paraphrase: "fred meyer"\n' in asked[rows[1]]
    assert '"td bank"' in asked[rows[2]] and '"home depot"' in asked[rows[3]]
    assert "Keep these" not in asked[rows[0]]
    assert report.usage["requests"] == 4 and report.usage["cached"] == 0
    # without protection the row without spans asks exactly the same: its cache entry answers it
    _, unprotected = augkit.augment_with_report(rows, "llm_paraphrase", n=1, seed=0, base_url=server.base_url,
                                                protect_codes=False, **params)
    assert unprotected.usage["cached"] == 1 and len(server.chat_requests) == 4 + 3
    again = {text_of(request.json): request.json for request in server.chat_requests[4:]}
    assert rows[0] not in again and "Keep these" not in again[rows[1]]["messages"][-1]["content"]


def test_a_template_of_ones_own_gets_the_spans_on_its_last_line_or_where_it_says(scripted_llm_server, rows, params):
    server = scripted_llm_server(_paraphrases)
    own = "Rewrite {n} times, as a JSON list.\nText: {text}"
    augkit.augment(rows[:2], "llm_paraphrase", n=1, seed=0, base_url=server.base_url, protect=PROTECT, user_prompt=own,
                   **params)
    asked = {text_of(request.json): request.json["messages"][-1]["content"] for request in server.chat_requests}
    assert asked[rows[0]] == own.format(n=1, text=rows[0])
    assert asked[rows[1]] == own.format(n=1, text=rows[1]) + (
        '\nKeep these exactly as they are written, in every paraphrase: "fred meyer"')
    placed = "Text: {text}\n{keep}Give {n} as a JSON list."
    augkit.augment(rows[1:2], "llm_paraphrase", n=1, seed=1, base_url=server.base_url, protect=PROTECT,
                   user_prompt=placed, **params)
    assert server.chat_requests[-1].json["messages"][-1]["content"] == (
        f'Text: {rows[1]}\nKeep these exactly as they are written, in every paraphrase: "fred meyer"\nGive 1 as a JSON list.')


def test_texts_that_kept_every_span_are_offered_first(scripted_llm_server, rows, params):
    text = rows[1]  # "... if i headed to fred meyer"
    lost, kept = text.replace("fred meyer", "the store"), text.replace("how's", "how is")
    server = scripted_llm_server(lambda request: reply(json.dumps([lost, kept])))
    out, trace = augkit.augment(pd.DataFrame({"text": [text]}), "llm_paraphrase", n=1, seed=0, base_url=server.base_url,
                                protect=PROTECT, trace=True, **params)
    assert out["text"].tolist() == [text, kept]
    assert not (trace["dropped_by"] == "protected").any()


def test_a_text_caught_in_a_loop_is_refused_and_the_row_says_why(scripted_llm_server, rows, params):
    def looping(request):
        words = text_of(request).split()
        loop = " ".join(words[:2] * 3 + words[2:])
        return reply(json.dumps([loop] if words[0] == "how's" else [loop, f"please, {text_of(request)}"]))

    server = scripted_llm_server(looping)
    out, report = augkit.augment_with_report(rows, "llm_paraphrase", n=2, seed=0, base_url=server.base_url, **params)
    assert report.without_augmentation == {f"llm_paraphrase: {ALL_LOOPS}": 1}  # "how's the traffic looking ..."
    assert out[1] == [] and all(row == [f"please, {text}"] for text, row in zip(rows, out) if row)
    assert sum(map(bool, out)) == 3
    kept = augkit.augment(rows, "llm_paraphrase", n=2, seed=0, base_url=server.base_url, refuse_loops=False, cache=False,
                          **params)
    assert all(repetition_loop(text, row[0]) for text, row in zip(rows, kept))


def test_generation_asks_for_the_rows_spans_in_every_example(scripted_llm_server, rows, params):
    server = scripted_llm_server(lambda request: reply(json.dumps(["is the td bank open on sunday"])))
    frame = pd.DataFrame({"text": rows, "label": ["traffic", "traffic", "order_checks", "card_declined"]})
    augkit.augment(frame, "llm_generate", n=1, seed=0, base_url=server.base_url, protect=PROTECT, label_column="label",
                   **params)
    users = [request.json["messages"][-1]["content"] for request in server.chat_requests]
    assert sum('Use these exactly as they are written, in every example: "td bank"\n' in user for user in users) == 1
    assert sum("Use these exactly" in user for user in users) == 3
