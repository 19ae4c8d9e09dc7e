"""``dedup(against_candidates=false)`` drops only copies of the source, so that two dedup steps
count copies and repeats apart (the parabank builder's counts)."""

import augkit
from augkit.filters.dedup import DUPLICATE_OF_SOURCE, ExactDuplicateFilter
from augkit.steps.candidate import Candidate


def test_against_candidates_false_drops_copies_of_the_source_and_keeps_repeats():
    rule = ExactDuplicateFilter(ignore_case=True, against_candidates=False)
    assert rule.repeats("I paid", ["i  PAID", "I did pay", "i did pay"]) == [DUPLICATE_OF_SOURCE, None, None]


def test_two_dedup_steps_drop_what_one_drops_and_the_trace_tells_copies_from_repeats():
    texts = ["I paid", "i paid", "I did pay", "I DID PAY", "i  paid", "I have paid"]
    one = ExactDuplicateFilter(ignore_case=True).filter("I paid", [Candidate(t, "x") for t in texts])
    pipeline = augkit.Pipeline("eda", [ExactDuplicateFilter(ignore_case=True, against_candidates=False),
                                       ExactDuplicateFilter(ignore_case=True, against_source=False)], dedup=False)
    assert pipeline.spec == "eda|dedup(ignore_case=True, against_candidates=False)|dedup(ignore_case=True, against_source=False)"
    implied, copies, repeats = pipeline.filters  # the protected step comes first when dedup does not
    assert implied.name == "protected"
    rows = [[Candidate(t, "x") for t in texts]]
    kept = repeats.filter_batch(["I paid"], copies.filter_batch(["I paid"], rows, None), None)[0]
    assert [c.text for c in kept] == [c.text for c in one] == ["I did pay", "I have paid"]
    assert pipeline.count_names == ("generated", "protected", "dedup", "dedup#2", "beyond n")
