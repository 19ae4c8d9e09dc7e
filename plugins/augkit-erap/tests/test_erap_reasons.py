"""ERAP says why a text or a pair got nothing, refuses paraphrases caught in a repetition loop,
and keeps protected spans (issue 35): on SICK's trial pairs (the other ERAP tests read training
pairs) and Quora dev questions past line 6000, with the tiny random models of the root
conftest and this plugin's."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from augkit_erap.augmenter import ERAP, REPETITION_REASON
from augkit_erap.sources import ONLY_COPIES

import augkit
from augkit.pipeline.run import NOTHING_GENERATED
from augkit.plugin import ProtectedSpan, repetition_loop
from augkit.protection.reading import code_spans
from augkit.testing.scripted_chat import reply

P, H, LABEL = "sentence_A", "sentence_B", "entailment_label"


@pytest.fixture(scope="module")
def sick_trial(shared_data) -> pd.DataFrame:
    """24 SICK trial pairs."""
    frame = pd.read_csv(shared_data / "sick" / "kkalouli" / "SICK.txt", sep="\t", dtype=str, keep_default_na=False)
    return frame[frame["SemEval_set"] == "TRIAL"].head(24)[[P, H, LABEL]].reset_index(drop=True)


@pytest.fixture(scope="module")
def models(tiny_pair_classifier, tiny_encoder_dir) -> dict:
    return {"oracle": str(tiny_pair_classifier), "similarity_model": str(tiny_encoder_dir), "device": "cpu"}


def test_every_text_reranked_without_a_paraphrase_says_why(models, sick_trial):
    texts = list(dict.fromkeys(sick_trial[H]))[:16]
    out, report = augkit.augment_with_report(texts, "erap", n=2, seed=0, sample_from="backtranslation", num_return=2, **models)
    reasons = report.without_augmentation
    assert sum(reasons.values()) == len(texts) - report.rows_augmented > 0
    assert NOTHING_GENERATED not in reasons
    relation = ("erap: no sample holds the relation 'equivalence' by the oracle; require_relation=false keeps the best "
                "by reward whatever its relation")
    assert reasons[relation] >= 1
    assert all(reason == relation or reason.startswith("erap: sample_from='backtranslation' gave nothing (backtranslation: round trip ")
               for reason in reasons), reasons
    _, loose = augkit.augment_with_report(texts, "erap", n=2, seed=0, sample_from="backtranslation", num_return=2,
                                          require_relation=False, **models)
    assert relation not in loose.without_augmentation
    assert loose.rows_augmented == report.rows_augmented + reasons[relation]


def test_a_generator_that_writes_nothing_new_is_said_so(tiny_erap_generator, sick_trial):
    texts = list(dict.fromkeys(sick_trial[H]))[:8]
    out, report = augkit.augment_with_report(texts, "erap", n=2, seed=0, generator=str(tiny_erap_generator),
                                             max_new_tokens=16, device="cpu")
    # the random generator stops at once: every paraphrase is empty
    assert report.without_augmentation == {ONLY_COPIES: len(texts)}


def _text_of(request) -> str:
    return request["messages"][-1]["content"].split("Text: ", 1)[1].split("\n", 1)[0]


def test_sampled_paraphrases_caught_in_a_loop_are_refused_and_said(models, sick_trial, scripted_llm_server):
    """Samples from a chat model (a scripted server) that repeat a phrase over and over."""
    texts = list(dict.fromkeys(sick_trial[H]))[:8]

    def looping(request):
        words = _text_of(request).split()
        return reply(json.dumps([" ".join(words[:2] * 3 + words[2:])]))

    server = scripted_llm_server(looping)
    sample_from = (f"llm_paraphrase(base_url='{server.base_url}', model=scripted, cache=false, refuse_loops=false, "
                   "max_retries=0)")
    out, report = augkit.augment_with_report(texts, "erap", n=1, seed=0, sample_from=sample_from, num_return=1,
                                             require_relation=False, **models)
    assert report.without_augmentation == {REPETITION_REASON: len(texts)}
    kept = augkit.augment(texts, "erap", n=1, seed=0, sample_from=sample_from, num_return=1, require_relation=False,
                          refuse_loops=False, **models)
    assert all(len(row) == 1 and repetition_loop(text, row[0]) for text, row in zip(texts, kept))


def test_a_pair_whose_label_no_rule_determines_says_so(models, sick_trial):
    out, report = augkit.augment_with_report(
        sick_trial, "erap", n=2, seed=0, sample_from="eda", num_return=4, require_relation=False, types="forward", **models,
        premise_column=P, hypothesis_column=H, label_column=LABEL)
    reasons = report.without_augmentation
    not_entailed = int((sick_trial[LABEL] != "ENTAILMENT").sum())
    undetermined = ("erap: no rule of types=forward determines the label of a pair not labelled 'ENTAILMENT' under "
                    "projection=paper (the forward type, and reverse under strict, leave it unknown)")
    assert reasons[undetermined] == not_entailed > 0
    assert sum(reasons.values()) == len(sick_trial) - report.rows_augmented
    assert NOTHING_GENERATED not in reasons


def test_sampled_paraphrases_that_kept_every_span_are_offered_first(models, quora_dev_codes):
    question = quora_dev_codes[1]  # "Which phone is best under 15k?"
    start = question.index("15k")
    span = (ProtectedSpan(start, start + 3, "15k", "code"),)
    erap = ERAP(sample_from="eda", require_relation=False, **models)
    samples = [[question.replace("15k", "15 thousand"), question.replace("Which", "What")]]
    assert erap.reranked([question], samples, ["equivalence"], 1, [span]) == [[question.replace("Which", "What")]]
    assert erap.reranked([question], [samples[0][::-1]], ["equivalence"], 1, [span]) == [[question.replace("Which", "What")]]


def test_the_sampled_method_is_given_the_protected_spans(models, quora_dev_codes):
    texts = quora_dev_codes[:30]
    out, trace = augkit.augment(pd.DataFrame({"text": texts}), "erap", n=1, seed=0, sample_from="backtranslation", num_return=1,
                                require_relation=False, trace=True, **models)
    assert (trace["fate"] == "kept").sum() >= len(texts) // 3
    assert not (trace["dropped_by"] == "protected").any()
    for row in out[out["augkit_method"].notna()].itertuples():
        assert all(span.text in row.text for span in code_spans(texts[row.augkit_source]))


@pytest.fixture(scope="module")
def quora_dev_codes(shared_data) -> list[str]:
    """Quora dev questions from line 6001 on holding a code protected by default ("15k", "SIM", "IIT")."""
    lines = (shared_data / "quora_pairs" / "paragen" / "commit_bd93576" / "dev.q1").read_text(encoding="utf-8").splitlines()
    return [text for text in lines[6000:] if "(" not in text and code_spans(text)][:40]
