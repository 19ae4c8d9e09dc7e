"""Augmenters that see labels, other columns and the whole run, on real SICK pairs: ``prepare``
sees every original and label once; a pair augmenter reads the premise, rewrites premise and
hypothesis and flips the label by one rule, identically through DataFrames, datasets, streamed
files (chunked, resumed) and worker processes; provenance says what changed; originals are
never touched; unmapped or missing columns fail clearly."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.errors import InputError, UsageError
from augkit.tables.io import read_table

TEXT, PREMISE, LABEL = "sentence_B", "sentence_A", "entailment_judgment"
#: What PairRule's prepare() saw, one Counter of labels per call (module-level, so runs the
#: command line builds from the registry can be checked too).
PREPARED: list[Counter] = []
#: A hypothesis on which PairRule raises KeyboardInterrupt (a Ctrl-C mid-run), when set.
INTERRUPT_AT: list[str] = []


class PairRule(augkit.Augmenter):
    """Test pair augmenter: reads the premise; rewrites the hypothesis (its words shuffled by
    the row's rng) and the premise (prefixed); turns an ENTAILMENT pair into a CONTRADICTION
    by negating the hypothesis. Scores each candidate with its label's share of the run, which
    only a prepare() over every original gets right."""

    name = "pair-rule"
    context_columns = ("premise",)
    rewrites_columns = ("premise",)
    sets_label = True
    needs_all_texts = True
    scores = ("label_share",)

    def __init__(self, prefix: str = "Indeed, "):
        self.prefix = prefix
        self.shares: dict = {}

    def prepare(self, dataset):
        labels = Counter(dataset.labels)
        PREPARED.append(labels)
        self.shares = {label: count / sum(labels.values()) for label, count in labels.items()}

    def augment_batch(self, texts, n, rngs, context):
        rows = []
        for index, (hypothesis, rng) in enumerate(zip(texts, rngs)):
            if hypothesis in INTERRUPT_AT:
                raise KeyboardInterrupt
            premise, label = context.columns["premise"][index], context.labels[index]
            share = {"label_share": self.shares.get(label, 0.0)}
            words = hypothesis.split()
            rng.shuffle(words)
            row = [augkit.Candidate(" ".join(words), scores=share, fields={"premise": self.prefix + premise})]
            if label == "ENTAILMENT":
                negated = "It is not true that " + hypothesis[0].lower() + hypothesis[1:]
                row.append(augkit.Candidate(negated, scores=share, label="CONTRADICTION"))
            rows.append(row[:n])
        return rows


@pytest.fixture(scope="module")
def sick(shared_data) -> pd.DataFrame:
    """120 SICK training pairs (all three labels), read as strings as a file run reads them."""
    frame = pd.read_csv(shared_data / "sick" / "brmson" / "SICK_train.txt", sep="\t", dtype=str, keep_default_na=False)
    frame = frame.head(120).copy()
    assert set(frame[LABEL]) == {"ENTAILMENT", "NEUTRAL", "CONTRADICTION"}
    return frame


@pytest.fixture
def pair_rule_registered(monkeypatch):
    """The installed plugins plus PairRule, as the process-wide registry."""
    from augkit.registry import discovery as plugins
    from augkit.registry.registered import PluginInfo

    registry = plugins.build_registry(plugins.load_plugins())
    registry.add_augmenter(PairRule, plugin=PluginInfo("pair-rule", "tests", "0"))
    monkeypatch.setattr(plugins, "get_registry", lambda: registry)
    PREPARED.clear()
    yield registry
    INTERRUPT_AT.clear()


def _pairs(frame, **options):
    options = {"n": 2, "seed": 4, "text_column": TEXT, "label_column": LABEL, "context_columns": {"premise": PREMISE},
               **options}
    return augkit.augment(frame, options.pop("method", PairRule()), **options)


def test_a_pair_augmenter_rewrites_both_fields_and_flips_the_label_by_its_rule(sick):
    before = sick.copy()
    out = _pairs(sick)
    pd.testing.assert_frame_equal(sick, before)  # the caller's frame is untouched
    originals = out[out["augkit_method"].isna()].drop(columns=[c for c in out if c.startswith("augkit_")])
    pd.testing.assert_frame_equal(originals.reset_index(drop=True), sick.reset_index(drop=True))
    augmented = out[out["augkit_method"].notna()]
    source = sick.loc[augmented["augkit_source"].astype(int)].reset_index(drop=True)
    augmented = augmented.reset_index(drop=True)
    flipped = augmented[LABEL] != source[LABEL]
    assert flipped.any() and (~flipped).any()
    # the flip rule: only entailed pairs, negated hypothesis, contradiction, premise as it was
    assert (source.loc[flipped, LABEL] == "ENTAILMENT").all()
    assert (augmented.loc[flipped, LABEL] == "CONTRADICTION").all()
    assert augmented.loc[flipped, TEXT].str.startswith("It is not true that ").all()
    assert (augmented.loc[flipped, PREMISE] == source.loc[flipped, PREMISE]).all()
    assert (augmented.loc[flipped, "augkit_label_from"] == "ENTAILMENT").all()
    assert (augmented.loc[flipped, "augkit_changed"] == f"{TEXT},{LABEL}").all()
    # the other candidates: premise rewritten, same words in the hypothesis, label kept
    kept = augmented[~flipped]
    assert (kept[PREMISE] == "Indeed, " + source.loc[~flipped, PREMISE]).all()
    assert [sorted(t.split()) for t in kept[TEXT]] == [sorted(t.split()) for t in source.loc[~flipped, TEXT]]
    assert kept["augkit_label_from"].isna().all()
    assert set(kept["augkit_changed"]) <= {f"{TEXT},{PREMISE}", PREMISE}  # a one-word shuffle may leave the text
    assert out.loc[out["augkit_method"].isna(), ["augkit_changed", "augkit_label_from"]].isna().all().all()


def test_prepare_sees_every_original_and_label_once(sick):
    PREPARED.clear()
    frame = sick.copy()
    frame.loc[3, TEXT] = ""  # a blank text is no original to learn from
    _pairs(frame, workers=2, batch_size=16)
    expected = Counter(frame.loc[frame[TEXT] != "", LABEL])
    assert PREPARED == [expected]
    PREPARED.clear()
    shares = _pairs(frame, n=1)["augkit_label_share"].dropna()
    assert set(shares.round(6)) <= {round(count / sum(expected.values()), 6) for count in expected.values()}


def test_same_seed_same_rows_whatever_the_batch_or_the_workers(sick):
    reference = _pairs(sick, batch_size=256)
    for options in ({"batch_size": 1}, {"batch_size": 7, "workers": 2}):
        pd.testing.assert_frame_equal(_pairs(sick, **options), reference)


def test_a_datasets_dataset_gets_the_rows_a_dataframe_gets(sick):
    datasets = pytest.importorskip("datasets")
    reference = _pairs(sick)
    for workers in (1, 2):
        out = _pairs(datasets.Dataset.from_pandas(sick, preserve_index=False), workers=workers, batch_size=32).to_pandas()
        assert out.columns.tolist() == reference.columns.tolist()
        for column in (TEXT, PREMISE, LABEL, "augkit_method", "augkit_changed", "augkit_label_from"):
            assert _values(out[column]) == _values(reference[column]), column
        assert out["augkit_source"].tolist() == reference["augkit_source"].astype(int).tolist()


def _values(column: pd.Series) -> list:
    return [None if pd.isna(value) else value for value in column]


def test_a_streamed_dataset_refuses_a_generator_that_needs_every_original(sick):
    datasets = pytest.importorskip("datasets")
    streamed = datasets.Dataset.from_pandas(sick, preserve_index=False).to_iterable_dataset()
    with pytest.raises(UsageError, match="needs_all_texts"):
        _pairs(streamed)


def test_a_chunked_file_run_is_the_in_memory_run_and_resumes_after_ctrl_c(tmp_path, sick, pair_rule_registered, capsys):
    source = tmp_path / "sick.tsv"
    sick.to_csv(source, sep="\t", index=False)
    arguments = ["augment", str(source), "-m", "pair-rule", "-n", "2", "--seed", "4", "--text-column", TEXT,
                 "--label-column", LABEL, "--context-column", f"premise={PREMISE}", "--no-progress",
                 "--row-timeout", "0"]  # no time limit: a loaded machine must not fail rows
    whole, chunked = tmp_path / "whole.csv", tmp_path / "chunked.csv"
    assert main([*arguments, "--chunk-rows", "1000", "-o", str(whole)]) == 0
    assert main([*arguments, "--chunk-rows", "25", "--workers", "2", "-o", str(chunked)]) == 0
    assert chunked.read_bytes() == whole.read_bytes()  # label shares too: prepare saw all rows, not a chunk
    assert PREPARED == [Counter(sick[LABEL])] * 2
    in_memory = _pairs(read_table(source))
    written = read_table(whole)
    assert written[TEXT].tolist() == in_memory[TEXT].tolist()
    assert written[PREMISE].tolist() == in_memory[PREMISE].tolist()
    assert written[LABEL].tolist() == in_memory[LABEL].tolist()

    resumed = tmp_path / "resumed.csv"
    INTERRUPT_AT.append(sick.loc[80, TEXT])  # Ctrl-C in the fourth chunk
    assert main([*arguments, "--chunk-rows", "25", "-o", str(resumed)]) == 130
    INTERRUPT_AT.clear()
    other_mapping = [a if a != f"premise={PREMISE}" else "premise=relatedness_score" for a in arguments]
    capsys.readouterr()
    assert main([*other_mapping, "--chunk-rows", "25", "-o", str(resumed), "--resume"]) == 2  # another mapping
    assert "context_columns" in capsys.readouterr().err
    assert main([*arguments, "--chunk-rows", "25", "-o", str(resumed), "--resume"]) == 0
    assert resumed.read_bytes() == whole.read_bytes()


def test_the_command_line_maps_a_bare_column_to_its_own_name(tmp_path, sick, pair_rule_registered):
    source = tmp_path / "sick.csv"
    sick.rename(columns={PREMISE: "premise"}).to_csv(source, index=False)
    out = tmp_path / "out.csv"
    assert main(["augment", str(source), "-m", "pair-rule", "--seed", "1", "--text-column", TEXT, "--label-column", LABEL,
                 "--context-column", "premise", "--no-progress", "-o", str(out)]) == 0
    written = read_table(out)
    assert written["premise"].str.startswith("Indeed, ").sum() > 0
    in_memory = augkit.augment(read_table(source), PairRule(), seed=1, text_column=TEXT, label_column=LABEL,
                               context_columns=["premise"])  # a list: same-named columns
    assert written["premise"].tolist() == in_memory["premise"].tolist()
    assert written[TEXT].tolist() == in_memory[TEXT].tolist()


def test_unmapped_and_missing_context_columns_fail_naming_what_to_pass(sick, tmp_path, pair_rule_registered, capsys):
    with pytest.raises(UsageError, match=r"reads the column\(s\) 'premise'.*context_columns=\{'premise': .*--context-column premise=COLUMN"):
        augkit.augment(sick, PairRule(), text_column=TEXT, label_column=LABEL)
    with pytest.raises(InputError, match=r"context column 'sentence_C' \(mapped to 'premise'\) not found; columns are: pair_ID, sentence_A"):
        augkit.augment(sick, PairRule(), text_column=TEXT, label_column=LABEL, context_columns={"premise": "sentence_C"})
    with pytest.raises(UsageError, match=r"'hypothesis' are read by no step of 'pair-rule' \(the names its steps read: premise\)"):
        augkit.augment(sick, PairRule(), text_column=TEXT, label_column=LABEL,
                       context_columns={"premise": PREMISE, "hypothesis": TEXT})
    with pytest.raises(UsageError, match="may set the label of the rows it writes: name the label column"):
        augkit.augment(sick, PairRule(), text_column=TEXT, context_columns={"premise": PREMISE})
    with pytest.raises(UsageError, match="mapped to the text column"):
        augkit.augment(sick, PairRule(), text_column=TEXT, label_column=LABEL, context_columns={"premise": TEXT})
    with pytest.raises(UsageError, match="augment a table"):
        augkit.augment(sick[TEXT].tolist(), PairRule())
    source = tmp_path / "sick.csv"
    sick.to_csv(source, index=False)
    common = ["augment", str(source), "-m", "pair-rule", "--text-column", TEXT, "--label-column", LABEL, "--no-progress",
              "-o", str(tmp_path / "out.csv")]
    assert main(common) == 2
    assert "--context-column premise=COLUMN" in capsys.readouterr().err
    assert main([*common, "--context-column", "premise=sentence_C"]) == 2
    assert "context column 'sentence_C' (mapped to 'premise') not found; columns are: pair_ID" in capsys.readouterr().err
    assert main([*common, "--context-column", "=x"]) == 2
    assert "--context-column expects NAME=COLUMN or COLUMN" in capsys.readouterr().err


def test_augkit_info_says_what_a_method_reads_rewrites_and_sets(pair_rule_registered, capsys):
    assert main(["info", "pair-rule"]) == 0
    shown = capsys.readouterr().out
    assert "Reads the columns: premise (map each: --context-column NAME=COLUMN)" in shown
    assert "Rewrites the columns: premise" in shown and "needs --label-column" in shown


class EchoLabel(augkit.Augmenter):
    """Reads only labels: a context keyword without context columns."""

    name = "echo-label"

    def augment_batch(self, texts, n, rngs, context):
        return [[f"{text} ({label})"] for text, label in zip(texts, context.labels)]


def test_an_augmenter_may_read_only_labels_and_old_style_augmenters_are_called_as_before(sick):
    out = augkit.augment(sick.head(5), EchoLabel(), text_column=TEXT, label_column=LABEL)
    augmented = out[out["augkit_method"].notna()]
    assert augmented[TEXT].tolist() == [f"{t} ({label})" for t, label in zip(sick.head(5)[TEXT], sick.head(5)[LABEL])]
    assert "augkit_changed" not in out  # a method that rewrites nothing else adds no pair provenance
    # a built-in method without a context keyword: same rows with or without a label column
    plain = augkit.augment(sick.head(20), "eda", n=2, seed=0, text_column=TEXT)
    labelled = augkit.augment(sick.head(20), "eda", n=2, seed=0, text_column=TEXT, label_column=LABEL)
    assert plain[TEXT].tolist() == labelled[TEXT].tolist()


class NoKeyword(augkit.Augmenter):
    name = "no-keyword"
    context_columns = ("premise",)

    def augment(self, text, n, rng):
        return [text]


class UndeclaredField(augkit.Augmenter):
    name = "undeclared-field"
    context_columns = ("premise",)

    def augment_batch(self, texts, n, rngs, context):
        return [[augkit.Candidate(text + "!", fields={"premise": "x"})] for text in texts]


def test_a_declared_context_needs_the_keyword_and_only_declared_fields_may_be_rewritten(sick):
    with pytest.raises(UsageError, match="takes no 'context' keyword"):
        augkit.Pipeline(NoKeyword())
    with pytest.raises(augkit.AugmentationFailedError, match="rewrote the field 'premise', which it does not declare"):
        augkit.augment(sick.head(3), UndeclaredField(), text_column=TEXT, context_columns={"premise": PREMISE}, strict=True)


def test_a_chain_step_sees_the_fields_earlier_steps_rewrote(sick):
    class Shout(augkit.Augmenter):
        name = "shout-premise"
        context_columns = ("premise",)
        rewrites_columns = ("premise",)

        def augment_batch(self, texts, n, rngs, context):
            return [[augkit.Candidate(t + "!", fields={"premise": p.upper()})] for t, p in zip(texts, context.columns["premise"])]

    out = augkit.augment(sick.head(10), augkit.Chain(PairRule(), Shout()), n=1, seed=2, text_column=TEXT,
                         label_column=LABEL, context_columns={"premise": PREMISE})
    augmented = out[out["augkit_method"].notna()]
    source = sick.head(10).loc[augmented["augkit_source"].astype(int)]
    assert augmented[PREMISE].tolist() == [("Indeed, " + p).upper() for p in source[PREMISE]]


def test_duplicates_count_the_other_fields_too(sick):
    class SameText(augkit.Augmenter):
        name = "same-text"
        rewrites_columns = ("premise",)

        def augment_batch(self, texts, n, rngs, context):
            return [[augkit.Candidate(t, fields={"premise": "A"}), augkit.Candidate(t, fields={"premise": "A"}),
                     augkit.Candidate(t, fields={"premise": "B"})] for t in texts]

    out = augkit.augment(sick.head(2), SameText(), n=3, text_column=TEXT, context_columns={"premise": PREMISE})
    augmented = out[out["augkit_method"].notna()]
    assert augmented[PREMISE].tolist() == ["A", "B", "A", "B"]
    assert set(augmented["augkit_changed"]) == {PREMISE}


def test_seeds_do_not_depend_on_the_context(sick):
    """Per-row seeds stay keyed by the text alone: one hypothesis under two premises draws alike."""
    frame = pd.DataFrame({TEXT: ["A man is playing a guitar loudly"] * 2, PREMISE: ["one premise", "another premise"],
                          LABEL: ["NEUTRAL", "NEUTRAL"]})
    out = _pairs(frame, n=1)
    texts = out.loc[out["augkit_method"].notna(), TEXT].tolist()
    assert texts[0] == texts[1]
    premises = out.loc[out["augkit_method"].notna(), PREMISE].tolist()
    assert premises == ["Indeed, one premise", "Indeed, another premise"]


@pytest.mark.slow
def test_ray_gets_the_rows_a_dataframe_gets(sick, local_ray):
    import sys

    from ray import cloudpickle

    reference = _pairs(sick)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # PairRule travels to the actors
    PREPARED.clear()
    out, _ = augkit.augment_with_report(local_ray.data.from_pandas(sick).repartition(4), PairRule(), n=2, seed=4, workers=2,
                                        batch_size=16, text_column=TEXT, label_column=LABEL,
                                        context_columns={"premise": PREMISE})
    remote = out.to_pandas()
    assert PREPARED == [Counter(sick[LABEL])]  # once, on the driver, with every label
    assert remote.columns.tolist() == reference.columns.tolist()
    for column in (TEXT, PREMISE, LABEL, "augkit_changed", "augkit_label_from", "augkit_label_share"):
        assert _values(remote[column]) == _values(reference[column]), column


class CollectsLabels(augkit.Augmenter):
    """Prepares (warms something) without needing every original."""

    name = "collects-labels"

    def prepare(self, dataset):
        PREPARED.append(Counter(dataset.labels))

    def augment(self, text, n, rng):
        return [text + "!"]


def test_the_pipeline_alone_decides_whether_and_how_its_steps_are_prepared():
    from augkit.pipeline.calibrate import Preparation

    assert augkit.Pipeline("eda").preparation is Preparation.NONE
    assert augkit.Pipeline("eda", ["semantic"]).preparation is Preparation.ANY_PART
    assert augkit.Pipeline(CollectsLabels()).preparation is Preparation.ANY_PART
    assert augkit.Pipeline("eda", ["label_integrity"]).preparation is Preparation.WHOLE
    assert augkit.Pipeline(augkit.Interleave("eda", PairRule())).preparation is Preparation.WHOLE


def test_an_augmenter_is_prepared_once_per_run_with_the_usable_rows(sick):
    PREPARED.clear()
    frame = sick.head(30).copy()
    frame.loc[0, TEXT] = None
    augkit.augment(frame, CollectsLabels(), text_column=TEXT, label_column=LABEL, workers=2, batch_size=4)
    assert PREPARED == [Counter(frame[LABEL].iloc[1:])]
