"""paraphrase_faq end to end: abbreviation handling around the generator, uniqueness, the two
selection steps with the real all-MiniLM-L6-v2 encoder, the output table and its provenance.

A scripted generator (fixed candidates per question) pins down each step's decision; the
offline Bergamot back-translation generator runs for real on a StackFAQ slice."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from augkit_faq import paraphrase_faq
from augkit_faq.faq import STATUSES


class ScriptedGenerator:
    """Returns fixed candidates per (shortened) question and records what it was asked."""

    name = "scripted"

    def __init__(self, candidates: dict[str, list[str]]):
        self.candidates = candidates
        self.asked: list[tuple[str, int]] = []

    def generate(self, questions, num_return, seeds, *, progress=False):
        self.asked.extend((q, s) for q, s in zip(questions, seeds))
        return [self.candidates.get(q, [])[:num_return] for q in questions]


@pytest.fixture
def covid_slice(covid_faq) -> pd.DataFrame:
    return covid_faq.iloc[:30].copy()


def test_each_candidate_gets_the_fate_of_the_step_that_decides_it(covid_slice):
    questions = covid_slice["question"].str.strip().tolist()
    first, other = questions[0], questions[20]  # "What is COVID-19?", "Why is it called COVID-19?"
    generator = ScriptedGenerator({first: [
        "Could you explain what COVID-19 is?",  # a paraphrase
        "could you explain what covid-19 is",    # the same, up to letter case and the question mark
        first.upper(),                          # the question itself
        "How do I bake sourdough bread during COVID-19?",  # unrelated
        other,                                   # another FAQ question: it retrieves that one
    ]})
    result = paraphrase_faq(covid_slice, "question", "answer", generator=generator)
    rows = result.candidates.set_index("candidate")
    assert rows.loc["Could you explain what COVID-19 is?", "status"] == "accepted"
    assert rows.loc["could you explain what covid-19 is", "status"] == "duplicate"
    assert rows.loc[first.upper(), "status"] == "duplicate"
    assert rows.loc["How do I bake sourdough bread during COVID-19?", "status"] == "low_similarity"
    assert rows.loc["How do I bake sourdough bread during COVID-19?", "semantic"] < 0.8
    nearer = rows.loc[other]
    assert nearer["status"] == "other_question_nearer" and nearer["semantic"] >= 0.8
    assert nearer["label_integrity"] < 0 and nearer["nearest_question"] == other
    accepted = rows.loc["Could you explain what COVID-19 is?"]
    assert accepted["semantic"] >= 0.8 and accepted["label_integrity"] >= 0 and accepted["rank"] == 1
    assert set(result.candidates["status"]) <= set(STATUSES)
    summary = result.summary
    assert (summary["generated"], summary["unique"], summary["after_semantic"], summary["after_integrity"], summary["accepted"]) == (5, 3, 2, 1, 1)


def test_abbreviations_are_shortened_for_the_generator_and_restored_in_its_output(covid_faq):
    faq = covid_faq
    ppe = next(q.strip() for q in faq["question"] if "(PPE)" in q)
    generator = ScriptedGenerator({"What is PPE?": ["Can you tell me what PPE is?", "Explain the meaning of PPE"]})
    result = paraphrase_faq(faq, "question", "answer", generator=generator, min_similarity=0.0)
    assert "What is PPE?" in [q for q, _ in generator.asked] and ppe not in [q for q, _ in generator.asked]
    texts = result.candidates.loc[result.candidates["source"] == faq.index[faq["question"].str.strip() == ppe][0], "candidate"]
    assert sorted(texts) == [
        "Can you tell me what personal protective equipment (PPE) is?",
        "Explain the meaning of personal protective equipment (PPE)",
    ]


def test_output_keeps_every_original_row_and_pairs_paraphrases_with_their_answer(covid_slice):
    faq = covid_slice.assign(topic=[f"t{i}" for i in range(len(covid_slice))])
    questions = faq["question"].str.strip().tolist()
    generator = ScriptedGenerator({questions[2]: [f"{questions[2]} please", f"Tell me: {questions[2]}"],
                                   questions[5]: [f"Please, {questions[5].lower()}"]})
    result = paraphrase_faq(faq, "question", "answer", generator=generator, min_similarity=0.5)
    table = result.table
    originals = table[table["augkit_method"].isna()].drop(
        columns=["augkit_source", "augkit_method", "augkit_semantic", "augkit_label_integrity", "augkit_rank"])
    pd.testing.assert_frame_equal(originals.reset_index(drop=True), faq.reset_index(drop=True))
    added = table[table["augkit_method"] == "faq"]
    assert len(added) == result.summary["accepted"] >= 2
    for _, row in added.iterrows():
        source = faq.loc[row["augkit_source"]]
        assert row["answer"] == source["answer"] and row["topic"] == source["topic"]
        assert row["question"] != source["question"]
        assert row["augkit_semantic"] >= 0.5 and row["augkit_label_integrity"] >= 0 and row["augkit_rank"] >= 1
    # each original row is followed by its own paraphrases, best rank first
    for label in added["augkit_source"].unique():
        where = table.index[table["augkit_source"] == label]
        source_row = table.index[(table["augkit_method"].isna()) & (table["question"] == faq.loc[label, "question"])][0]
        assert list(where) == list(range(source_row + 1, source_row + 1 + len(where)))
        assert table.loc[where, "augkit_rank"].tolist() == list(range(1, len(where) + 1))


def test_n_keeps_the_most_similar_and_marks_the_rest(covid_slice):
    question = covid_slice["question"].iloc[0].strip()
    options = ["Could you explain what COVID-19 is?", "What exactly is COVID-19?", "What is the COVID-19 disease?",
               "Tell me about COVID-19."]
    everything = paraphrase_faq(covid_slice, "question", "answer", generator=ScriptedGenerator({question: options}))
    top = paraphrase_faq(covid_slice, "question", "answer", n=2, generator=ScriptedGenerator({question: options}))
    accepted = everything.candidates[everything.candidates["status"] == "accepted"].sort_values("rank")
    assert len(accepted) >= 3
    kept = top.candidates[top.candidates["status"] == "accepted"].sort_values("rank")
    assert kept["candidate"].tolist() == accepted["candidate"].tolist()[:2]
    assert (top.candidates["status"] == "beyond_n").sum() == len(accepted) - 2
    assert accepted["semantic"].is_monotonic_decreasing


def test_table_for_rebuilds_the_faq_from_hand_picked_candidates(covid_slice):
    question = covid_slice["question"].iloc[0].strip()
    result = paraphrase_faq(covid_slice, "question", "answer", generator=ScriptedGenerator(
        {question: ["Could you explain what COVID-19 is?", "What exactly is COVID-19?", "How do I bake bread?"]}))
    ids = result.candidates.set_index("candidate")["candidate_id"]
    picked = result.table_for([ids["What exactly is COVID-19?"], ids["How do I bake bread?"]])
    added = picked[picked["augkit_method"] == "faq"]["question"].tolist()
    assert sorted(added) == ["How do I bake bread?", "What exactly is COVID-19?"]
    assert len(picked) == len(covid_slice) + 2
    assert len(result.table_for([])) == len(covid_slice)
    with pytest.raises(Exception, match="no candidates with ids"):
        result.table_for([10_000])


def test_repeated_and_empty_questions_are_kept_and_named(covid_slice):
    faq = pd.concat([covid_slice.iloc[:6], covid_slice.iloc[[1]], covid_slice.iloc[[2]].assign(answer="another answer")])
    faq = pd.concat([faq, covid_slice.iloc[[2]], pd.DataFrame({"question": ["  ", None], "answer": ["x", "y"]})],
                    ignore_index=True)
    generator = ScriptedGenerator({})
    with pytest.warns(RuntimeWarning) as caught:
        result = paraphrase_faq(faq, "question", "answer", generator=generator)
    messages = " | ".join(str(w.message) for w in caught)
    assert "appears in rows 1, 6: paraphrased once, for row 1" in messages
    assert "appears in rows 2, 7, 8 with different answers: not paraphrased" in messages
    assert "2 rows have an empty or missing question" in messages and "rows 9, 10" in messages
    asked = [q for q, _ in generator.asked]
    assert len(asked) == len(set(asked)) == 5  # rows 0, 1, 3, 4, 5
    assert len(result.table) == len(faq)
    assert result.summary["skipped"]["repeated question, paraphrased at its first row"] == [6]


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pd.DataFrame({"q": ["a?"], "answer": ["b"]}), "no question column 'question'; its columns are: q, answer"),
        (pd.DataFrame({"question": ["a?"], "a": ["b"]}), "no answer column 'answer'"),
        (pd.DataFrame({"question": ["a?", 42, 3.5], "answer": ["b", "c", "d"]}),
         r"not text, in rows 1 \(int\), 2 \(float\)"),
        (["a?"], "must be a pandas.DataFrame"),
    ],
)
def test_bad_input_is_named(frame, message):
    from augkit.plugin import AugkitError

    with pytest.raises(AugkitError, match=message):
        paraphrase_faq(frame, "question", "answer", generator=ScriptedGenerator({}))


def test_a_header_only_faq_gives_a_header_only_output_like_augment():
    empty = pd.DataFrame({"question": pd.Series([], dtype=object), "answer": pd.Series([], dtype=object)})
    result = paraphrase_faq(empty, "question", "answer", generator=ScriptedGenerator({}))
    assert len(result.table) == 0 and {"question", "answer", "augkit_source", "augkit_rank"} <= set(result.table.columns)
    assert result.summary["rows"] == 0 and result.summary["generated"] == 0


def test_offline_backtranslation_generator_end_to_end(stackfaq):
    faq = stackfaq.iloc[:16]
    first = paraphrase_faq(faq, "question", "answer", generator="backtranslation", num_return=1, seed=3)
    again = paraphrase_faq(faq.iloc[::-1], "question", "answer", generator="backtranslation", num_return=1, seed=3)
    assert first.summary["generated"] >= 4  # Bergamot gives one candidate for most questions
    ordered = again.candidates.sort_values("candidate_id")
    key = ["source", "candidate", "status"]
    pd.testing.assert_frame_equal(
        first.candidates[key].sort_values(key).reset_index(drop=True), ordered[key].sort_values(key).reset_index(drop=True))
    table = first.table
    assert len(table) == len(faq) + first.summary["accepted"]
    for _, row in table[table["augkit_method"] == "faq"].iterrows():
        assert row["answer"] == faq.loc[row["augkit_source"], "answer"]
        assert not math.isnan(row["augkit_semantic"])


def test_candidates_whose_meaning_plainly_changed_are_screened_out_saying_why(stackfaq):
    faq = stackfaq[stackfaq["question"].isin([
        "How do I add a caption to an image in Google Documents?", "How do I delete my Facebook account?"])]
    caption, facebook = faq["question"].tolist()[::-1] if faq["question"].iloc[0].startswith("How do I delete") else faq["question"].tolist()
    scripted = {
        caption: ["How do I add a caption to a non-Google Docs image?",  # the example, similarity 0.92
                  "How can I put a caption on an image in Google Documents?"],
        facebook: ["How do I delete my account?", "How can I remove my Facebook account?"],
    }
    screened = paraphrase_faq(faq, "question", "answer", generator=ScriptedGenerator(scripted))
    by_text = screened.candidates.set_index("candidate")
    assert by_text.loc["How do I add a caption to a non-Google Docs image?", "status"] == "meaning_changed"
    assert by_text.loc["How do I add a caption to a non-Google Docs image?", "meaning_change"].startswith("negation: negation added")
    assert by_text.loc["How do I delete my account?", "meaning_change"] == "entities: entity lost: 'Facebook'"
    assert screened.summary["unique"] - screened.summary["meaning_kept"] == 2
    assert "How do I add a caption to a non-Google Docs image?" not in screened.table["question"].tolist()

    thesis = paraphrase_faq(faq, "question", "answer", generator=ScriptedGenerator(scripted), screens=())
    assert "meaning_changed" not in set(thesis.candidates["status"])
    assert thesis.candidates.set_index("candidate").loc["How do I add a caption to a non-Google Docs image?", "status"] == "accepted"


def test_an_unknown_screen_lists_the_filters(stackfaq):
    from augkit.plugin import UnknownMethodError

    with pytest.raises(UnknownMethodError, match="negation"):
        paraphrase_faq(stackfaq.head(2), "question", "answer", generator=ScriptedGenerator({}), screens=("negatoin",))


def test_any_filter_may_screen_and_its_drop_reason_is_the_meaning_change(stackfaq):
    """A screen that says why only through ``drop_reason`` (``edit_ratio`` has no ``explain()``)
    is taken, and the reason the trace records is the candidate's ``meaning_change``."""
    faq = stackfaq[stackfaq["question"] == "How do I delete my Facebook account?"]
    near_copy = "How do I delete my Facebook account now?"
    scripted = {faq["question"].iloc[0]: [near_copy, "How can I remove my Facebook account?"]}
    screened = paraphrase_faq(faq, "question", "answer", generator=ScriptedGenerator(scripted), screens=("edit_ratio",))
    by_text = screened.candidates.set_index("candidate")
    assert by_text.loc[near_copy, "status"] == "meaning_changed"
    assert by_text.loc[near_copy, "meaning_change"] == "edit_ratio: char edit ratio 0.11 below min=0.12"
    assert by_text.loc["How can I remove my Facebook account?", "status"] != "meaning_changed"
