"""Protected spans (issue 35): ``protect=``, ``protect_column=`` (phrases, spans, BIO tags) and the
codes protected by default; EDA and AEDA never edit inside a span, every other method's
candidates that lose one are dropped by the ``protected`` step with the span named, and a BIO
column comes back re-aligned on every augmentation.

Rows are CLINC150 validation lines past the first 400 (which tests/core/test_run_summary.py reads),
with slots marked here by hand.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

import augkit
from augkit.errors import InputError, InvalidParameterError, UsageError
from augkit.protection.locate import bio_tags, lost_spans
from augkit.protection.reading import bio_spans, code_spans, read_protection
from augkit.testing import run_command_captured

#: (line of clinc150/jianguoz/valid/seq.in, its BIO tags)
TAGGED = {
    484: "O O O O O O O B-number O B-place O O O B-person O B-time",
    485: "O O O O O O O B-number O B-place O O O B-person O B-time",
    493: "O O O B-person O O O O O B-number O B-place I-place O B-time",
    2516: "O O O O O O O O O B-place O B-place O B-code O B-date",
    1745: "O O O O O B-place I-place O B-place I-place",
}


@pytest.fixture(scope="module")
def slot_rows(shared_data) -> pd.DataFrame:
    folder = shared_data / "clinc150" / "jianguoz" / "valid"
    texts = (folder / "seq.in").read_text(encoding="utf-8").splitlines()
    labels = (folder / "label").read_text(encoding="utf-8").splitlines()
    return pd.DataFrame({"text": [texts[line - 1] for line in TAGGED], "label": [labels[line - 1] for line in TAGGED],
                         "slots": list(TAGGED.values())})


@pytest.fixture(scope="module")
def plain_rows(shared_data) -> list[str]:
    """CLINC150 validation lines 2401-2460: ordinary requests, most without a protected token."""
    lines = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()
    return lines[2400:2460]


def slot_words(text: str, tags: str) -> list[tuple[str, str]]:
    """The (word, tag) pairs of a tagged text's slot words, in order."""
    return [(word, tag[2:]) for word, tag in zip(text.split(), tags.split(), strict=True) if tag != "O"]


def test_bio_tags_mark_each_slot_as_one_span_of_its_type():
    text = "add step to me to the 50 clasicos playlist"
    spans = bio_spans(text, "O B-entity_name I-entity_name I-entity_name O O B-playlist I-playlist O".split())
    assert [(s.text, s.kind, s.label, text[s.start:s.end]) for s in spans] == [
        ("step to me", "slot", "entity_name", "step to me"), ("50 clasicos", "slot", "playlist", "50 clasicos")]


def test_a_bio_value_with_the_wrong_number_of_tags_names_the_row_and_both_counts(slot_rows):
    frame = slot_rows.copy()
    frame.loc[2, "slots"] = frame.loc[2, "slots"] + " O"
    with pytest.raises(InputError, match=r"protect column 'slots', column 'text', row 2: 16 BIO tags for the 15 "):
        augkit.augment(frame, "eda", n=1, seed=0, protect_column="slots")


def test_protect_values_may_be_phrases_json_lists_or_character_spans():
    text = "add judge jules to instrumental study"
    expected = [("judge jules", 4, 15), ("instrumental study", 19, 37)]
    for value in (["judge jules", "instrumental study"], '["judge jules", "instrumental study"]',
                  "judge jules|instrumental study", [(4, 15), (19, 37)], [{"start": 4, "end": 15}, [19, 37, "phrase"]]):
        spans, is_bio = read_protection(text, value=value, codes=False)
        assert [(s.text, s.start, s.end) for s in spans] == expected, value
        assert not is_bio


@pytest.mark.parametrize("value, message", [
    (["judge julia"], r"the protected phrase 'judge julia' does not occur in the text"),
    ([(30, 60)], r"not a character range of the 37-character text"),
    ("[judge", r"starts like a JSON list but is not one"),
    (42, r"must be BIO tags, phrases or character spans; got int 42"),
])
def test_a_protect_value_that_cannot_be_read_is_an_error_naming_what_is_wrong(value, message):
    with pytest.raises(InputError, match=message):
        read_protection("add judge jules to instrumental study", value=value, where="row 7")


