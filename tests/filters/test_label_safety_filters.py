"""The label-safety filters (negation, numbers, entities) on real sentences of the shared data.

Every source below is read from the shared data (BANKING77, CLINC150, StackFAQ, JHU COVID
FAQ); every candidate is what a generator really wrote for it: ``bt`` is augkit's offline
back-translation (Bergamot, English -> Portuguese -> English), ``eda`` is augkit's EDA (seed
0), both from the run of ``benchmarks/label_safety.py``. A few candidates are hand-made and
say so: the meaning shifts quoted in issue 13, and contractions expanded by hand.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

import augkit
from augkit.errors import InvalidParameterError, UnknownParameterError
from augkit.filters import EntitiesFilter, NegationFilter, NumbersFilter
from augkit.steps.candidate import Candidate


@pytest.fixture(scope="module")
def corpora(shared_data) -> dict[str, set[str]]:
    """The texts of each shared corpus the cases below are sliced from."""
    banking = pd.concat([pd.read_csv(shared_data / "banking77" / "polyai" / f"{split}.csv") for split in ("train", "test")])
    clinc = shared_data / "clinc150" / "jianguoz"
    stackfaq = json.loads((shared_data / "stackfaq" / "bert-faq" / "stackExchange-FAQ.json").read_text(encoding="utf-8"))
    covid = json.loads((shared_data / "covidfaq_jhu" / "bert-faq" / "query_answer_pairs.json").read_text(encoding="utf-8"))
    return {
        "banking77": set(banking["text"]),
        "clinc150": {line for split in ("train", "test") for line in (clinc / split / "seq.in").read_text(encoding="utf-8").splitlines()},
        "stackfaq": {thread["question"] for thread in stackfaq["root"]["qapair"]},
        "covidfaq": {entry["question"] for entry in covid},
    }


def decide(step, corpora, corpus: str, source: str, text: str) -> tuple[bool, Candidate]:
    """Whether ``step`` keeps ``text`` as a rewrite of ``source`` (a real text of ``corpus``), and the scored candidate."""
    assert source in corpora[corpus], f"not a {corpus} text: {source!r}"
    candidate = Candidate(text, "test")
    kept = step.filter(source, [candidate])
    return kept == [candidate], candidate


# negation --------------------------------------------------------------------------------

NEGATION_CHANGED = [  # (corpus, generator, source, candidate)
    ("stackfaq", "bt", "How do I add a caption to an image in Google Documents?", "How of I add a caption to a non-Google Docs image?"),
    ("stackfaq", "bt", "In Gmail, how can I find the oldest message from a person?", "Not Gmail, how can I find a person's oldest message?"),
    ("clinc150", "bt", "how much do i have in the bank", "how much I have no bank"),
    ("clinc150", "bt", "make a reservation at 5 pm today for 2 at olive garden", "make a reservation at 17:00 today for 2 not olive garden"),
    ("banking77", "bt", "I am waiting on the refund", "I'm expecting no refund"),
    ("banking77", "eda", "My card will not work", "My card will work"),
    ("banking77", "eda", "Why can I not make a transfer?", "Why I make a transfer?"),
]
NEGATION_KEPT = [
    ("banking77", "bt", "My card will not work", "My card won't work"),
    ("banking77", "bt", "Why can I not make a transfer?", "Why can't I make a transfer?"),
    ("banking77", "bt", "Money was transferred to me and I am unable to see it", "The money was transferred to me and I can't see it"),
    ("banking77", "bt", "I just completed a bank transfer and the balance didn't update", "I just completed a bank transfer and the balance has not been updated"),
    ("banking77", "eda", "My card will not work", "not card will My work"),
    ("banking77", "eda", "How is my ATM deposit not available yet?", "How is my ATM deposit not usable yet?"),
    ("banking77", "by hand", "I don't have my card after 1 week. What are my next steps?", "I do not have my card after 1 week. What are my next steps?"),
    ("banking77", "by hand", "Why can't I get cash from the ATM?", "Why can’t I get cash from the ATM"),
    ("banking77", "by hand", "I didn't get the right amount at the ATM.", "I did not get the right amount at the ATM!"),
]


@pytest.mark.parametrize("corpus, generator, source, text", NEGATION_CHANGED)
def test_negation_drops_a_candidate_that_adds_or_loses_a_negation(corpora, corpus, generator, source, text):
    kept, candidate = decide(NegationFilter(), corpora, corpus, source, text)
    assert not kept
    assert candidate.scores["negation_changes"] >= 1
    assert NegationFilter().explain(source, text).startswith("negation")


@pytest.mark.parametrize("corpus, generator, source, text", NEGATION_KEPT)
def test_negation_keeps_rewrites_that_keep_the_negation(corpora, corpus, generator, source, text):
    kept, candidate = decide(NegationFilter(), corpora, corpus, source, text)
    assert kept, NegationFilter().explain(source, text)
    assert candidate.scores["negation_changes"] == 0


def test_negation_counts_contractions_written_without_apostrophes():
    # BANKING77 users write "dont", "cant", "wont"; deleting one is a lost negation
    step = NegationFilter()
    assert step.explain("i dont know why my card wont work", "i know why my card wont work") == "negation lost: 'dont'"
    assert not step.explain("i dont know why", "i do not know why")


def test_negation_says_which_negations_differ():
    step = NegationFilter()
    assert step.explain("what films are at the nearest movie theatre", "that films are not closer cinema") == "negation added: 'not'"
    assert step.explain("I did not make this payment", "I didn't make this payment no app") == (
        "negations: 1 in the source ('not'), 2 in the candidate (\"didn't\", 'no')"
    )
    assert step.explain("Account No. 5 is blocked", "Account number 5 is blocked") == ""


def test_negation_word_lists_can_be_replaced():
    source, rewrite = "I have no card", "I have a card"
    assert not NegationFilter().filter(source, [Candidate(rewrite, "t")])
    assert NegationFilter(words=["not", "never"]).filter(source, [Candidate(rewrite, "t")])
    assert NegationFilter(words="not,never").mismatch("it is not here", "it is here").count == 1
    assert NegationFilter(prefixes=[]).explain("a Google address", "a non-Google address") == ""


# numbers ---------------------------------------------------------------------------------

NUMBERS_CHANGED = [
    ("clinc150", "by hand (issue 13)", "how much have i spent this week", "how much have i spent this month"),
    ("clinc150", "eda", "send bill a text for me and tell him i will be 30 minutes late", "send bill a text for me and tell him i will be 30 hour late"),
    ("clinc150", "eda", "show me the last month of transactions", "show me the month of transactions"),
    ("clinc150", "eda", "how many days old are you", "how many years old are you"),
    ("clinc150", "bt", "good evening", "Good night"),  # CLINC150's greeting made its goodbye
    ("clinc150", "eda", "can you confirm i have a reservation at 5 pm on march 13th", "can you confirm i have a reservation at 5 atomic number 61 on march 13th"),
    ("clinc150", "eda", "make a reservation at 5 pm today for 2 at olive garden", "make a reservation at 5 pm today for at olive garden"),
    ("banking77", "eda", "How do I transfer money between two of my accounts?", "How do I transfer money between deuce of my accounts?"),
    ("covidfaq", "eda", "What is the difference between COVID-19 and SARS-CoV-2?", "What the difference between and SARS-CoV-2?"),
    # the amount carried away from its currency (issue 35): kept until amounts were bound to their unit
    ("banking77", "eda", "Why did I get charged one pound seemingly randomly?", "Why did I get charged randomly pound seemingly one?"),
]
NUMBERS_KEPT = [
    ("clinc150", "bt", "can you confirm i have a reservation at 5 pm on march 13th", "you can confirm that I have a booking at 17:00 on March 13"),
    ("clinc150", "bt", "i need to know today's date", "I need to know the date of today"),
    ("clinc150", "bt", "send bill a text for me and tell him i will be 30 minutes late", "send a text to me and tell you I'll be 30 minutes late"),
    ("banking77", "bt", "Why did I get charged one pound seemingly randomly?", "Why was I charged a pound apparently randomly?"),
    ("banking77", "eda", "How do I transfer money between two of my accounts?", "How do I transfer money between my of two accounts?"),
    ("clinc150", "eda", "how many days old are you", "how are days old many you"),
    ("clinc150", "eda", "tell me what day it is", "tell solar day me what day it is"),
    ("banking77", "by hand", "Where is the card I ordered 2 weeks ago?", "Where is the card I ordered two weeks ago"),
    ("clinc150", "bt", "where can one receive their w-2 form", "where you can receive your form w-2"),
]


@pytest.mark.parametrize("corpus, generator, source, text", NUMBERS_CHANGED)
def test_numbers_drops_a_candidate_that_loses_adds_or_changes_a_number_or_time(corpora, corpus, generator, source, text):
    kept, candidate = decide(NumbersFilter(), corpora, corpus, source, text)
    assert not kept
    assert candidate.scores["number_changes"] >= 1


@pytest.mark.parametrize("corpus, generator, source, text", NUMBERS_KEPT)
def test_numbers_keeps_rewrites_that_say_the_same_numbers_and_times(corpora, corpus, generator, source, text):
    kept, candidate = decide(NumbersFilter(), corpora, corpus, source, text)
    assert kept, NumbersFilter().explain(source, text)
    assert candidate.scores["number_changes"] == 0


@pytest.mark.parametrize("source, text", [
    ("call me at 3pm", "call me at 3 p.m."),
    ("call me at 3pm", "call me at 15:00"),
    ("it costs 1,000 pounds", "it costs 1000 pounds"),
    ("it costs £20.00", "it costs 20 pounds"),
    ("twenty-five dollars", "25 dollars"),
    ("one hundred and five", "105"),
    ("my first card", "my 1st card"),
    ("I need a new one", "I need another new one"),
    ("the monthly fee", "the fee every month"),
    ("in the past week", "in the last week"),
    ("see you this evening", "see you tonight"),
    ("it arrives within 24 hours", "it arrives within a day"),
    ("how do germans say goodnight", "how the germans say good night"),
    ("good evening", "evening good"),
    ("on May 5th", "on the fifth of May"),
])
def test_numbers_reads_equal_forms_as_equal(source, text):
    assert NumbersFilter().explain(source, text) == ""


@pytest.mark.parametrize("source, text", [
    ("call me at 3pm", "call me at 3am"),
    ("this week", "next week"),
    ("3 days", "3 weeks"),
    ("on May 5th", "on May 6th"),
    ("on monday", "on tuesday"),
    ("see you tomorrow", "see you today"),
    ("it may be late", "it may be late today"),
])
def test_numbers_tells_changed_times_apart(source, text):
    assert NumbersFilter().explain(source, text) != ""


def test_numbers_says_what_was_lost_and_added_and_its_lists_can_be_replaced():
    step = NumbersFilter()
    assert step.explain("how much have i spent this week", "how much have i spent this month") == (
        "number or time lost: 'this week'; added: 'this month'"
    )
    assert NumbersFilter(time_words=[]).explain("this week", "this month") == ""
    assert NumbersFilter(time_words="today,tomorrow").explain("this week today", "this month tomorrow") == (
        "number or time lost: 'today'; added: 'tomorrow'"
    )
    assert step.explain("two cards", "2 cards") == ""
    assert NumbersFilter(words_as_numbers=False).explain("two cards", "2 cards") == "number or time lost: 'two'; added: '2'"


# entities --------------------------------------------------------------------------------

ENTITIES_CHANGED = [
    ("stackfaq", "bt", "How do I add a caption to an image in Google Documents?", "How of I add a caption to a non-Google Docs image?"),
    ("stackfaq", "bt", "How can I set a Gmail filter that finds email sent “only to me”?", "How of I set a Gmail filter that finds the email sent to me only?"),
    ("stackfaq", "eda", "Where do my emails go when I click on 'Archive' in Gmail?", "Where do my emails go when I click on 'File away' in Gmail?"),
    ("stackfaq", "eda", "How can I set a Gmail filter that finds email sent “only to me”?", "can set a filter finds email sent “only to me”?"),
    ("covidfaq", "bt", "What is personal protective equipment (PPE)?", "What is the EPI?"),
    ("covidfaq", "eda", "What is the difference between COVID-19 and SARS-CoV-2?", "What the difference between and SARS-CoV-2?"),
    ("banking77", "bt", "Is it possible to change from AUD to GBP?", "Can you change from AUD to USD?"),
]
ENTITIES_KEPT = [
    ("covidfaq", "bt", "What is the COVID-19 situation in the U.S?", "What is the situation of COVID-19 in the US?"),
    ("covidfaq", "bt", "How can I protect my child from COVID-19?", "How can I protect my son from COVID-19?"),
    ("stackfaq", "bt", "Is there any Social Translation web site? [closed]", "Is there a Social Translation site? [closed]"),
    ("stackfaq", "eda", "Facebook detects if you are logged in Gmail", "Facebook detects if in are logged you Gmail"),
    ("stackfaq", "eda", "Where do my emails go when I click on 'Archive' in Gmail?", "Where emails my do go when I click on 'Archive' in Gmail?"),
    ("banking77", "eda", "Why is my ATM cash withdrawal not working?", "Why is my AUTOMATIC TELLER MACHINE cash withdrawal not working?"),
    ("banking77", "eda", "Is it possible to change from AUD to GBP?", "possible to change from AUD to GBP?"),
    ("banking77", "eda", "Money was transferred to me and I am unable to see it", "Money was transferred to me and it am unable to see I"),
    ("banking77", "bt", "Transferred to account is not successful, help please?", "Transfer to the account is unsuccessful, please help?"),
]


@pytest.mark.parametrize("corpus, generator, source, text", ENTITIES_CHANGED)
def test_entities_drops_a_candidate_that_loses_a_name_or_quote(corpora, corpus, generator, source, text):
    kept, candidate = decide(EntitiesFilter(), corpora, corpus, source, text)
    assert not kept
    assert candidate.scores["entities_lost"] >= 1


@pytest.mark.parametrize("corpus, generator, source, text", ENTITIES_KEPT)
def test_entities_keeps_rewrites_that_keep_every_name(corpora, corpus, generator, source, text):
    kept, candidate = decide(EntitiesFilter(), corpora, corpus, source, text)
    assert kept, EntitiesFilter().explain(source, text)
    assert candidate.scores["entities_lost"] == 0


def test_entities_finds_names_acronyms_mentions_links_and_quotes_but_not_sentence_starts():
    found = EntitiesFilter().clues('Is the CDC on Twitter as @CDCgov (see www.cdc.gov or mail info@cdc.gov)? I read "stay home".')
    assert [(e.kind, e.written) for e in found.entities] == [
        ("emails", "info@cdc.gov"), ("urls", "www.cdc.gov"), ("mentions", "@CDCgov"), ("quotes", "stay home"),
        ("names", "CDC"), ("names", "Twitter"),
    ]
    assert EntitiesFilter().clues("HOW DO I GET MY PIN").entities == ()  # all capitals: casing says nothing


def test_entities_says_what_was_lost_and_checks_only_the_kinds_asked_for():
    source = "How do I add a caption to an image in Google Documents?"
    assert EntitiesFilter().explain(source, "How do I add a caption to a Google Docs image?") == "entity lost: 'Google Documents'"
    assert EntitiesFilter(kinds="urls,emails").explain(source, "How do I add a caption?") == ""
    assert EntitiesFilter(not_names=["google", "documents"]).explain(source, "How do I add a caption?") == ""


# registration, parameters, pipelines ----------------------------------------------------


@pytest.mark.parametrize("spec, message", [
    ("negation(words=3)", "words must be a list of words or a comma-separated string, got 3"),
    ("negation(words=['not', ''])", "words must hold non-empty words"),
    ("negation(prefixes=['non'])", "a prefix ends with '-' (like 'non-'), got 'non'"),
    ("entities(kinds='names,url')", "unknown kind 'url' for 'entities'; did you mean 'urls'?"),
    ("numbers(time_words=[1])", "time_words must hold non-empty words, got 1"),
])
def test_bad_parameters_fail_with_what_is_expected(spec, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        augkit.Pipeline.from_string(f"eda|{spec}")


def test_unknown_parameter_names_the_valid_ones():
    with pytest.raises(UnknownParameterError, match="did you mean 'time_words'"):
        augkit.Pipeline.from_string("eda|numbers(time_word=['today'])")


def test_the_filters_are_registered_with_their_scores_and_parameters():
    registry = augkit.get_registry()
    for name, score, parameter in (("negation", "negation_changes", "words"), ("numbers", "number_changes", "time_words"),
                                   ("entities", "entities_lost", "not_names")):
        entry = registry.filter(name)
        assert entry.plugin.distribution == "augkit"
        assert entry.cls.scores == (score,)
        assert parameter in [p.name for p in entry.cls.parameters()]


def test_a_pipeline_string_drops_what_each_filter_catches_and_adds_their_score_columns(corpora):
    class Rewrites(augkit.Augmenter):
        """The real candidates above, as a generator."""

        name = "rewrites"

        def augment(self, text, n, rng):
            return [t for _, _, s, t in NEGATION_CHANGED + NUMBERS_CHANGED + ENTITIES_CHANGED + NEGATION_KEPT if s == text]

    sources = ["My card will not work", "how much have i spent this week", "What is personal protective equipment (PPE)?"]
    pipeline = augkit.Pipeline(Rewrites(), ["negation", "numbers", "entities"])
    out = augkit.augment(pd.DataFrame({"text": sources}), pipeline, n=4, seed=0)
    augmented = out[out["augkit_method"].notna()]
    assert augmented["text"].tolist() == ["My card won't work", "not card will My work"]
    assert {"augkit_negation_changes", "augkit_number_changes", "augkit_entities_lost"} <= set(out.columns)
    assert (augmented[["augkit_negation_changes", "augkit_number_changes", "augkit_entities_lost"]] == 0).all().all()


def test_the_recommended_recipes_build(shared_data):
    from benchmarks.fewshot.methods import parse_method

    for spec in ("eda|negation|numbers|entities|semantic|label_integrity",
                 "backtranslation|negation|numbers|entities|semantic(max=1.0)|label_integrity(own_source=True)",
                 "eda+aeda|negation|numbers|entities|semantic(min=0.85)|label_integrity@weight=0.3,per_source=1"):
        method = parse_method(spec)
        assert [step.name for step in method._pipeline.filters][2:5] == ["negation", "numbers", "entities"]
