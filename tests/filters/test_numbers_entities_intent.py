"""``numbers`` and ``entities`` on real lower-case intent rows (issue 35).

Every source is read from shared data the other filter tests do not use: CLINC150's and
BANKING77's ``valid`` and ``test`` splits (jianguoz, lower-cased), BANKING77's official test
CSV (cased) and ParaGEN's Quora ``val`` pairs. Candidates marked ``bt`` are what augkit's
offline back-translation (Bergamot EN->PT->EN) wrote for the row, ``eda`` what augkit's EDA
(seed 0) wrote, both from the run of ``benchmarks/intent_filters.py``; ``by hand`` marks a
word deleted or rewritten by hand, as EDA's deletion would; ``quora`` is the pair's other
question. The issue's own examples (from SNIPS, which the shared data does not hold) are
quoted as the issue gives them.
"""

from __future__ import annotations

import gzip
import re

import pandas as pd
import pytest

import augkit
from augkit.errors import InvalidParameterError
from augkit.filters import DatasetContext, EntitiesFilter, NumbersFilter
from augkit.pipeline.calibrate import Preparation
from augkit.protection import ProtectedSpan
from augkit.steps.candidate import Candidate


@pytest.fixture(scope="module")
def rows(shared_data) -> dict[str, list[str]]:
    """The texts each case below is sliced from."""
    def lines(path):
        return path.read_text(encoding="utf-8").splitlines()

    quora = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    return {
        "clinc150": lines(shared_data / "clinc150/jianguoz/valid/seq.in") + lines(shared_data / "clinc150/jianguoz/test/seq.in"),
        "clinc150 valid": lines(shared_data / "clinc150/jianguoz/valid/seq.in"),
        "banking77": lines(shared_data / "banking77/jianguoz/valid/seq.in") + lines(shared_data / "banking77/jianguoz/test/seq.in"),
        "banking77 valid": lines(shared_data / "banking77/jianguoz/valid/seq.in"),
        "banking77 cased": pd.read_csv(shared_data / "banking77/polyai/test.csv")["text"].tolist(),
        "quora": lines(quora / "val.q1"),
    }


def kept(step, source: str, text: str) -> bool:
    candidate = Candidate(text, "test")
    return step.filter(source, [candidate]) == [candidate]


# numbers ---------------------------------------------------------------------------------

ISSUE_EXAMPLES = [  # (source, candidate, what explain() must say), quoted from issue 35
    ("cold 21 weeks and a half from now", "cold 21 weeks and a from now",
     "number or time lost: '21 weeks and a half from now'; added: '21 weeks', 'from now'"),
    ("20 days from now", "20 days from", "number or time lost: '20 days from now'; added: '20 days'"),
    ("give one out of 6 to a week in the woods", "give a 6 to a week in the forest", "number or time lost: 'one'"),
    ("20 days", "20 days ago", "number or time lost: '20 days'; added: '20 days ago'"),
]


@pytest.mark.parametrize("source, text, reason", ISSUE_EXAMPLES)
def test_the_issues_examples_are_dropped_and_the_span_is_named(source, text, reason):
    assert NumbersFilter().explain(source, text) == reason
    assert not kept(NumbersFilter(), source, text)


NUMBERS_CHANGED = [  # (corpus, generator, source, candidate, the span explain() names)
    ("clinc150", "by hand", "please transfer half of my funds to an alternate account",
     "please transfer my funds to an alternate account", "half"),
    ("clinc150", "by hand", "how many ounces is 2 and half cups", "how many ounces is 2 cups", "2 and half cups"),
    ("clinc150", "by hand", "how many tablespoons are there in half of a cup", "how many tablespoons are there in a cup", "half of a cup"),
    ("clinc150", "eda", "what date will it be 8 days from now", "what date will it be 8 days", "8 days from now"),
    ("clinc150", "by hand", "let me know what date it will be in 3 days", "let me know what date it will be 3 days ago", "in 3 days"),
    ("clinc150", "by hand", "how many weeks ago was my car in the shop", "how many weeks was my car in the shop", "weeks ago"),
    ("clinc150", "by hand", "i need to do laundry later today", "i need to do laundry today", "later"),
    ("clinc150", "by hand", "what transactions do i have on my visa from the last 4 weeks",
     "what transactions do i have on my visa from 4 weeks", "last 4 weeks"),
    ("clinc150", "by hand", "set my alarm for quarter after six tomorrow", "set my alarm for six tomorrow", "quarter after six"),
    ("banking77", "eda", "my card hasn't arrived in the mail yet. i ordered it two weeks ago. what can i do?",
     "my card hasn't arrived in the mail yet. i ordered it two weeks. what i do?", "two weeks ago"),
    ("banking77", "eda", "it looks like i was charged twice for a single transaction",
     "it looks like i was charged for a single transaction", "twice"),
    ("banking77", "by hand", "new customer and filling gas today, it's not working, the thing shows pending half an hour!",
     "new customer and filling gas today, it's not working, the thing shows pending an hour!", "half an hour"),
]