def test_single_letters_short_capitals_and_letter_digit_words_are_protected_by_default(shared_data):
    lines = (shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in").read_text(encoding="utf-8").splitlines()
    assert [s.text for s in code_spans(lines[2515])] == ["w"]  # "... from lax to portland for w to sunday"
    assert [s.text for s in code_spans(lines[1744])] == ["b"]  # "country a and country b": "a" is an article
    assert [s.text for s in code_spans(lines[1178])] == ["x", "x"]  # "can you factor x squared plus 4 x plus 4"
    assert [s.text for s in code_spans("what is fare code h for the ATM in terminal b2, I wonder")] == ["h", "ATM", "b2"]
    assert code_spans("I LOST MY CARD AT THE ATM") == []  # written in capitals: casing says nothing
    assert code_spans("can i x-ray it? it's a u-turn") == []  # letters inside words are not codes


def test_eda_never_replaces_swaps_deletes_or_splits_a_protected_span(slot_rows):
    frame = slot_rows[["text", "label", "slots"]]
    for seed in range(8):
        out = augkit.augment(frame, "eda", n=8, seed=seed, protect_column="slots",
                             alpha_sr=0.3, alpha_ri=0.3, alpha_rs=0.3, p_rd=0.3)
        augmented = out[out["augkit_method"].notna()]
        assert len(augmented) > 0
        for source, row in zip(augmented["augkit_source"], augmented.itertuples()):
            original = frame.loc[source]
            # the slot words come back in the same order, each with its slot, and in one piece
            assert slot_words(row.text, row.slots) == slot_words(original["text"], original["slots"])
            spans, _ = read_protection(original["text"], value=original["slots"], codes=False)
            for span in spans:
                assert re.search(r"(?<!\w)" + re.escape(span.text) + r"(?!\w)", row.text), (span.text, row.text)


def test_eda_keeps_every_span_and_still_edits_the_free_words(slot_rows):
    texts = slot_rows["text"].tolist()
    protected = augkit.augment(texts, "eda", n=6, seed=3, protect=["lucky's", "the name sam"])
    assert all(rows for rows in protected)
    for text, rows in zip(texts, protected):
        for row in rows:
            assert row != text
            for phrase in ("lucky's", "the name sam"):
                assert text.count(phrase) == row.count(phrase)


def test_aeda_never_puts_a_mark_inside_a_span(slot_rows):
    out = augkit.augment(slot_rows, "aeda", n=10, seed=5, protect_column="slots", punc_ratio=1.0)
    augmented = out[out["augkit_method"].notna()]
    assert len(augmented) >= 40
    for row in augmented.itertuples():
        source = slot_rows.loc[row.augkit_source]
        spans, _ = read_protection(source["text"], value=source["slots"], codes=False)
        for span in spans:
            assert span.text in row.text, (span.text, row.text)


def test_texts_without_a_protected_word_get_exactly_the_output_they_got_without_protection(plain_rows):
    free = [text for text in plain_rows if not code_spans(text)]
    assert len(free) >= 40
    for method in ("eda", "aeda"):
        assert augkit.augment(free, method, n=4, seed=11) == augkit.augment(free, method, n=4, seed=11, protect_codes=False)


def test_a_method_that_loses_a_span_has_that_candidate_dropped_with_the_span_named(slot_rows):
    class DropsNames(augkit.Augmenter):
        """Deletes the first word of each text and the last one: a method blind to protection."""
        name = "drops_words"

        def augment(self, text, n, rng):
            words = text.split()
            return [" ".join(words[1:]), " ".join(words[:-1])][:n]

    out, trace = augkit.augment(slot_rows, DropsNames(), n=2, seed=0, protect_column="slots", trace=True)
    report = out.attrs["augkit_report"]
    # every text ends with a slot, so its second candidate lost one; two texts start with "O"
    assert report["candidates"]["protected"] == 5
    dropped = trace[trace["dropped_by"] == "protected"]
    assert len(dropped) == 5
    for row in dropped.itertuples():
        source = slot_rows.loc[row.source]
        last_slot = read_protection(source["text"], value=source["slots"])[0][-1]
        assert row.reason == f"protected span lost: {last_slot.text!r} ({last_slot.label})"
    kept = out[out["augkit_method"].notna()]
    assert all(text == slot_rows.loc[src, "text"].split(" ", 1)[1] for text, src in zip(kept["text"], kept["augkit_source"]))


def test_every_augmentation_of_a_bio_row_carries_its_re_aligned_tags(slot_rows):
    out = augkit.augment(slot_rows, "eda+aeda", n=6, seed=2, protect_column="slots")
    augmented = out[out["augkit_method"].notna()]
    assert len(augmented) == 6 * len(slot_rows)
    retagged = 0
    for row in augmented.itertuples():
        source = slot_rows.loc[row.augkit_source]
        assert len(row.slots.split()) == len(row.text.split())
        assert slot_words(row.text, row.slots) == slot_words(source["text"], source["slots"])
        assert row.slots == bio_tags(row.text, read_protection(source["text"], value=source["slots"], codes=False)[0])
        retagged += row.slots != source["slots"]
    assert retagged > len(augmented) // 2  # insertions and deletions moved the slots
    originals = out[out["augkit_method"].isna()]
    assert originals["slots"].tolist() == slot_rows["slots"].tolist()


def test_a_chain_keeps_the_spans_through_each_step(slot_rows):
    out = augkit.augment(slot_rows, "eda>aeda", n=4, seed=9, protect_column="slots")
    augmented = out[out["augkit_method"].notna()]
    assert len(augmented) > 0 and out.attrs["augkit_report"]["candidates"]["protected"] == 0
    for row in augmented.itertuples():
        assert slot_words(row.text, row.slots) == slot_words(*slot_rows.loc[row.augkit_source, ["text", "slots"]])


def test_protection_does_not_depend_on_batch_size_or_workers(slot_rows):
    frame = pd.concat([slot_rows] * 3, ignore_index=True)
    runs = [augkit.augment(frame, "eda+aeda", n=3, seed=4, protect_column="slots", batch_size=size, workers=workers)
            for size, workers in ((256, 1), (1, 1), (4, 2))]
    for other in runs[1:]:
        pd.testing.assert_frame_equal(runs[0], other)


def test_a_datasets_dataset_gets_the_same_rows_and_tags_as_a_dataframe(slot_rows):
    datasets = pytest.importorskip("datasets")
    frame = augkit.augment(slot_rows, "eda+aeda", n=3, seed=6, protect_column="slots")
    mapped = augkit.augment(datasets.Dataset.from_pandas(slot_rows), "eda+aeda", n=3, seed=6, protect_column="slots")
    assert mapped["text"] == frame["text"].tolist()
    assert mapped["slots"] == frame["slots"].tolist()


def test_the_command_line_protects_a_bio_column_streamed_in_chunks(slot_rows, tmp_path):
    source = tmp_path / "slots.csv"
    pd.concat([slot_rows] * 2, ignore_index=True).to_csv(source, index=False)
    outputs = []
    for chunk_rows in (3, 1000):
        target = tmp_path / f"out-{chunk_rows}.csv"
        done = run_command_captured(["augment", source, "-m", "eda+aeda", "-n", "3", "--seed", "1",
                                     "--protect-column", "slots", "--chunk-rows", chunk_rows, "-o", target])
        assert done.returncode == 0, done.stderr
        assert "0 by protected" in done.stderr
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1]
    written = pd.read_csv(tmp_path / "out-3.csv")
    for row in written[written["augkit_method"].notna()].itertuples():
        assert slot_words(row.text, row.slots) == slot_words(*slot_rows.loc[row.augkit_source % len(slot_rows), ["text", "slots"]])


