"""The ``faq`` method says why a question got nothing, refuses candidates caught in a repetition
loop, and keeps protected spans (issue 35), on Quora questions of the dev file past line 6000
(read by no other test): a method generator is given the spans (back-translation carries them
as placeholders), a model generator's candidates that kept them come first, and
:func:`~augkit_faq.paraphrase_faq` records loops in its candidates table."""

from __future__ import annotations

import pandas as pd
import pytest
from augkit_faq import FAQParaphraser, paraphrase_faq
from augkit_faq.augmenter import NOTHING_GENERATED as NO_CANDIDATE
from augkit_faq.augmenter import REPETITION_REASON

import augkit
from augkit.pipeline.run import NOTHING_GENERATED
from augkit.protection.reading import code_spans


@pytest.fixture(scope="module")
def quora_dev(shared_data) -> list[str]:
    path = shared_data / "quora_pairs" / "paragen" / "commit_bd93576" / "dev.q1"
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def questions(quora_dev) -> list[str]:
    """Twenty questions from line 6001 on, without a parenthesis (no abbreviation to shorten)."""
    return [text for text in quora_dev[6000:6100] if "(" not in text and "  " not in text][:20]


@pytest.fixture(scope="module")
def questions_with_codes(quora_dev) -> list[str]:
    """Questions from line 6001 on holding a code protected by default ("SIM", "15k", "F1", "IIT")."""
    return [text for text in quora_dev[6000:] if "(" not in text and code_spans(text)][:60]


class Scripted:
    """A question generator that answers each question from a function of it."""

    name = "scripted"

    def __init__(self, replies):
        self.replies = replies

    def generate(self, questions, num_return, seeds, *, progress=False):
        return [self.replies(question) for question in questions]


def _loop(text: str) -> str:
    words = text.split()
    return " ".join(words[:2] * 3 + words[2:])


def test_every_question_without_a_candidate_says_why(questions):
    def replies(question):
        kind = questions.index(question) % 4
        if kind == 0:
            return ["", "   "]  # only empty texts
        if kind == 1:
            return [question.lower(), question.upper().rstrip("?") + " ?"]  # only repeats
        if kind == 2:
            return [_loop(question)]
        return [question.rstrip("?") + " please?"]

    out, report = augkit.augment_with_report(questions, FAQParaphraser(generator=Scripted(replies), num_return=3), n=2, seed=0)
    reasons = report.without_augmentation
    assert sum(reasons.values()) == len(questions) - report.rows_augmented == 15
    assert NOTHING_GENERATED not in reasons
    assert reasons[NO_CANDIDATE] == 5
    assert reasons[REPETITION_REASON] == 5
    repeats = next(reason for reason in reasons if reason.startswith("faq: every candidate repeats the question"))
    assert reasons[repeats] == 5 and "num_return= (now 3)" in repeats
    kept = augkit.augment(questions, FAQParaphraser(generator=Scripted(replies), refuse_loops=False), n=2, seed=0)
    assert [row for position, row in enumerate(kept) if position % 4 == 2] == [[_loop(q)] for q in questions[2::4]]


def test_a_method_generators_reason_is_passed_on(questions):
    _, report = augkit.augment_with_report(questions, "faq", generator="backtranslation", n=1, seed=0)
    reasons = report.without_augmentation
    assert sum(reasons.values()) == len(questions) - report.rows_augmented > 0
    assert all(reason.startswith("faq: the generator gave nothing (") for reason in reasons), reasons
    assert any(reason.startswith("faq: the generator gave nothing (backtranslation: round trip ") for reason in reasons), reasons


def test_a_method_generator_is_given_the_protected_spans(questions_with_codes):
    """Back-translation through the FAQ method carries the codes as placeholders: none of its
    candidates loses one (without the spans it lost some: 4 of 44 on 80 such questions)."""
    frame = pd.DataFrame({"text": questions_with_codes})
    out, trace = augkit.augment(frame, "faq", generator="backtranslation", n=1, seed=0, trace=True)
    generated = trace[trace["fate"] != "none"]
    assert len(generated) >= len(questions_with_codes) // 2
    assert not (generated["dropped_by"] == "protected").any()
    for row in out[out["augkit_method"].notna()].itertuples():
        for span in code_spans(questions_with_codes[row.augkit_source]):
            assert span.text in row.text, (questions_with_codes[row.augkit_source], row.text)


def test_a_model_generators_candidates_that_kept_every_span_come_first(questions_with_codes):
    question = questions_with_codes[1]  # "Which phone is best under 15k?"
    assert [span.text for span in code_spans(question)] == ["15k"]
    scripted = Scripted(lambda q: [q.replace("15k", "15 thousand").replace("Which", "What"), q.replace("Which", "What")])
    out, trace = augkit.augment(pd.DataFrame({"text": [question]}), FAQParaphraser(generator=scripted), n=1, seed=0,
                                trace=True)
    assert out["text"].tolist() == [question, "What phone is best under 15k?"]
    assert trace["dropped_by"].tolist() == [""]  # the one that lost "15k" came second and was not needed


def test_paraphrase_faq_records_a_loop_in_its_candidates_table(covid_faq):
    faq = covid_faq.head(3)
    scripted = Scripted(lambda q: [_loop(q), q.rstrip("?") + " please?"])
    result = paraphrase_faq(faq, "question", "answer", generator=scripted, seed=0)
    looped = result.candidates[result.candidates["candidate"].isin([_loop(q) for q in faq["question"]])]
    assert len(looped) == 3
    assert (looped["status"] == "meaning_changed").all()
    assert looped["meaning_change"].str.startswith("repetition: repetition loop: ").all()
    thesis = paraphrase_faq(faq, "question", "answer", generator=scripted, seed=0, screens=())
    assert set(thesis.candidates["status"]) - {"low_similarity", "other_question_nearer"} <= {"accepted"}