@pytest.mark.parametrize("corpus, generator, source, text, span", NUMBERS_CHANGED)
def test_numbers_drops_a_rewrite_that_loses_a_fraction_or_a_direction_in_time_and_names_it(rows, corpus, generator, source, text, span):
    assert source in rows[corpus]
    reason = NumbersFilter().explain(source, text)
    assert repr(span) in reason, reason
    assert not kept(NumbersFilter(), source, text)


NUMBERS_KEPT = [  # (corpus, generator, source, candidate)
    ("clinc150", "by hand", "how many ounces is 2 and half cups", "how many ounces is 2.5 cups"),
    ("clinc150", "by hand", "please transfer half of my funds to an alternate account", "please move 1/2 of my funds to another account"),
    ("clinc150", "by hand", "set my alarm for quarter after six tomorrow", "set my alarm for 6:15 tomorrow"),
    ("clinc150", "by hand", "set an alarm for 235pm and another an hour later", "set an alarm for 2:35 pm and another one hour later"),
    ("clinc150", "by hand", "i need an alarm set for ten pm and midnight", "i need an alarm set for 10 pm and midnight"),
    ("clinc150", "by hand", "can you set a 30 second timer", "can you set a 30 seconds timer"),
    ("clinc150", "bt", "what date will it be 8 days from now", "what date will be 8 days from now on"),
    ("clinc150", "by hand", "what is the date in 5 days", "what is the date 5 days from now"),
    ("clinc150", "by hand", "in 5 days from today, what will the date be", "what will the date be in 5 days"),
    ("banking77", "bt", "hello. i just noticed i was charged two times for a restaurant i visited this week. can you reverse the additional charge?",
     "Hello. I just noticed that I was charged twice for a restaurant I visited this week. Can you reverse the additional fee?"),
    ("banking77", "by hand", "how do i make more than one disposable card in a day?", "how do i make more than a disposable card in a day?"),
    ("quora", "quora", "Which phone is best under 15k ?", "Which is best mobile under 15000 ?"),
    ("quora", "quora", "How can I learn English in 6 months ?", "How can I improve my english within 6 months ? Can I improve my english from books ?"),
]


@pytest.mark.parametrize("corpus, generator, source, text", NUMBERS_KEPT)
def test_numbers_keeps_the_same_amounts_and_times_said_otherwise(rows, corpus, generator, source, text):
    assert source in rows[corpus]
    assert kept(NumbersFilter(), source, text), NumbersFilter().explain(source, text)


def test_one_is_said_by_an_article_only_before_the_same_word():
    step = NumbersFilter()
    assert step.explain("charged one pound", "charged a pound") == ""
    assert step.explain("ordered a week ago", "ordered 1 week ago") == ""
    assert step.explain("give one out of 6", "give a 6") == "number or time lost: 'one'"
    assert step.explain("a fee and one pound", "a fee and a fee") == "number or time lost: 'one pound'"  # the new "a" counts "fee"
    assert NumbersFilter(words_as_numbers=False).explain("charged one pound", "charged a pound") == (
        "number or time lost: 'one pound'; added: 'a pound'")


def test_fractions_and_directions_are_read_in_their_common_forms():
    step = NumbersFilter()
    same = [("a half", "1/2"), ("one third", "⅓"), ("three quarters of an hour", "3/4 of an hour"), ("a third of it", "one third of it"),
            ("an hour and a half", "1.5 hours"), ("2 1/2 cups", "2.5 cups"), ("half past six", "6:30"), ("quarter to one", "12:45"),
            ("in 3 days", "within 3 days"), ("in the next 10 years", "in the coming 10 years"), ("earlier today", "earlier today")]
    for source, text in same:
        assert step.explain(source, text) == "", (source, text)
    different = [("a half", "a quarter"), ("my third card", "a third of my card"), ("3 days ago", "in 3 days"),
                 ("an hour later", "an hour earlier"), ("the last 4 weeks", "the next 4 weeks")]
    for source, text in different:
        assert step.explain(source, text) != "", (source, text)


def test_what_is_not_a_fraction_or_a_direction_is_left_alone():
    step = NumbersFilter()
    assert step.explain("please respond to me in english from now on", "please answer me in english") == ""
    assert step.explain("good talk, see you later", "good talk, see you") == ""  # "later" names no time here
    assert step.explain("can you confirm that i have a reservation for 2/20 at 6:00 pm",
                        "can you confirm that i have a reservation for 2/20 at 18:00") == ""  # a date, not a fraction
    assert [e.key for e in step.clues("i am in first year")] == ["1", "year"]  # "in first year" is no duration
    assert step.explain("i have 2 cards and half of them are blocked", "i have 2.5 cards") != ""


def test_no_time_words_means_no_directions_either():
    assert NumbersFilter(time_words=[]).explain("20 days from now", "20 days from") == ""


# entities --------------------------------------------------------------------------------