def test_protect_phrases_on_the_command_line(slot_rows, tmp_path):
    source = tmp_path / "rows.csv"
    slot_rows[["text", "label"]].to_csv(source, index=False)
    target = tmp_path / "out.csv"
    done = run_command_captured(["augment", source, "-m", "eda", "-n", "4", "--seed", "0",
                                 "--protect", "andrea's steakhouse|country b", "--protect", "portland", "-o", target])
    assert done.returncode == 0, done.stderr
    written = pd.read_csv(target)
    for row in written[written["augkit_method"].notna()].itertuples():
        original = slot_rows.loc[row.augkit_source, "text"]
        for phrase in ("andrea's steakhouse", "country b", "portland"):
            assert original.count(phrase) == row.text.count(phrase)


def test_wrong_protection_arguments_fail_before_any_work(slot_rows, tmp_path):
    with pytest.raises(UsageError, match="protect_column applies to tables"):
        augkit.augment(slot_rows["text"].tolist(), "eda", protect_column="slots")
    with pytest.raises(InputError, match="protect column 'slot' not found; columns are: text, label, slots"):
        augkit.augment(slot_rows, "eda", protect_column="slot")
    with pytest.raises(InputError, match="the protect column 'text' is the text column"):
        augkit.augment(slot_rows, "eda", protect_column="text")
    with pytest.raises(UsageError, match=r"needs the pipeline's 'protected' step"):
        augkit.augment(slot_rows, "[protected=false] eda", protect_column="slots")
    with pytest.raises(InvalidParameterError, match="protect must hold non-blank words or phrases, got 3"):
        augkit.augment(slot_rows, "eda", protect=["country b", 3])
    with pytest.raises(InvalidParameterError, match="protect_codes must be True or False"):
        augkit.augment(slot_rows, "eda", protect_codes="no")
    source = tmp_path / "rows.csv"
    slot_rows.to_csv(source, index=False)
    done = run_command_captured(["augment", source, "-m", "eda", "-o", tmp_path / "out.csv", "--protect-column", "slotz"])
    assert done.returncode == 2 and "protect column 'slotz' not found" in done.stderr
    assert not (tmp_path / "out.csv").exists()


