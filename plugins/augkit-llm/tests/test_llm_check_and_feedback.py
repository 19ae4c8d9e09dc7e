"""``llm_check`` (re-classification among a candidate's label and its nearest labels) and
``llm_generate(feedback=...)`` (rows whose candidates the filters rejected asked again, told
why) against a scripted OpenAI-compatible server, on BANKING77 rows: what each request shows,
what is dropped and why, which rows are asked again, the usage, and the same result whatever
the batch size."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import augkit
from augkit.testing.scripted_chat import reply


@pytest.fixture
def params(tmp_path) -> dict:
    return {"model": "scripted", "cache_dir": str(tmp_path / "cache"), "max_retries": 0}


def is_check(request: dict) -> bool:
    return request["messages"][0]["content"].startswith("You classify")


def shown_labels(request: dict) -> list[str]:
    """The labels a check request lists."""
    block = request["messages"][1]["content"].split("Labels:\n", 1)[1].split("\nText: ", 1)[0]
    return [line[2:] for line in block.splitlines()]


def checked_text(request: dict) -> str:
    return request["messages"][1]["content"].split("\nText: ", 1)[1].split("\n", 1)[0]


def generated_label(request: dict) -> str:
    return request["messages"][1]["content"].split("Label: ", 1)[1].split("\n", 1)[0]


def server_script(check_answer, generate_answer=lambda request: [f"a new example of {generated_label(request)}"]):
    """Answers check requests with ``check_answer(request)`` and generation requests with the
    JSON list ``generate_answer(request)``."""
    def answer(request):
        if is_check(request):
            return reply(check_answer(request))
        return reply(json.dumps(generate_answer(request)))
    return answer


def pipeline(server, params, generate="", check="nearest_labels=1"):
    """``llm_generate|llm_check`` on ``server`` with the tests' parameters."""
    common = {**params, "base_url": server.base_url}
    options = ", ".join(f"{key}={value!r}" for key, value in common.items())
    return augkit.Pipeline.from_string(f"llm_generate({options}{', ' + generate if generate else ''})"
                                       f"|llm_check({options}, {check})")


def test_check_drops_a_candidate_the_model_classes_as_another_label_and_names_it(scripted_llm_server, rows, params):
    server = scripted_llm_server(server_script(lambda request: shown_labels(request)[0]))
    out, trace = augkit.augment(rows, pipeline(server, params), n=1, seed=0, label_column="label", trace=True)
    checks = [r.json for r in server.chat_requests if is_check(r.json)]
    assert len(checks) == len(rows), "one check per candidate"
    order = list(dict.fromkeys(rows["label"]))
    for request in checks:
        labels = shown_labels(request)
        own = checked_text(request).removeprefix("a new example of ")
        assert len(labels) == 2 and own in labels, "the candidate's label and its nearest one"
        assert labels == sorted(labels, key=order.index), "in the order the data first gives them"
    dropped = trace[trace["fate"] == "dropped"]
    assert set(dropped["dropped_by"]) == {"llm_check"} and len(dropped) > 0
    for candidate, reason in zip(dropped["candidate"], dropped["reason"]):
        own = candidate.removeprefix("a new example of ")
        assert reason.startswith("the model classed it as '") and reason.endswith(f"', not '{own}'")
    chosen = {checked_text(r).removeprefix("a new example of "): shown_labels(r)[0] for r in checks}
    kept = set(trace[trace["fate"] == "kept"]["candidate"].str.removeprefix("a new example of "))
    assert kept == {own for own, label in chosen.items() if label == own} and 0 < len(kept) < 3


def test_check_counts_its_requests_in_the_runs_usage(scripted_llm_server, rows, params):
    server = scripted_llm_server(server_script(lambda request: shown_labels(request)[-1]))
    _, report = augkit.augment_with_report(rows, pipeline(server, params), n=1, seed=0, label_column="label")
    assert report.usage["requests"] == len(server.chat_requests) == 2 * len(rows)
    assert report.usage["prompt_tokens"] == 10 * 2 * len(rows), "the scripted server's 10 a request"
    _, again = augkit.augment_with_report(rows, pipeline(server, params), n=1, seed=0, label_column="label")
    assert again.usage["cached"] == again.usage["requests"] == 2 * len(rows) and len(server.chat_requests) == 2 * len(rows)


