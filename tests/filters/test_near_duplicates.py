"""The ``near_duplicates`` filter (issue 37): a candidate whose Rouge-L with an original of its
label, or with an output kept earlier for that label, reaches ``rouge_l`` is dropped, naming
that text and the score. "Earlier" is the data's row order, then the candidates' order within a
row, so the output is the same whatever the batch size or the number of workers.

The hand-checked case runs on 10 BANKING77 training rows (the first 6 of ``card_arrival``, the
first 4 of ``card_linking``), whose candidates are 40 other ``card_arrival`` questions of the same
file, listed per row by a test method; BANKING77 asks the same thing in many words, so some of
them are near-duplicates of each other and of the originals (their Rouge-L checked by hand and
against rouge-score itself)."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest

import augkit
from augkit.errors import PipelineSpecError, UsageError
from augkit.filters.near_duplicates import NearDuplicatesFilter
from augkit.filters.rouge_l_index import RougeTokenizer, rouge_l_f
from augkit.pipeline.pipeline import Pipeline
from conftest import quora_questions, read_lines

N = 3
#: Per row, the ``card_arrival`` questions (by their place among that label's rows) it gets as candidates.
LISTED = [[20, 55, 21, 22], [28, 57, 25, 26], [24, 61, 69, 30], [56, 36, 39, 31], [41, 45, 49, 63],
          [65, 32, 33, 34], [57, 55, 40, 23], [24, 63, 27, 29], [35, 37, 38, 42], [43, 44, 46, 47]]


@pytest.fixture(scope="module")
def banking(shared_data: Path) -> tuple[list[str], list[str]]:
    folder = shared_data / "banking77" / "jianguoz" / "train"
    return read_lines(folder / "seq.in"), read_lines(folder / "label")


@pytest.fixture(scope="module")
def arrival(banking) -> list[str]:
    texts, labels = banking
    return [text for text, label in zip(texts, labels) if label == "card_arrival"]


@pytest.fixture(scope="module")
def hand_checked(banking, arrival) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    texts, labels = banking
    linking = [text for text, label in zip(texts, labels) if label == "card_linking"]
    frame = pd.DataFrame({"text": arrival[:6] + linking[:4], "label": ["card_arrival"] * 6 + ["card_linking"] * 4})
    return frame, {source: [arrival[i] for i in places] for source, places in zip(frame.text, LISTED)}


class Listed(augkit.Augmenter):
    """Gives each source the texts listed for it, in order (forked workers inherit the list)."""

    name = "listed"

    def __init__(self, candidates: dict[str, list[str]] | None = None):
        self.candidates = candidates or {}

    def augment(self, text, n, rng):
        return self.candidates[text][:n]


def _listed_run(hand_checked, **options) -> pd.DataFrame:
    frame, candidates = hand_checked
    pipeline = Pipeline(Listed(candidates), ["near_duplicates"], oversample=2.0)  # all 4 reach the filter
    _, trace = augkit.augment(frame, pipeline, n=N, seed=0, trace=True, **options)
    return trace


def _rouge(score: str, what: str) -> str:
    return f"Rouge-L {score} >= rouge_l=0.6 with {what}"


def _earlier(row: int, text: str) -> str:
    return f"the output kept earlier for row {row}: {text!r}"


def test_hand_checked_candidates_are_kept_or_dropped_naming_the_text_they_are_too_close_to(hand_checked, arrival):
    trace = _listed_run(hand_checked, label_column="label")
    a = arrival
    beyond = "place 4 of 4 beyond n=3"
    expected = [
        # row 0: a near-copy of its own source goes; the others are new
        [("", ""), ("near_duplicates", _rouge("0.86", f"the original {a[0]!r}")), ("", ""), ("", "")],
        # row 1: the second says what the first said (within the row)
        [("", ""), ("near_duplicates", _rouge("0.80", _earlier(1, a[28]))), ("", ""), ("", "")],
        # row 2: three near what rows 0 and 1 kept; one output left
        [("near_duplicates", _rouge("0.70", _earlier(1, a[28]))), ("near_duplicates", _rouge("0.67", _earlier(1, a[28]))),
         ("near_duplicates", _rouge("0.62", _earlier(0, a[21]))), ("", "")],
        # row 3: near row 2's output, then near its own first output
        [("near_duplicates", _rouge("0.67", _earlier(2, a[30]))), ("", ""),
         ("near_duplicates", _rouge("0.67", _earlier(3, a[36]))), ("", "")],
        # row 4: near row 0's source; two rewordings of its own first output
        [("near_duplicates", _rouge("0.67", f"the original {a[0]!r}")), ("", ""),
         ("near_duplicates", _rouge("0.61", _earlier(4, a[45]))), ("near_duplicates", _rouge("0.91", _earlier(4, a[45])))],
        # row 5: three new ones; the fourth is never judged
        [("", ""), ("", ""), ("", ""), ("beyond n", beyond)],
        # rows 6-9 are card_linking: what card_arrival kept does not count for them
        [("", ""), ("", ""), ("near_duplicates", _rouge("0.64", _earlier(6, a[57]))), ("", "")],
        [("near_duplicates", _rouge("0.78", _earlier(6, a[57]))), ("", ""), ("", ""), ("", "")],
        [("", ""), ("", ""), ("", ""), ("beyond n", beyond)],
        [("", ""), ("", ""), ("", ""), ("beyond n", beyond)],
    ]
    got = [list(zip(row.dropped_by, row.reason)) for _, row in trace.groupby("source", sort=True)]
    assert got == expected
    assert trace.candidate.tolist() == [a[i] for places in LISTED for i in places]
    kept = trace[trace.fate == "kept"]
    assert len(kept) == 25 and kept.groupby("source").size().tolist() == [3, 3, 1, 2, 1, 3, 3, 3, 3, 3]


def test_without_a_label_column_every_output_is_compared_with_the_whole_dataset(hand_checked, arrival):
    trace = _listed_run(hand_checked)
    a = arrival
    rows_6_and_7 = trace[trace.source.isin([6, 7])]
    assert list(zip(rows_6_and_7.fate, rows_6_and_7.reason)) == [
        ("dropped", _rouge("0.80", _earlier(1, a[28]))),
        ("dropped", _rouge("0.86", f"the original {a[0]!r}")),
        ("dropped", _rouge("0.67", _earlier(1, a[28]))),
        ("kept", ""),
        ("dropped", _rouge("0.70", _earlier(1, a[28]))),
        ("dropped", _rouge("0.91", _earlier(4, a[45]))),
        ("kept", ""),
        ("kept", ""),
    ]
    # rows 0 to 5 hold one label anyway: the same fates as with the label column
    with_labels = _listed_run(hand_checked, label_column="label")
    assert trace[trace.source < 6].equals(with_labels[with_labels.source < 6])


def test_the_run_summary_counts_its_drops_and_a_row_left_with_nothing_says_why(hand_checked, arrival):
    frame, candidates = hand_checked
    candidates = {**candidates, frame.text[2]: [arrival[i] for i in (24, 61, 69)]}  # all three near rows 0-1
    pipeline = Pipeline(Listed(candidates), ["near_duplicates"], oversample=2.0)
    _, report = augkit.augment_with_report(frame, pipeline, n=N, seed=0, label_column="label")
    # row 3 keeps a[56] now (row 2 kept nothing it is near), which then drops a[36]
    assert report.candidates["near_duplicates"] == 11 and report.candidates["beyond n"] == 3
    assert report.without_augmentation == {"all candidates removed by filter 'near_duplicates'": 1}


def test_scores_are_rouge_scores_own_rouge_l_f_measure(shared_data):
    from rouge_score import rouge_scorer

    questions = quora_questions(shared_data, 400)
    rng = random.Random(37)
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    tokenize = RougeTokenizer()
    for _ in range(3000):
        a, b = rng.choice(questions), rng.choice(questions)
        if rng.random() < 0.5:  # a reordered, shortened copy: scores near and on the bound
            words = a.split()
            rng.shuffle(words)
            b = " ".join(words[: max(1, len(words) - rng.randint(0, 3))])
        assert rouge_l_f(tokenize(a), tokenize(b)) == scorer.score(a, b)["rougeL"].fmeasure


def _reference_kept(texts: list[str], labels: list[str] | None, candidates: list[list[str]], n: int, bound: float,
                    against_source: bool = True) -> list[list[str]]:
    """near_duplicates written plainly with rouge-score: every pair scored, no index."""
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"])
    labels = labels or [None] * len(texts)
    seen = {label: [t for t, other in zip(texts, labels) if other == label] for label in labels}
    out = []
    for source, label, row in zip(texts, labels, candidates):
        kept = []
        compared = seen[label] if against_source else [t for t in seen[label] if t != source]
        for text in row:
            if len(kept) == n:
                break
            if all(scorer.score(other, text)["rougeL"].fmeasure < bound for other in compared):
                kept.append(text)
                seen[label].append(text)
                compared = compared if compared is seen[label] else [*compared, text]
        out.append(kept)
    return out


def test_eda_output_is_what_a_plain_rouge_score_loop_keeps(banking):
    texts, labels = (column[:150] for column in banking)
    frame = pd.DataFrame({"text": texts, "label": labels})
    generated = augkit.augment(texts, "eda", n=4, seed=3)  # what the filter's pipeline asks eda for: 2 x oversample
    out = augkit.augment(frame, Pipeline.from_string("eda|near_duplicates(rouge_l=0.8)", oversample=2.0), n=2, seed=3,
                         label_column="label", keep_original=False)
    got = [out[out.augkit_source == i].text.tolist() for i in range(len(texts))]
    assert got == _reference_kept(texts, labels, generated, 2, 0.8)
    assert 50 < len(out) < 2 * len(texts)  # it dropped some and kept most


def test_against_source_false_leaves_each_rewrite_s_own_source_out(banking):
    """For rewrites (EDA), which resemble their source by design: with the default 0.6 nearly
    every EDA output is dropped as a near-copy of its source; without the source, a rewrite is
    compared with the other originals and the outputs kept before, as a plain loop does."""
    texts, labels = (column[:150] for column in banking)
    frame = pd.DataFrame({"text": texts, "label": labels})
    generated = augkit.augment(texts, "eda", n=4, seed=3)
    runs = {}
    for against in (True, False):
        pipeline = Pipeline.from_string(f"eda|near_duplicates(against_source={against})", oversample=2.0)
        out, trace = augkit.augment(frame, pipeline, n=2, seed=3, label_column="label", keep_original=False, trace=True)
        runs[against] = (out, trace)
    out, trace = runs[False]
    got = [out[out.augkit_source == i].text.tolist() for i in range(len(texts))]
    assert got == _reference_kept(texts, labels, generated, 2, 0.6, against_source=False)
    assert len(out) > 2 * len(runs[True][0])
    for row, reason in zip(trace.source, trace.reason):  # the trace names a source by its row
        assert f"with the original {texts[row][:80]!r}" not in reason


HEAVY_EDA = "eda(alpha_sr=0.3, alpha_ri=0.3, alpha_rs=0.3, p_rd=0.3)"


@pytest.fixture(scope="module")
def eda_frame(banking) -> pd.DataFrame:
    texts, labels = banking
    return pd.DataFrame({"text": texts[:200], "label": labels[:200]})


def _eda_run(frame: pd.DataFrame, **options) -> tuple[pd.DataFrame, pd.DataFrame]:
    # EDA editing a third of the words: its outputs leave their source behind, and meet each other
    return augkit.augment(frame, f"{HEAVY_EDA}|near_duplicates", n=4, seed=37, label_column="label", trace=True,
                          progress=False, **options)


def test_the_output_and_trace_do_not_depend_on_the_batch_size_or_the_workers(eda_frame):
    reference, trace = _eda_run(eda_frame, batch_size=64)
    assert trace.reason.str.contains("kept earlier for row").sum() >= 3  # rows depend on each other here
    for options in ({"batch_size": 1}, {"batch_size": 7}, {"batch_size": 7, "workers": 2}):
        out, other = _eda_run(eda_frame, **options)
        pd.testing.assert_frame_equal(out, reference)
        pd.testing.assert_frame_equal(other, trace)


def test_a_pipeline_run_again_forgets_the_outputs_and_originals_of_its_last_run(eda_frame):
    pipeline = Pipeline.from_string("eda|near_duplicates(rouge_l=0.8)")
    first, second = eda_frame.iloc[:100], eda_frame.iloc[100:]
    augkit.augment(first, pipeline, n=4, seed=37, label_column="label")
    again = augkit.augment(second, pipeline, n=4, seed=37, label_column="label")
    fresh = augkit.augment(second, "eda|near_duplicates(rouge_l=0.8)", n=4, seed=37, label_column="label")
    pd.testing.assert_frame_equal(again, fresh)


def test_only_the_runs_own_originals_are_compared_with(hand_checked, arrival):
    frame, candidates = hand_checked
    first_rows = frame.iloc[:1]  # without row 4's source, a[0]'s near-copy a[41] is new to this run
    pipeline = Pipeline(Listed({frame.text[0]: [arrival[41], arrival[55]]}), ["near_duplicates"])
    out = augkit.augment(first_rows, pipeline, n=2, seed=0, label_column="label", keep_original=False)
    assert out.text.tolist() == []  # both are near a[0], the one original of the run
    other = pd.DataFrame({"text": [arrival[3]], "label": ["card_arrival"]})
    pipeline = Pipeline(Listed({arrival[3]: [arrival[41], arrival[55]]}), ["near_duplicates"])
    out = augkit.augment(other, pipeline, n=2, seed=0, label_column="label", keep_original=False)
    assert out.text.tolist() == [arrival[41]]  # a[0] is not of this run; a[55] is near the output a[41]


def test_the_pipelines_own_run_batch_applies_it_in_call_order(hand_checked):
    frame, candidates = hand_checked
    pipeline = Pipeline(Listed(candidates), ["near_duplicates"], oversample=2.0)
    pipeline.prepare(frame.text.tolist(), frame.label.tolist())
    texts, labels = frame.text.tolist(), frame.label.tolist()
    kept = []
    for start in range(0, 10, 4):
        batch = augkit.BatchContext(labels=labels[start:start + 4])
        kept += pipeline.run_batch(texts[start:start + 4], N, 0, batch).candidates
    trace = _listed_run(hand_checked, label_column="label")
    assert [c.text for row in kept for c in row] == trace[trace.fate == "kept"].candidate.tolist()


def test_a_filter_after_it_is_refused_naming_both():
    with pytest.raises(PipelineSpecError, match=r"'near_duplicates' compares .* move 'length' before it"):
        Pipeline.from_string("eda|near_duplicates|length")
    Pipeline.from_string("eda|length|near_duplicates|near_duplicates(rouge_l=0.9)")  # dataset filters may follow it


def test_a_datasets_map_over_several_processes_is_refused_and_one_process_gives_the_frames_output(eda_frame):
    import datasets

    dataset = datasets.Dataset.from_pandas(eda_frame.iloc[:60])
    with pytest.raises(UsageError, match=r"num_proc=2 augments separate shards.*workers=1"):
        augkit.augment(dataset, "eda|near_duplicates(rouge_l=0.8)", n=4, seed=37, label_column="label", workers=2)
    out = augkit.augment(dataset, "eda|near_duplicates(rouge_l=0.8)", n=4, seed=37, label_column="label", batch_size=16,
                         progress=False)
    frame = augkit.augment(eda_frame.iloc[:60], "eda|near_duplicates(rouge_l=0.8)", n=4, seed=37, label_column="label")
    assert out["text"] == frame.text.tolist()


def test_ray_is_refused_before_any_work():
    from augkit.adapters.ray_dataset import augment_ray_dataset
    from augkit.engine.run_options import RunOptions

    with pytest.raises(UsageError, match=r"Ray augments .* in parallel actors.*local backend"):
        augment_ray_dataset(Pipeline.from_string("eda|near_duplicates"), None, text_column="text", label_column=None,
                            keep_original=True, options=RunOptions(n=1, seed=0))


def test_cosine_also_drops_what_the_encoder_finds_too_close(eda_frame, tiny_encoder_dir):
    spec = f"eda|near_duplicates(rouge_l=0.8, cosine=0.97, model={tiny_encoder_dir!r}, device='cpu')"
    out, trace = augkit.augment(eda_frame.iloc[:80], spec, n=4, seed=37, label_column="label", trace=True)
    reasons = trace.reason[trace.dropped_by == "near_duplicates"]
    by_cosine = reasons[reasons.str.startswith("cosine")]
    assert len(by_cosine) > 0
    assert by_cosine.str.fullmatch(r"cosine \d\.\d+ above cosine=0\.97 with (the original|the output kept earlier "
                                   r"for row \d+:) (['\"]).+\2").all()
    rouge_only, _ = augkit.augment(eda_frame.iloc[:80], "eda|near_duplicates(rouge_l=0.8)", n=4, seed=37,
                                   label_column="label", trace=True)
    assert len(out) < len(rouge_only)
    again, _ = augkit.augment(eda_frame.iloc[:80], spec, n=4, seed=37, label_column="label", trace=True, batch_size=5,
                              workers=2)
    pd.testing.assert_frame_equal(again, out)


@pytest.mark.parametrize("params", [{"rouge_l": 0}, {"rouge_l": 1.5}, {"rouge_l": True}, {"cosine": 1.0}, {"cosine": "high"}])
def test_bad_bounds_are_refused(params):
    with pytest.raises(augkit.InvalidParameterError, match="near_duplicates"):
        NearDuplicatesFilter(**params)