def test_a_name_capitalised_elsewhere_in_the_data_is_a_name_in_lower_case_rows(rows):
    cased = [text for text in rows["banking77 cased"] if "Apple Pay" in text]
    source = "help me please, my apple pay american express top up does not work."
    assert source in rows["banking77 valid"] and cased
    step = EntitiesFilter()
    step.prepare(DatasetContext(texts=[*cased, *rows["banking77 valid"]]))
    assert step.learnt_names["apple pay"] == "written 'Apple Pay' in the data"
    reason = step.explain(source, "help me please, my american express top up does not work.")
    assert reason == "entity lost: 'apple pay' (written 'Apple Pay' in the data)"
    assert kept(step, source, "please help me, my Apple Pay American Express top-up is not working.")
    assert EntitiesFilter().explain(source, "help me please, my american express top up does not work.") == ""  # not prepared


def test_a_word_capitalised_less_often_than_not_is_not_learnt(rows):
    step = EntitiesFilter(learn=["capitalised"])
    step.prepare(DatasetContext(texts=rows["banking77 cased"]))
    learnt = step.learnt_names
    assert {"visa", "mastercard", "google pay", "uk"} <= set(learnt)
    assert "us" not in learnt and "card" not in learnt  # "US" is a name, but "us" is mostly the pronoun
    assert "u" not in learnt  # one letter names nothing in other rows


def test_protected_spans_form_a_gazetteer_for_every_row(rows):
    first = "how long is the wait time at olive garden currently"
    second = "carla doesn't want her olive garden reservation anymore"
    assert {first, second} <= set(rows["clinc150 valid"])
    start = first.index("olive garden")
    spans = [(ProtectedSpan(start, start + len("olive garden"), "olive garden", "restaurant_name"),), (),
             (ProtectedSpan(0, 3, "one", "number"), ProtectedSpan(4, 5, "a", "phrase"))]
    step = EntitiesFilter(learn=["protected"])
    step.prepare(DatasetContext(texts=[first, second, "one a day"], protected=spans))
    assert step.learnt_names == {"olive garden": "protected as restaurant_name in the data"}  # not "one", not "a"
    assert step.explain(second, "carla doesn't want her reservation anymore") == (
        "entity lost: 'olive garden' (protected as restaurant_name in the data)")
    assert kept(step, second, "Carla no longer wants her reservation at Olive Garden")


def test_rare_words_that_recur_are_learnt_but_typos_and_common_words_are_not(rows):
    step = EntitiesFilter(learn="rare")
    step.prepare(DatasetContext(texts=rows["clinc150 valid"]))
    learnt = step.learnt_names
    assert {"amex", "citibank", "xfinity", "pto"} <= set(learnt)
    assert learnt["amex"].startswith("rare in English, in ")
    assert not {"the", "card", "transfer", "what's"} & set(learnt)
    typos = EntitiesFilter(learn="rare")
    typos.prepare(DatasetContext(texts=["i am transfering money", "transfering it now", "i recieve it", "did you recieve it"]))
    assert typos.learnt_names == {}
    source = "what items do i have on my amex card this month"
    assert source in rows["clinc150 valid"]
    assert step.explain(source, "what items do i have on my card this month").startswith("entity lost: 'amex' (rare in English")
    assert kept(step, "what is the timezone of saigon", "what is the time zone of saigon")  # written apart


def test_learning_names_makes_the_run_prepare_with_every_original_and_decide_across_batches(rows):
    cased = [text for text in rows["banking77 cased"] if "Apple Pay" in text][:3]
    source = "help me please, my apple pay american express top up does not work."

    class Rewrites(augkit.Augmenter):
        """The same rewrite, losing "apple pay", for the lower-case row."""

        name = "rewrites"

        def augment(self, text, n, rng):
            return ["help me please, my american express top up does not work."] if text == source else []

    assert EntitiesFilter().needs_all_texts and not EntitiesFilter(learn=[]).needs_all_texts
    assert augkit.Pipeline(Rewrites(), ["entities"]).preparation is Preparation.WHOLE
    assert augkit.Pipeline(Rewrites(), [EntitiesFilter(learn=[])]).preparation is not Preparation.WHOLE
    out = augkit.augment(pd.DataFrame({"text": [*cased, source]}), augkit.Pipeline(Rewrites(), ["entities"]), n=1, seed=0, batch_size=1)
    assert out["augkit_method"].notna().sum() == 0  # learnt from rows in other batches
    out = augkit.augment(pd.DataFrame({"text": [*cased, source]}), augkit.Pipeline(Rewrites(), [EntitiesFilter(learn=[])]), n=1, seed=0)
    assert out["augkit_method"].notna().sum() == 1


def test_an_unknown_source_to_learn_from_is_refused_with_the_valid_ones():
    with pytest.raises(InvalidParameterError, match=re.escape("unknown source 'rares' for 'entities'; did you mean 'rare'?")):
        augkit.Pipeline.from_string("eda|entities(learn='capitalised,rares')")


def test_the_common_english_words_file_is_rebuilt_byte_for_byte():
    from scripts.build_common_english_words import OUTPUT, build

    assert build() == OUTPUT.read_bytes()
    words = gzip.decompress(OUTPUT.read_bytes()).decode("utf-8").splitlines()[1:]
    assert words == sorted(words) and {"the", "card", "transfer"} <= set(words) and "amex" not in words