def test_an_unreadable_answer_drops_the_candidate_quoting_it(scripted_llm_server, rows, params):
    server = scripted_llm_server(server_script(lambda request: "I would rather not say."))
    out, trace = augkit.augment(rows, pipeline(server, params), n=1, seed=0, label_column="label", trace=True)
    assert out["augkit_method"].notna().sum() == 0 and set(trace["fate"]) == {"dropped"}
    assert set(trace["reason"]) == {"the model's answer names none of the labels shown, or several: 'I would rather not say.'"}


def test_check_needs_the_label_column(scripted_llm_server, rows, params):
    server = scripted_llm_server(server_script(lambda request: shown_labels(request)[0]))
    spec = f"llm_paraphrase(base_url={server.base_url!r}, model='scripted')|llm_check(base_url={server.base_url!r})"
    with pytest.raises(augkit.InputError, match="llm_check classifies each candidate among its label .* label column"):
        augkit.augment(list(rows["text"]), spec, n=1, seed=0)


def test_check_gives_the_same_result_whatever_the_batch_size(scripted_llm_server, rows, params):
    def check_answer(request):  # the last label for one text in two, else the first: a mixed verdict
        labels = shown_labels(request)
        return labels[len(checked_text(request)) % 2 - 1]

    runs = []
    for size in (1, 5, 12):
        server = scripted_llm_server(server_script(check_answer))
        out, trace = augkit.augment(rows, pipeline(server, {**params, "cache": False}), n=1, seed=0,
                                    label_column="label", trace=True, batch_size=size)
        runs.append((out, trace, sorted(json.dumps(r.json, sort_keys=True) for r in server.chat_requests)))
    assert all(out.equals(runs[0][0]) and trace.equals(runs[0][1]) and asked == runs[0][2] for out, trace, asked in runs)


def test_feedback_asks_again_only_for_the_rejected_rows_telling_them_why(scripted_llm_server, rows, params):
    rejected_label = rows["label"].iloc[0]
    others = [label for label in dict.fromkeys(rows["label"]) if label != rejected_label]

    def check_answer(request):  # the first round's examples of one label are classed elsewhere
        text = checked_text(request)
        labels = shown_labels(request)
        if text.startswith("first try") and text.endswith(rejected_label):
            return next(label for label in labels if label != rejected_label)
        return text.rsplit(" of ", 1)[1]

    def generate_answer(request):
        label = generated_label(request)
        first = "were rejected" not in request["messages"][1]["content"]
        return [f"{'first try' if first else 'second try'} of {label}"]

    server = scripted_llm_server(server_script(check_answer, generate_answer))
    out, report = augkit.augment_with_report(rows, pipeline(server, params, generate="feedback=2"), n=1, seed=0,
                                             label_column="label")
    generation = [r.json for r in server.chat_requests if not is_check(r.json)]
    again = [request for request in generation if "were rejected" in request["messages"][1]["content"]]
    assert len(generation) == len(rows) + 4 and len(again) == 4, "4 rows of the rejected label asked once more"
    assert {generated_label(request) for request in again} == {rejected_label}
    for request in again:
        prompt = request["messages"][1]["content"]
        assert f"- first try of {rejected_label} (rejected: the model classed it as '" in prompt
        assert f"', not '{rejected_label}')" in prompt
    first_seeds = {generated_label(r): r["seed"] for r in generation if r not in again}
    assert all(request["seed"] != first_seeds[rejected_label] for request in again), "a round's own seed"
    made = out[out["augkit_method"].notna()]
    assert sorted(made["text"]) == sorted([f"second try of {rejected_label}"] * 4
                                          + [f"first try of {label}" for label in others for _ in range(4)])
    assert report.usage["requests"] == len(server.chat_requests) == len(rows) + 4 + len(rows) + 4
    assert report.candidates["generated"] == len(rows) + 4 and report.candidates["llm_check"] == 4


def test_feedback_rounds_stop_at_their_number(scripted_llm_server, rows, params):
    def generate_answer(request):  # a new text each round (one repeating a rejected one would be left out)
        prompt = request["messages"][1]["content"]
        return [f"try {prompt.count('(rejected: ')} of {generated_label(request)}"]

    def check_answer(request):  # always another label
        return next(label for label in shown_labels(request) if not checked_text(request).endswith(label))

    server = scripted_llm_server(server_script(check_answer, generate_answer))
    out = augkit.augment(rows, pipeline(server, params, generate="feedback=2"), n=1, seed=0, label_column="label")
    assert out["augkit_method"].notna().sum() == 0
    generation = [r.json for r in server.chat_requests if not is_check(r.json)]
    assert len(generation) == 3 * len(rows), "the first round and two more, every row rejected each time"
    last = [r for r in generation if r["messages"][1]["content"].count("(rejected: ") == 2]
    assert len(last) == len(rows), "the second extra round lists both earlier rejections"


