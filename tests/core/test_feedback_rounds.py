"""Feedback rounds (:meth:`augkit.Augmenter.feedback_rounds`, :meth:`augkit.Augmenter.augment_again`):
after the filters ran on a batch, only the rows left short of ``n`` with candidates rejected in
their last round are asked again, told what was rejected, by which step and why; the new
candidates go through the same filters; rounds stop at the method's limit; the output, counts
and trace are the same whatever the batch size. And filters that report usage
(:attr:`augkit.Filter.usage`): counted with the augmenters', undeclared names refused."""

from __future__ import annotations

import pytest

import augkit
from augkit.errors import UsageError


class Stubborn(augkit.Augmenter):
    """Writes "bad <text>" for a text asking for it (holding "card"), "<text> ok" otherwise;
    asked again, writes "bad" again while ``stubborn`` rounds last, then "<text> fixed"."""

    name = "stubborn"

    def __init__(self, rounds: int = 2, stubborn: int = 0):
        self.rounds = rounds
        self.stubborn = stubborn
        self.asked: list[tuple[str, object]] = []  # (text, feedback) of every feedback request

    def feedback_rounds(self) -> int:
        return self.rounds

    def augment_batch(self, texts, n, rngs):
        return [[f"bad {text}" if "card" in text else f"{text} ok"] for text in texts]

    def augment_again(self, texts, n, rngs, context, feedback):
        self.asked += list(zip(texts, feedback))
        return [[f"bad {text} {row.round}" if row.round <= self.stubborn else f"{text} fixed {rng.randrange(1000)}"]
                for text, rng, row in zip(texts, rngs, feedback)]


class NoBad(augkit.Filter):
    """Drops a candidate holding "bad", saying so."""

    name = "no_bad"

    def filter(self, source, candidates):
        for candidate in candidates:
            if "bad" in candidate.text:
                candidate.drop_reason = "says bad"
        return [c for c in candidates if "bad" not in c.text]


class Billed(augkit.Filter):
    """Keeps everything; reports one request per candidate judged."""

    name = "billed"
    usage = ("requests",)

    def filter_batch(self, sources, candidates, context):
        return [augkit.GeneratedRow(row, usage={"requests": len(row)}) for row in candidates]


class Overbilled(Billed):
    name = "overbilled"
    usage = ()


TEXTS = ["my card is lost", "how do I top up", "card declined twice", "where is my refund"]


def test_only_rows_whose_candidates_were_rejected_are_asked_again_with_the_reasons():
    stubborn = Stubborn(rounds=2)
    out, report = augkit.augment_with_report(TEXTS, augkit.Pipeline(stubborn, [NoBad()]), n=1, seed=0)
    asked = [text for text, _ in stubborn.asked]
    assert asked == ["my card is lost", "card declined twice"], "the other rows kept their candidate"
    feedback = dict(stubborn.asked)["my card is lost"]
    assert feedback.round == 1 and feedback.kept == ()
    assert [(r.text, r.step, r.reason) for r in feedback.rejected] == [("bad my card is lost", "no_bad", "says bad")]
    assert [row[0].split(" fixed ")[0] for row in out] == ["my card is lost", "how do I top up ok", "card declined twice",
                                                          "where is my refund ok"]
    assert report.candidates["generated"] == 6 and report.candidates["no_bad"] == 2
    assert report.rows_augmented == 4


def test_rounds_stop_at_the_methods_limit_and_each_round_hears_every_rejection_so_far():
    stubborn = Stubborn(rounds=2, stubborn=5)
    out, report = augkit.augment_with_report(TEXTS, augkit.Pipeline(stubborn, [NoBad()]), n=1, seed=0)
    rounds = [(text, row.round, [r.text for r in row.rejected]) for text, row in stubborn.asked]
    assert rounds == [("my card is lost", 1, ["bad my card is lost"]), ("card declined twice", 1, ["bad card declined twice"]),
                      ("my card is lost", 2, ["bad my card is lost", "bad my card is lost 1"]),
                      ("card declined twice", 2, ["bad card declined twice", "bad card declined twice 1"])]
    assert out[0] == [] and report.without_augmentation == {"all candidates removed by filter 'no_bad'": 2}
    assert report.candidates["generated"] == 8


def test_the_rounds_give_the_same_rows_counts_and_trace_whatever_the_batch_size():
    runs = [augkit.augment(TEXTS * 2, augkit.Pipeline(Stubborn(rounds=1), [NoBad()]), n=1, seed=3, batch_size=size, trace=True)
            for size in (1, 3, 8)]
    for out, trace in runs[1:]:
        assert out == runs[0][0]
        assert trace.equals(runs[0][1])
    trace = runs[0][1]
    assert list(trace[trace["source"] == 0]["fate"]) == ["dropped", "kept"], "the round's candidate is traced after the first"
    assert trace[trace["source"] == 0]["reason"].iloc[0] == "says bad"
    other_seed = augkit.augment(TEXTS, augkit.Pipeline(Stubborn(rounds=1), [NoBad()]), n=1, seed=4)
    assert other_seed[0] != runs[0][0][0]


def test_a_union_holding_a_method_that_asks_for_rounds_is_refused():
    with pytest.raises(UsageError, match="only a pipeline's lone generator"):
        augkit.Pipeline(augkit.Interleave(Stubborn(), "eda"))
    assert augkit.Pipeline(augkit.Interleave(Stubborn(rounds=0), "eda"))


def test_a_filters_usage_is_counted_with_the_augmenters_and_an_undeclared_one_refused():
    _, report = augkit.augment_with_report(TEXTS, augkit.Pipeline(Stubborn(rounds=1), [NoBad(), Billed()]), n=1, seed=0)
    assert report.usage == {"requests": 4}, "one per candidate reaching billed, feedback rounds included"
    with pytest.raises(augkit.NothingAugmentedError, match="filter 'overbilled' reported undeclared usage"):
        augkit.augment(TEXTS, augkit.Pipeline(Stubborn(rounds=0), [Overbilled()]), n=1, seed=0)