def test_without_the_protected_step_the_spec_says_so_and_rebuilds_the_same():
    pipeline = augkit.Pipeline.from_string("[protected=false] eda|length")
    assert [step.name for step in pipeline.filters] == ["dedup", "length"]
    assert pipeline.spec == "[protected=False] eda|dedup|length"
    assert augkit.Pipeline.from_string(pipeline.spec).spec == pipeline.spec
    assert [step.name for step in augkit.Pipeline.from_string("eda|length").filters] == ["dedup", "protected", "length"]
    assert augkit.Pipeline.from_string("eda|length").spec == "eda|dedup|length"


def test_lost_spans_match_whole_words_in_any_case_and_spacing():
    spans, _ = read_protection("what is fare code h on flight ua123", codes=True)
    assert [s.text for s in spans] == ["h", "ua123"]
    assert lost_spans(spans, "What is the fare code H on flight UA123?") == []
    assert [s.text for s in lost_spans(spans, "what is the fare code on flight ua123")] == ["h"]
    assert [s.text for s in lost_spans(spans, "what is fare code hh on flight ua1234")] == ["h", "ua123"]


def test_augkit_info_says_who_keeps_the_spans(capsys):
    from augkit.cli.main import main

    class Blind(augkit.Augmenter):
        """Rewrites texts without looking at protected spans."""
        name = "blind"

        def augment(self, text, n, rng):
            return [text.upper()]

    assert main(["info", "eda"]) == 0
    assert "Protected spans (protect=, --protect-column, codes): kept by the method itself" in capsys.readouterr().out
    from augkit.registry.registered import PluginInfo

    registry = augkit.get_registry()
    registry.add_augmenter(Blind, plugin=PluginInfo("blind", "augkit-blind", "0"))
    try:
        assert main(["info", "blind"]) == 0
        assert "a candidate that loses one is dropped by the pipeline's 'protected' step" in capsys.readouterr().out
    finally:
        registry.methods.pop("blind")
