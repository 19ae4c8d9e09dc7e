"""Recast SICK (ERAP, section 3) from the real SICK.txt: the counts per split and relation,
equation 7 on the gold labels, the reversed pairs, the pair rule, and ``augkit erap
recast-sick`` writing its table, refusing to overwrite it and naming a missing column."""

from __future__ import annotations

import argparse

import pandas as pd
import pytest
from augkit_erap import recast_cli
from augkit_erap.recast_sick import (
    RECAST_COLUMNS,
    TABLE_1,
    read_sick,
    recast_frame,
    recast_sick,
    relation_counts,
)

from augkit.plugin import InputError, InvalidParameterError, UsageError, read_table


@pytest.fixture(scope="module")
def sick_path(shared_data):
    return shared_data / "sick" / "kkalouli" / "SICK.txt"


@pytest.fixture(scope="module")
def sick(sick_path):
    return read_sick(sick_path)


@pytest.fixture(scope="module")
def recast(sick):
    return recast_frame(sick)


def _counts(frame):
    return {split: row for split, row in relation_counts(frame).to_dict(orient="index").items()}


def test_meaning_preserving_pairs_give_these_counts_per_split_and_relation(recast):
    assert _counts(recast) == {
        "train": {"equivalence": 1184, "forward": 623, "reverse": 623, "others": 925, "contradiction": 3},
        "dev": {"equivalence": 164, "forward": 56, "reverse": 56, "others": 121, "contradiction": 0},
        "test": {"equivalence": 1186, "forward": 750, "reverse": 750, "others": 1067, "contradiction": 1},
    }


def test_the_other_rules_give_these_counts(sick):
    same = _counts(recast_frame(sick, "same-original"))
    assert same["train"] == {"equivalence": 1058, "forward": 325, "reverse": 325, "others": 587, "contradiction": 513}
    every = _counts(recast_frame(sick, "all"))
    # every pair of SICK: the SemEval sets' sizes are Table 1's "SICK NLI" columns summed
    assert {split: every[split]["equivalence"] // 2 + every[split]["forward"] + every[split]["others"]
            + every[split]["contradiction"] for split in every} == {"train": 4439, "dev": 495, "test": 4906}


def test_the_chosen_rule_is_nearer_table_1_than_the_others(sick):
    def distance(frame):
        counts = _counts(frame)
        return sum(abs(counts[s][r] - TABLE_1[s][r]) for s in TABLE_1 for r in TABLE_1[s])

    chosen = distance(recast_frame(sick))
    assert chosen < distance(recast_frame(sick, "same-original"))
    assert chosen < distance(recast_frame(sick, "all"))


def test_forward_and_reverse_are_equal_because_sick_has_no_reverse_pair(recast):
    originals = recast[~recast["reversed"]]
    assert (originals["relation"] == "reverse").sum() == 0
    counts = relation_counts(recast)
    assert (counts["forward"] == counts["reverse"]).all()


def test_every_reversed_pair_mirrors_a_kept_pair(recast):
    originals = recast[~recast["reversed"]].set_index("pair_ID")
    mirrored = recast[recast["reversed"]]
    assert len(mirrored) == originals["relation"].isin(["equivalence", "forward", "reverse"]).sum()
    assert mirrored["pair_ID"].is_unique
    source = originals.loc[mirrored["pair_ID"]]
    assert list(mirrored["source"]) == list(source["paraphrase"])
    assert list(mirrored["paraphrase"]) == list(source["source"])
    assert list(mirrored["split"]) == list(source["split"])
    flip = {"equivalence": "equivalence", "forward": "reverse", "reverse": "forward"}
    assert list(mirrored["relation"]) == [flip[r] for r in source["relation"]]


def test_equation_7_on_the_gold_labels_of_spot_checked_pairs(sick):
    every = recast_frame(sick, "all")
    relation = every[~every["reversed"]].set_index("pair_ID")["relation"]
    raw = sick.set_index("pair_ID")
    expected = {
        ("A_entails_B", "B_entails_A"): "equivalence",
        ("A_entails_B", "B_neutral_A"): "forward",
        ("A_contradicts_B", "B_contradicts_A"): "contradiction",
        ("A_neutral_B", "B_neutral_A"): "neutral",
        ("A_contradicts_B", "B_neutral_A"): "invalid",
        ("A_neutral_B", "B_contradicts_A"): "invalid",
        ("A_entails_B", "B_contradicts_A"): "invalid",
    }
    for (ab, ba), wanted in expected.items():
        ids = raw.index[(raw["entailment_AB"] == ab) & (raw["entailment_BA"] == ba)][:5]
        assert len(ids), (ab, ba)
        assert set(relation.loc[ids]) == {wanted}, (ab, ba)
    assert relation.loc["1"] == "neutral"          # A_neutral_B, B_neutral_A
    assert relation.loc["3"] == "equivalence"      # A_entails_B, B_entails_A


