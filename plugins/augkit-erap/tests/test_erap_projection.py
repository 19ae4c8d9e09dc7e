"""Table 6 of ERAP, case by case: which rewritten pairs keep a determined label for an E and
an NE pair, under the paper's table and under strict logic, and the rule names."""

from __future__ import annotations

import pytest
from augkit_erap.projection import TABLE_6, checked_types, needed_relations, rules_for

from augkit.plugin import InvalidParameterError

ALL = ("equivalence", "reverse", "forward")


def names(rules):
    return [rule.name for rule in rules]


def test_an_entailed_pair_keeps_its_label_under_every_rule_of_table_6():
    assert names(rules_for(ALL, entailed=True)) == [
        "<p',h>", "<p,h'>", "<p',h'>", "<pr,h>", "<pr,h'>", "<p,hf>", "<p',hf>", "<pr,hf>",
    ]


def test_a_pair_that_does_not_entail_loses_the_forward_rules():
    assert names(rules_for(ALL, entailed=False)) == ["<p',h>", "<p,h'>", "<p',h'>", "<pr,h>", "<pr,h'>"]


def test_strict_projection_also_drops_the_more_specific_premise_for_not_entailed_pairs():
    assert names(rules_for(ALL, entailed=False, projection="strict")) == ["<p',h>", "<p,h'>", "<p',h'>"]
    assert names(rules_for(ALL, entailed=True, projection="strict")) == names(rules_for(ALL, entailed=True))


@pytest.mark.parametrize(("types", "expected"), [
    (("equivalence",), ["<p',h>", "<p,h'>", "<p',h'>"]),
    (("reverse",), ["<pr,h>", "<pr,h'>"]),
    (("forward",), ["<p,hf>", "<p',hf>", "<pr,hf>"]),
])
def test_each_type_is_its_row_of_table_6(types, expected):
    assert names(rules_for(types, entailed=True)) == expected


def test_no_rule_uses_a_more_general_premise_or_a_more_specific_hypothesis():
    assert all(rule.premise != "forward" and rule.hypothesis != "reverse" for rule in TABLE_6)


def test_the_relations_each_side_needs():
    premise, hypothesis = needed_relations(rules_for(ALL, entailed=True))
    assert premise == {"equivalence", "reverse"} and hypothesis == {"equivalence", "forward"}
    premise, hypothesis = needed_relations(rules_for(ALL, entailed=False))
    assert premise == {"equivalence", "reverse"} and hypothesis == {"equivalence"}


def test_unknown_types_are_refused_with_the_choices():
    assert checked_types("equivalence, forward") == ("equivalence", "forward")
    with pytest.raises(InvalidParameterError, match="equivalence, reverse, forward"):
        checked_types("synonym")
