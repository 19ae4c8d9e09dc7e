"""``numbers`` reads an amount with the unit it counts and a duration with its direction as one
expression (issue 35): "2 days ago" is one amount of time pointing back, "€1" one amount of
money, so a rewrite that keeps every word but carries the number away from its unit is a
change the filter catches and names, while the same amount said otherwise is kept.

Sources are rows of the slot fixture ``tests/fixtures/intent_slots.tsv`` (its ``eda`` rewrites
are what the label-safe recipe kept from augkit's EDA, seed 0, before amounts were bound),
CLINC150's ``valid`` split (``bt``: what augkit's offline back-translation wrote for the row in
``benchmarks/intent_filters.py``'s run) and ParaGEN's Quora ``val`` pairs (``quora``: the pair's
other question). ``by hand`` marks a rewrite written for the case from the real row.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from augkit.filters import NumbersFilter
from augkit.filters.number_words import names_a_number
from augkit.steps.candidate import Candidate

FIXTURE = Path(__file__).parents[1] / "fixtures" / "intent_slots.tsv"


@pytest.fixture(scope="module")
def texts(shared_data) -> dict[str, set[str]]:
    """The texts each case below is taken from."""
    with FIXTURE.open(encoding="utf-8", newline="") as handle:
        fixture = {row["text"] for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)}
    quora = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    pairs = zip(*(path.read_text(encoding="utf-8").splitlines() for path in (quora / "val.q1", quora / "val.q2")), strict=True)
    return {
        "fixture": fixture,
        "clinc150 valid": set((shared_data / "clinc150/jianguoz/valid/seq.in").read_text(encoding="utf-8").splitlines()),
        "quora": {f"{first} -> {second}" for first, second in pairs},
    }


def kept(source: str, text: str, step: NumbersFilter | None = None) -> bool:
    candidate = Candidate(text, "test")
    return (step or NumbersFilter()).filter(source, [candidate]) == [candidate]


SPLIT = [  # (source row of the fixture, what EDA made of it, the expression explain() names as lost)
    ("i transferred some money to my mom 2 days ago and she has not received it. i double checked the information and it looks right. can you help me?",
     "i transferred right money to my mom she days ago and 2 has not received it. i double checked the information and it looks some. can you help me?",
     "2 days ago"),
    ("i transferred money to another country several days ago, but my transaction is still pending. i have checked that the accounts are keyed in correctly. what sees to be the problem?",
     "i transferred money to another country several days my, transaction ago but is still pending. i have checked that the accounts are keyed sees correctly. what in to be the problem?",
     "several days ago"),
    ("what is going on? my balance still hasn't updated and it has been two weeks since i deposited my money!",
     "my is going on? my balance still hasn't updated and it has been what weeks since i deposited two money!", "two weeks"),
    ("my card hasn't arrived in the mail yet. i ordered it two weeks ago. what can i do?",
     "two card hasn't arrived in the mail yet. i ordered it my weeks ago. what can i do?", "two weeks ago"),
    ("can i set it up to add money every few days automatically while i am traveling?",
     "i it up to add money few days automatically while i am traveling?", "every few days"),
    ("im trying to top up my card but it's still pending and it's been an hour. is there any way to make it go through faster? do i not have enough?",
     "im trying to top up my card it's it's still pending and faster an been hour. is there any way to make it go through but? do i not have enough?",
     "an hour"),
    ("how much money do i make a week", "how much a do i make money week", "a week"),
    ("A couple weeks ago there was a debit taken from my account from a transaction I don't recall. Is it possible to trace this transaction to make sure I'm not being scammed?",
     "A from weeks ago there was transaction debit taken a my account couple from transaction I don't recall. Is it possible to trace this a to make sure I'm not being scammed?",
     "a couple weeks ago"),
    ("this morning, i tried to send money to my friends several times but each time the transfer fails.  why does it keep failing?  the transfer gets rejected but i do not know what is causing it to be rejected.",
     "this morning, i tried to send be to my friends several money but each time the transfer fails.  why does it keep the?  failing transfer gets rejected but i do not know what is causing it to times rejected.",
     "several times"),
    ("there's a €1 fee on my statement, why?", "there's a €my fee on 1 statement, why?", "€1"),
    ("what can i get for 10 usd in cad", "what can i get for cad usd in 10", "10 usd"),
    ("order an amazon gift card from amazon in the amount of twenty dollars",
     "order an dollars gift card from amazon in the amount of twenty amazon", "twenty dollars"),
    ("how many tablespoons are there in half of a cup", "how many a are there in half of tablespoons cup", "half of a cup"),
    ("seems like the exchange rate for my payment last saturday was wrong. i was charged extra.",
     "seems like the exchange rate saturday my payment last for was wrong. i was charged extra.", "last saturday"),
    ("The day before yesterday, I performed a transfer within the country. It still has not completed. Can you check on that? The account number is definitely correct, as I've checked.",
     "The yesterday before day, I performed I've transfer within the country. It is has not completed. Can you check on that? The account number still definitely correct, as a checked.",
     "day before yesterday"),
    ("set my alarm for six tomorrow morning", "set my alarm morning six tomorrow for", "tomorrow morning"),
    ("make an alarm for one and two in the morning", "make an two for one and alarm in the morning", "two in the morning"),
    ("need airplane ridge from philadelphia to atlanta leaving on the 5th of june and returning on the 8th of june",
     "from airplane ridge need philadelphia to atlanta june on the 5th of june and returning on the 8th of leaving", "8th of june"),
    ("what do i have going on for 12/03/2019", "what do i have going on 03 12/for/2019", "12/03/2019"),
]


@pytest.mark.parametrize("source, text, expression", SPLIT)
def test_a_rewrite_that_carries_an_amount_away_from_its_unit_or_direction_is_dropped_naming_it(texts, source, text, expression):
    assert source in texts["fixture"]
    reason = NumbersFilter().explain(source, text)
    assert reason.startswith("number or time lost: ") and repr(expression) in reason.split("; added: ")[0], reason
    assert not kept(source, text)


CHANGED = [  # (corpus, generator, source, candidate, the expression named as lost): a real change, kept before
    ("clinc150 valid", "bt", "how much is $1 usd in euros", "how much is $1 euros in usd", "$1 usd"),
    ("clinc150 valid", "bt", "what is the total number of pints in two quarts", "What is the total number of pints in two bedrooms", "two quarts"),
    ("clinc150 valid", "by hand", "how many gallons is 50 liters", "how many gallons is 50", "50 liters"),
    ("clinc150 valid", "bt", "where do i have to be on 12/03/2019", "where I have to be on 03/12/2019", "12/03/2019"),
    ("fixture", "by hand", "there's a €1 fee on my statement, why?", "there's a $1 fee on my statement, why?", "€1"),
]


@pytest.mark.parametrize("corpus, generator, source, text, expression", CHANGED)
def test_a_currency_unit_or_date_changed_around_the_same_number_is_dropped(texts, corpus, generator, source, text, expression):
    assert source in texts[corpus]
    reason = NumbersFilter().explain(source, text)
    assert repr(expression) in reason, reason
    assert not kept(source, text)


SAME_AMOUNT = [  # (corpus, generator, source, candidate, an expression of the source read whole): the same amount said otherwise
    ("fixture", "by hand", "my card has not been delivered yet and its been a week since i ordered it, please help",
     "my card has not been delivered yet and its been 7 days since i ordered it, please help", "a week"),
    ("fixture", "by hand", "i transferred some money to my mom 2 days ago and she has not received it. i double checked the information and it looks right. can you help me?",
     "i transferred some money to my mom the day before yesterday and she has not received it. i double checked the information and it looks right. can you help me?",
     "2 days ago"),
    ("fixture", "by hand", "make an alarm for one and two in the morning", "make an alarm for one and 2 am", "two in the morning"),
    ("fixture", "by hand", "what can i get for 10 usd in cad", "what can i get for $10 in cad", "10 usd"),
    ("fixture", "by hand", "what can i get for 10 usd in cad", "what can i get for USD 10 in cad", "10 usd"),
    ("fixture", "by hand", "need airplane ridge from philadelphia to atlanta leaving on the 5th of june and returning on the 8th of june",
     "need airplane ridge from philadelphia to atlanta leaving june 5 and returning june 8", "8th of june"),
    ("clinc150 valid", "by hand", "how many tablespoons are there in half of a cup", "how many tablespoons are there in 0.5 cups", "half of a cup"),
    ("quora", "quora", "What would happen if all the laws and rules were not applicable for a day ?",
     "What would happen if there were no laws for one day ?", "a day"),
]


@pytest.mark.parametrize("corpus, generator, source, text, bound", SAME_AMOUNT)
def test_the_same_amount_said_in_other_words_or_units_is_kept(texts, corpus, generator, source, text, bound):
    assert (f"{source} -> {text}" if corpus == "quora" else source) in texts[corpus]
    assert bound in [e.written for e in NumbersFilter().clues(source)]
    assert kept(source, text), NumbersFilter().explain(source, text)


LEFT_IMPLICIT = [  # (Quora pair, the amount one side says with its currency or article): a currency or article on one side only
    ("Which is the best laptop below Rs 30000 ?", "What is the best laptop under 30000 INR ?", "rs 30000"),
    ("How Indian economy got affected after ban of 500 1000 notes ?",
     "What can be the possible effects of removing 500 and 1000 rupee currency notes ?", "1000 rupee"),
    ("Which phone should I buy under 15k ?", "Which is the best phone under ₹15000 ?", "₹15000"),
    ("How do you spend your weekend doing something useful in Bangalore ?", "What is the best way to spend a weekend in Bangalore ?", "a weekend"),
    ("How can I make an extra $ 1000 a month ?", "How do I make $ 1000 as extra income/month apart from the regular job ?", "a month"),
]


@pytest.mark.parametrize("first, second, bound", LEFT_IMPLICIT)
def test_a_currency_or_article_said_on_one_side_only_is_no_change_unless_it_moved(texts, first, second, bound):
    assert f"{first} -> {second}" in texts["quora"]
    step = NumbersFilter()
    assert bound in [e.written for text in (first, second) for e in step.clues(text)]  # read with its amount
    assert kept(first, second), step.explain(first, second)


def test_amounts_side_by_side_count_the_unit_after_them_but_a_pronoun_one_does_not(texts):
    first = "Is this move of banning 500 & 1000 Rupee notes right ?"
    second = "What are your views about governments decision to stop flow of 1000 and 500 rupee notes . ?"
    assert f"{first} -> {second}" in texts["quora"]
    step = NumbersFilter()
    assert [(e.key, e.written) for e in step.clues(first)] == [("500 rupee", "500 (rupee)"), ("1000 rupee", "1000 rupee")]
    assert kept(first, second), step.explain(first, second)
    made_one = "Can you tell me how long it would take, to make a transfer from France? I made one 2 days ago and its not there yet."
    assert made_one in texts["fixture"]
    assert [e.written for e in step.clues(made_one) if names_a_number(e)] == ["one", "2 days ago"]  # the README's trap
    assert step.explain("2 or 3 days ago", "3 or 2 days ago") == "number or time lost: '2 (days)', '3 days ago'; added: '3 (days)', '2 days ago'"


def test_only_units_bind_not_counted_nouns_products_or_a_degree():
    step = NumbersFilter()
    text = "3 people and 2 cards pay 5 times 3 dollars, 2 times a day, with a degree in business"
    assert [e.written for e in step.clues(text) if names_a_number(e)] == ["3", "2", "5", "3 dollars", "2 times", "a day"]
    assert step.explain("i have 3 people", "i have 3 persons") == ""
    assert step.explain("what can you do with a degree in business", "what can you do with a business degree") == ""
    assert step.explain("how many calories in a day", "how many calories per day") == ""


def test_without_time_words_or_with_words_as_written_amounts_still_bind_as_said():
    no_time = NumbersFilter(time_words=[])
    assert no_time.explain("i sent it 2 days ago", "i sent it she days ago and 2") == ""  # no time unit is read
    assert no_time.explain("there's a €1 fee", "there's a €my fee on 1") == "number or time lost: '€1'; added: '1'"
    as_written = NumbersFilter(words_as_numbers=False)
    assert as_written.explain("it has been two weeks", "it has been 2 weeks") == "number or time lost: 'two weeks'; added: '2 weeks'"
    assert as_written.explain("it has been a week", "it has been 7 days") != ""  # no conversion either