def test_a_feedback_reply_repeating_a_rejected_example_ends_the_rows_rounds(scripted_llm_server, rows, params):
    server = scripted_llm_server(server_script(lambda request: next(label for label in shown_labels(request)
                                                                     if not checked_text(request).endswith(label))))
    augkit.augment(rows, pipeline(server, params, generate="feedback=3"), n=1, seed=0, label_column="label")
    generation = [r.json for r in server.chat_requests if not is_check(r.json)]
    assert len(generation) == 2 * len(rows), "the repeat is left out: nothing new was rejected, so no third round"


@pytest.mark.slow
def test_the_recipe_runs_against_a_real_server(llm_server, scripted_llm_server, shared_data, tmp_path):
    """``llm_generate(contrast=2, feedback=1)|llm_check`` on 6 rows of BANKING77's 5-shot training
    split (3 labels, 2 rows each) against ``transformers serve`` with a random model, through
    a recording proxy (a scripted server that forwards every request and returns the real
    reply, tokens and all). Random weights write no JSON list and name no label, so the proxy
    wraps a generation reply that holds no list into one (the text the model wrote), and
    answers for the model, by the candidate's real label, the checks of the first label's
    candidates: those are kept, the others dropped as unreadable answers, and the feedback
    round must ask again for exactly the other labels' rows."""
    import urllib.request

    from augkit_llm.parsing import parse_texts

    folder = shared_data / "banking77" / "jianguoz" / "train_5"
    frame = pd.DataFrame({"text": (folder / "seq.in").read_text().splitlines(),
                          "label": (folder / "label").read_text().splitlines()})
    rows = frame[frame["label"].isin(frame["label"].drop_duplicates().head(3))].groupby("label").head(2).reset_index(drop=True)
    labels = list(dict.fromkeys(rows["label"]))
    made_for: dict[str, str] = {}  # generated text -> the label it was written for

    def forward(request):
        body = json.dumps(request).encode()
        post = urllib.request.Request(f"{llm_server.base_url}/chat/completions", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(post, timeout=300) as answer:
            completion = json.load(answer)
        message = completion["choices"][0]["message"]
        if is_check(request):
            label = made_for.get(checked_text(request))
            if label == labels[0]:
                message["content"] = label
        else:
            texts = parse_texts(message["content"] or "").texts or [" ".join((message["content"] or "").split()) or "empty"]
            message["content"] = json.dumps(texts)
            for text in texts:
                made_for[" ".join(text.split())] = generated_label(request)
        return reply(message["content"], prompt_tokens=completion["usage"]["prompt_tokens"],
                     completion_tokens=completion["usage"]["completion_tokens"])

    proxy = scripted_llm_server(forward)
    options = {"base_url": proxy.base_url, "model": llm_server.model, "max_new_tokens": 16, "concurrency": 1,
               "cache_dir": str(tmp_path / "cache")}
    registry = augkit.get_registry()
    # refuse_loops=False: a random model's loops would leave a row without candidates, so without rejections
    recipe = augkit.Pipeline(registry.create_augmenter("llm_generate", {"contrast": 2, "feedback": 1, "refuse_loops": False,
                                                                        **options}),
                             [registry.create_filter("llm_check", {"nearest_labels": 2, **options})])
    out, report = augkit.augment_with_report(rows, recipe, n=1, seed=0, label_column="label")

    asked = [r.json for r in proxy.chat_requests]
    generation = [r for r in asked if not is_check(r)]
    again = [r for r in generation if "were rejected" in r["messages"][1]["content"]]
    first = [r for r in generation if r not in again]
    assert len(first) == len(rows)
    for request in first:
        label = generated_label(request)
        others = [other for other in labels if other != label]
        assert f'Each new example must belong to "{label}" and not to ' in request["messages"][1]["content"]
        assert all(f'"{other}"' in request["messages"][1]["content"] for other in others), "the confusable labels named"
    assert sorted(generated_label(r) for r in again) == sorted(label for label in rows["label"] if label != labels[0]), \
        "the feedback round asks only for the rejected labels' rows"
    assert report.usage["requests"] == len(asked) == len(generation) + sum(map(is_check, asked))
    assert report.usage["prompt_tokens"] > 0 and report.usage["cached"] == 0