def test_splits_follow_semeval_sets(sick, recast):
    sets = sick.set_index("pair_ID")["SemEval_set"]
    mapped = recast["pair_ID"].map(sets).map({"TRAIN": "train", "TRIAL": "dev", "TEST": "test"})
    assert (mapped == recast["split"]).all()
    assert list(recast.columns) == list(RECAST_COLUMNS)


def test_meaning_altering_rewrites_are_left_out(recast):
    # The first two originals of SICK: S1a "A group of kids is playing in a yard and an old man...",
    # its rewrites S2a "A group of boys in a yard is playing..." (pair 1: neutral both ways, so
    # taken as meaning-altering) and S3a "...in the house and there is no man..." (pair 2);
    # S1b "The young boys are playing outdoors...", S2b "The kids are playing outdoors near a
    # man with a smile" (pair 3: equivalence) and S3b "There is no boy playing..." (pair 4).
    # Kept: S1b-S2b (3), S2b-S1a (5), S1b-S1a (9); every pair with S2a or an S3 is left out.
    kept = set(recast["pair_ID"])
    assert {"3", "5", "9"} <= kept
    assert not {"1", "2", "4", "6", "7", "8"} & kept


def test_a_missing_column_is_named(tmp_path, sick):
    path = tmp_path / "SICK.txt"
    sick.drop(columns=["entailment_BA", "SemEval_set"]).head(20).to_csv(path, sep="\t", index=False)
    with pytest.raises(InputError, match="entailment_BA, SemEval_set"):
        recast_sick(path)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(InputError, match="nowhere.txt.*does not exist"):
        recast_sick(tmp_path / "nowhere.txt")


def test_a_bad_direction_label_is_named(tmp_path, sick):
    broken = sick.head(10).copy()
    broken.loc[3, "entailment_AB"] = "A_implies_B"
    with pytest.raises(InputError, match="A_implies_B"):
        recast_frame(broken)


def test_an_unknown_pair_rule_lists_the_rules(sick):
    with pytest.raises(InvalidParameterError, match="did you mean 'same-original'.*all, meaning-preserving, same-original"):
        recast_frame(sick.head(10), "same_original")


def _command(argv):
    parser = argparse.ArgumentParser(prog="augkit erap")
    recast_cli.add_arguments(parser)
    return parser.parse_args(argv)


def test_the_command_writes_the_table_and_prints_table_1_beside_it(tmp_path, sick_path, recast, capsys):
    output = tmp_path / "recast.jsonl"
    assert recast_cli.run(_command(["recast-sick", str(sick_path), "-o", str(output)])) == 0
    written = read_table(output)
    assert len(written) == len(recast)
    assert written["relation"].tolist() == recast["relation"].tolist()
    printed = capsys.readouterr().out
    assert "1344" in printed and "1184" in printed and "paper" in printed


def test_the_command_refuses_to_overwrite_without_force(tmp_path, sick_path):
    output = tmp_path / "recast.csv"
    assert recast_cli.run(_command(["recast-sick", str(sick_path), "-o", str(output), "--pairs", "all"])) == 0
    before = output.read_bytes()
    with pytest.raises(UsageError, match="exists; give --force"):
        recast_cli.run(_command(["recast-sick", str(sick_path), "-o", str(output)]))
    assert output.read_bytes() == before
    assert recast_cli.run(_command(["recast-sick", str(sick_path), "-o", str(output), "--force"])) == 0
    assert len(pd.read_csv(output)) < len(pd.read_csv(pd.io.common.StringIO(before.decode())))


def test_through_augkit_an_existing_output_exits_2(tmp_path, sick_path, capsys):
    import augkit
    from augkit.testing import run_command

    assert "erap" in augkit.get_registry().commands, "augkit_erap registers the `augkit erap` command"
    output = tmp_path / "recast.tsv"
    assert run_command(["erap", "recast-sick", str(sick_path), "-o", str(output)]) == 0
    assert run_command(["erap", "recast-sick", str(sick_path), "-o", str(output)]) == 2
    assert "--force" in capsys.readouterr().err
    missing = tmp_path / "broken.txt"
    read_sick(sick_path).drop(columns=["sentence_A_original"]).head(5).to_csv(missing, sep="\t", index=False)
    assert run_command(["erap", "recast-sick", str(missing), "-o", str(tmp_path / "x.csv")]) == 2
    assert "sentence_A_original" in capsys.readouterr().err
