"""Lemmas put in the form of the word they replace, irregular forms from WordNet's lists."""

from __future__ import annotations

import pytest
from augkit_eda.inflection import Inflector, regular_form
from augkit_eda.wordnet import default_lexicon


@pytest.fixture(scope="module")
def inflector() -> Inflector:
    return Inflector(default_lexicon())


@pytest.mark.parametrize("lemma, pos, form, expected", [
    ("bill", "v", "past", "billed"),
    ("purchase", "v", "gerund", "purchasing"),
    ("require", "v", "third person", "requires"),
    ("buy", "v", "past", "bought"),  # verb.exc
    ("take", "v", "participle", "taken"),  # two irregular forms: the participle ends in -n
    ("take", "v", "past", "took"),
    ("go", "v", "participle", "gone"),
    ("stop", "v", "past", "stopped"),  # doubled consonant: listed in verb.exc
    ("transfer", "v", "gerund", "transferring"),
    ("put", "v", "past", "put"),  # unchanged past, not in verb.exc
    ("study", "v", "third person", "studies"),
    ("fee", "n", "plural", "fees"),
    ("box", "n", "plural", "boxes"),
    ("child", "n", "plural", "children"),  # noun.exc
    ("credit_card", "n", "plural", "credit_cards"),  # a multiword noun inflects its last word
    ("papers", "n", "plural", "papers"),  # already a plural: not "paperses"
    ("papers", "n", "base", None),  # and no singular
    ("ring", "v", "past", None),  # rang or rung: uncertain, so no form
    ("quick", "a", "plural", None),
])
def test_inflect(inflector, lemma, pos, form, expected):
    assert inflector.inflect(lemma, form, pos) == expected


def test_regular_spelling_rules():
    assert [regular_form("copy", f) for f in ("plural", "past", "gerund")] == ["copies", "copied", "copying"]
    assert regular_form("die", "gerund") == "dying"
    assert regular_form("agree", "gerund") == "agreeing"
    assert regular_form("wash", "third person") == "washes"
