"""Abbreviation handling on the thesis' own examples (Figures 2.3.1, 3.6.1, 3.8.1) and on the
terms of the shared FAQ data."""

from __future__ import annotations

import pytest
from augkit_faq.abbreviations import find_terms, kept_terms, restore, shorten

THESIS_QUESTION = (
    "I have entered the Unique Entity Number (UEN) using 'Join as an Approved Institution (AI)' service, but your "
    "system does not have matching records of my Unique Entity Number (UEN). Can I still submit my application?"
)


def test_the_thesis_preprocessing_example():
    short = shorten(THESIS_QUESTION)
    assert short.terms == {"UEN": "Unique Entity Number", "AI": "Approved Institution"}
    assert short.text == (
        "I have entered the UEN using 'Join as an AI' service, but your system does not have matching records "
        "of my UEN. Can I still submit my application?"
    )


def test_the_thesis_postprocessing_example():
    terms = shorten(THESIS_QUESTION).terms
    paraphrase = "My application to join as an AI doesn't match my UEN application, can I still apply?"
    assert restore(paraphrase, terms) == (
        "My application to join as an Approved Institution (AI) doesn't match my Unique Entity Number (UEN) "
        "application, can I still apply?"
    )


def test_a_question_with_only_the_abbreviation_keeps_it():
    question = "If an AI makes a refund into the CDA, how long will the process take before I receive the refund?"
    assert shorten(question).text == question
    assert shorten(question).terms == {}


@pytest.mark.parametrize(
    ("question", "abbreviation", "expansion"),
    [
        ("What is personal protective equipment (PPE)?", "PPE", "personal protective equipment"),
        ("Who do I contact for enquiries and feedback on Approved Institutions (AI)?", "AI", "Approved Institutions"),
        ("Does the Centers for Disease Control and Prevention (CDC) advise masks?", "CDC",
         "Centers for Disease Control and Prevention"),
        ("Is the coronavirus disease 2019 (COVID-19) airborne?", "COVID-19", "coronavirus disease 2019"),
        ("When do I need to change the Child Development Account (CDA) trustee?", "CDA", "Child Development Account"),
    ],
)
def test_expansions_are_found(question, abbreviation, expansion):
    assert find_terms(question) == {abbreviation: expansion}
    assert f" {abbreviation}" in shorten(question).text and expansion not in shorten(question).text


@pytest.mark.parametrize(
    "question",
    [
        "Can COVID-19 be spread through food (including refrigerated or frozen food)?",
        "How to create an em dash in Google Drive (Google Docs)?",
        "Gmail & Google Docs: Paste just the text, not the formatting (Firefox, Safari)",
        "What is novel (new) coronavirus?",
    ],
)
def test_parentheses_that_are_not_abbreviations_are_left_alone(question):
    assert shorten(question).text == question and shorten(question).terms == {}


def test_restoring_is_idempotent_and_respects_long_forms_already_present():
    terms = {"CDA": "Child Development Account"}
    once = restore("How do I save money through CDA?", terms)
    assert once == "How do I save money through Child Development Account (CDA)?"
    assert restore(once, terms) == once
    lower = "What is the best way to save money in your child development account (CDA)?"
    assert restore(lower, terms) == lower


def test_restore_touches_standalone_abbreviations_only():
    terms = {"AI": "Approved Institution"}
    assert restore("Is AIR travel an AI matter?", terms) == "Is AIR travel an Approved Institution (AI) matter?"
    assert kept_terms("Is AIR travel allowed?", terms) == []
    assert kept_terms("Can an AI apply?", terms) == ["AI"]
