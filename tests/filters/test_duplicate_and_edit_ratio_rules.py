"""augkit's one duplicate rule (the ``dedup`` filter and its options) and one edit-ratio rule
(the ``edit_ratio`` filter), as the parabank builder, the FAQ method and back-translation use
them, and the one mechanism for renamed parameters (``length``'s ``min_ratio`` is now ``min``)."""

from __future__ import annotations

import warnings

import pytest

import augkit
from augkit.filters import EditRatioFilter, ExactDuplicateFilter, LengthFilter
from augkit.filters.dedup import DUPLICATE_OF_EARLIER, DUPLICATE_OF_SOURCE
from augkit.metrics import edit_distance_ratio
from augkit.steps.candidate import Candidate


def texts(filter_, source, *candidates):
    return [c.text for c in filter_.filter(source, [Candidate(t, "m") for t in candidates])]


def test_the_default_rule_is_unchanged_spacing_only():
    rule = ExactDuplicateFilter()
    assert texts(rule, "I paid", "I  paid", "i paid", "I paid.", "i paid") == ["i paid", "I paid."]


def test_the_faq_rule_ignores_case_spacing_and_final_punctuation():
    rule = ExactDuplicateFilter(ignore_case=True, ignore_final_punctuation=True)
    kept = texts(rule, "How do I pay?", "how do i pay", "How do I pay ?!", "How can I pay?", "how can I pay.", "How, I pay?")
    assert kept == ["How can I pay?", "How, I pay?"]
    assert rule.key("  Why?? ") == "why" and rule.key("?") == ""


def test_against_source_false_keeps_the_source_again_but_not_repeats():
    rule = ExactDuplicateFilter(against_source=False)
    assert texts(rule, "I paid", "I paid", "I  paid", "I did") == ["I paid", "I did"]


def test_repeats_says_which_copies_are_of_the_source_and_which_of_an_earlier_text():
    rule = ExactDuplicateFilter(ignore_case=True)
    verdicts = rule.repeats("Top up failed", ["top up  failed", "Top-up failed", "TOP-UP FAILED", "Top up failed"])
    assert verdicts == [DUPLICATE_OF_SOURCE, None, DUPLICATE_OF_EARLIER, DUPLICATE_OF_SOURCE]


def test_the_options_work_in_a_pipeline_string():
    pipeline = augkit.Pipeline.from_string("eda|dedup(ignore_case=true,ignore_final_punctuation=yes,against_source=no)")
    (dedup,) = [step for step in pipeline.filters if isinstance(step, ExactDuplicateFilter)]
    assert (dedup.ignore_case, dedup.ignore_final_punctuation, dedup.against_source) == (True, True, False)


def test_the_edit_ratio_rule_is_the_metric_within_min_and_max():
    rule = EditRatioFilter(min=0.1, max=0.5)
    assert rule.ratio("How do I pay?", "How can I pay?") == edit_distance_ratio("How can I pay?", "How do I pay?")
    assert [rule.keeps(r) for r in (0.05, 0.1, 0.5, 0.51)] == [False, True, True, False]
    assert EditRatioFilter(min=0.12).keeps(1e9)  # no max: no upper bound


def test_an_old_parameter_name_works_with_a_warning_naming_the_new_one():
    with pytest.warns(FutureWarning) as caught:
        old = LengthFilter(min_ratio=0.3, max_ratio=1.5)
    assert [str(w.message) for w in caught] == [
        "length: parameter 'min_ratio' is now called 'min'", "length: parameter 'max_ratio' is now called 'max'"]
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert (old.min, old.max) == (0.3, 1.5)
    with pytest.warns(FutureWarning, match="parameter 'max_ratio' is now called 'max'"):
        registered = augkit.get_registry().create_filter("length", {"max_ratio": 1.2})
    assert registered.max == 1.2
    with pytest.warns(FutureWarning, match="'min_ratio' is now called 'min'"):
        pipeline = augkit.Pipeline.from_string("eda|length(min_ratio=0.4)")
    assert pipeline.filters[-1].min == 0.4


def test_giving_both_the_old_and_the_new_name_is_an_error():
    with pytest.raises(augkit.InvalidParameterError, match="'min_ratio' is now called 'min'; give only 'min'"):
        LengthFilter(min_ratio=0.3, min=0.4)


def test_the_signature_and_the_parameters_listed_show_only_the_new_names():
    assert [p.name for p in LengthFilter.parameters()] == ["min", "max", "unit", "shortest"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new names give no warning
        assert LengthFilter(min=0.2).get_params() == {"min": 0.2, "max": 2.0, "unit": "words", "shortest": 0}


def test_an_old_name_on_the_command_line_gets_the_new_names_type():
    from augkit.plugin import parse_param_options

    assert parse_param_options(["max_ratio=1.5"], "length") == {"max_ratio": 1.5}
