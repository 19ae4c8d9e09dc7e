"""The ``question`` filter: a rewrite of a question must still ask (issue 35: the Bergamot round
trip turned 15 of 30 CLINC150 out-of-scope requests into statements, "can you dim the
brightness of my screen" -> "You can darken the brightness of my screen", and the label-safe
recipe kept them).

Sources are CLINC150 test lines 1001-1300 and out-of-scope test lines, read from the shared data
(no other test reads them); the candidates are what Bergamot's round trip and EDA wrote for them.
"""

from __future__ import annotations

import pytest

import augkit
from augkit.filters import QuestionFilter
from augkit.filters.question import mood


@pytest.fixture(scope="module")
def clinc_test(shared_data) -> list[str]:
    return (shared_data / "clinc150" / "jianguoz" / "test" / "seq.in").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def out_of_scope(shared_data) -> list[str]:
    return (shared_data / "clinc150" / "jianguoz" / "oos" / "test" / "seq.in").read_text(encoding="utf-8").splitlines()


def line(lines: list[str], text: str) -> str:
    """``text``, checked to be a line of the data (the sources are real rows)."""
    assert text in lines, text
    return text


@pytest.mark.parametrize("source, candidate, opening", [
    ("can you dim the brightness of my screen", "You can darken the brightness of my screen", "'can you' -> 'you can'"),
    ("what oil is best for chicken", "that oil is better for chicken", "'what oil' -> 'that oil'"),
    ("has there been anything breaking this afternoon", "there's been anything that surrounded this afternoon",
     "'has there' -> \"there's been\""),
    ("did the stock market finish up for the day", "made the stock market finish for the day", "'did the' -> 'made the'"),
    ("which stocks have lost the least today", "that stocks lost less today", "'which stocks' -> 'that stocks'"),
])
def test_round_trips_that_answer_instead_of_asking_are_dropped(out_of_scope, source, candidate, opening):
    step = QuestionFilter()
    assert step.explain(line(out_of_scope, source), candidate) == f"question turned into a statement: {opening}"
    kept = step.filter(source, [augkit.Candidate(candidate, "backtranslation")])
    assert kept == []


@pytest.mark.parametrize("source, candidate", [
    ("could you tell me what my credit score is", "tell me what my credit score is"),  # a request in the imperative
    ("can you check my credit score", "please check my credit score"),
    ("can i apply for a visa card", "can I apply for a visa card?"),
    ("does my vacation have approval", "my vacation has been approved?"),  # asked by its question mark
    ("how do i get red wine out of a couch cushion", "how of I get red wine from a sofa cushion"),
])
def test_rewrites_that_still_ask_or_request_are_kept(clinc_test, out_of_scope, source, candidate):
    assert source in clinc_test or source in out_of_scope, source
    assert QuestionFilter().explain(source, candidate) == ""


def test_statements_are_not_its_business(clinc_test):
    source = line(clinc_test, "i want to see all transactions in the past month for all accounts")
    assert not mood(source).asks
    assert QuestionFilter().explain(source, "all transactions of the past month in all my accounts") == ""
    asked = line(clinc_test, "i've lost my luggage what should i do now")
    assert mood(asked).asks  # "what should": a question word before an auxiliary, anywhere


def test_words_before_a_question_and_prepositions_do_not_hide_it():
    assert mood("please can you say that again").asks
    assert mood("hey, what time is it in tokyo").asks
    assert mood("at what age can someone get a card").asks
    assert mood("if humans evolved from apes then why are there still apes").asks
    assert mood("İs it possible to be in love with 2 people").asks  # a dotted capital I lower-cases with a mark
    assert not mood("you can darken the brightness of my screen").asks
    assert not mood("have not seen my card yet").asks


def test_in_a_pipeline_the_trace_says_why(out_of_scope):
    class StatementMaker(augkit.Augmenter):
        """Says each question the way the Bergamot round trip does: 'can you' -> 'you can'."""
        name = "statement_maker"

        def augment(self, text, n, rng):
            return [text.replace("can you", "you can")]

    sources = [text for text in out_of_scope if text.startswith("can you")][:6]
    assert len(sources) == 6
    assert all(augkit.augment(sources, StatementMaker(), n=1, seed=0))
    pipeline = augkit.Pipeline(StatementMaker(), ["question"])
    out, trace = augkit.augment(sources, pipeline, n=1, seed=0, trace=True)
    assert out == [[] for _ in sources]
    dropped = trace[trace["fate"] == "dropped"]
    assert dropped["dropped_by"].tolist() == ["question"] * 6
    assert set(dropped["reason"]) == {"question turned into a statement: 'can you' -> 'you can'"}
