"""ERAP's pre-training (section 2.4) and ``augkit train erap``: the oracle's equation 7 labels the
pairs, divergent pairs are dropped, the three relations are balanced (seeded), the generator
learns '<erap_R> source' -> paraphrase and is saved with its control tokens, a resumed run
reads the labelled pairs back instead of running the oracle, and bad arguments exit 2 naming
what is wrong."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from augkit_erap import pretraining
from augkit_erap.pretraining import (
    LABELLED_PAIRS,
    PretrainSettings,
    balance_target,
    balanced_copies,
    label_pairs,
    pretrain,
    read_pairs,
)
from augkit_erap.relations import CONTROL_TOKENS, controlled_input

import augkit
from augkit.plugin import (
    RELATIONS,
    AugkitError,
    EntailmentOracle,
    RelationJudgement,
    relation_probabilities,
)

#: Few, fast steps on the tiny T5.
FAST = {"max_length": 24, "batch_size": 8, "gradient_accumulation": 1, "learning_rate": 3e-3, "logging_steps": 2}
#: Relations assigned to the Quora pairs in turn: 6 equivalence, 3 forward, 1 reverse, 2 divergent in 12.
CYCLE = ["equivalence"] * 6 + ["forward"] * 3 + ["reverse", "neutral", "invalid"]


class ScriptedOracle:
    """An oracle whose judgement of each pair is given: ``relations[i % len]`` for the i-th pair
    judged, counting its calls (a resumed run must not call it)."""

    model = "scripted-oracle"

    def __init__(self, relations):
        self.relations, self.calls, self.judged = relations, 0, 0

    def judge(self, sources, candidates, progress=False):
        self.calls += 1
        out = []
        for _ in sources:
            relation = self.relations[self.judged % len(self.relations)]
            out.append(RelationJudgement(relation, {r: float(r == relation) for r in RELATIONS}, {}, {}))
            self.judged += 1
        return out


class RefusingOracle:
    model = "must-not-run"

    def judge(self, sources, candidates, progress=False):
        raise AssertionError("the oracle ran on a resumed run")


@pytest.fixture
def train_erap():
    """``augkit train erap ARGS`` as the console runs it (the plugin's hook registers the target)."""
    from augkit.plugin import get_registry
    from augkit.testing import run_command

    assert "erap" in get_registry().training_targets
    return lambda *arguments: run_command(["train", "erap", *map(str, arguments)])


@pytest.fixture(scope="module")
def labelled_table(quora_pairs, tmp_path_factory):
    """60 Quora pairs as a recast-SICK-like table (source, paraphrase, relation, split)."""
    frame = quora_pairs.head(60).rename(columns={"target": "paraphrase"})
    frame["relation"] = [CYCLE[i % len(CYCLE)] for i in range(len(frame))]
    frame["split"] = ["train"] * 48 + ["test"] * 12
    path = tmp_path_factory.mktemp("recast") / "recast.csv"
    frame.to_csv(path, index=False)
    return path


def test_the_oracle_labels_pairs_by_equation_7_on_both_directions():
    nli = {  # (premise, hypothesis) -> likeliest NLI label
        ("a", "b"): "entailment", ("b", "a"): "entailment",        # equivalence
        ("c", "d"): "entailment", ("d", "c"): "neutral",           # forward
        ("e", "f"): "neutral", ("f", "e"): "entailment",           # reverse
        ("g", "h"): "contradiction", ("h", "g"): "contradiction",  # contradiction
        ("i", "j"): "neutral", ("j", "i"): "neutral",              # neutral
        ("k", "l"): "entailment", ("l", "k"): "contradiction",     # invalid
    }
    oracle = EntailmentOracle("unused")
    oracle.nli = lambda premises, hypotheses, progress=False: [
        {label: 0.8 if label == nli[p, h] else 0.1 for label in ("entailment", "neutral", "contradiction")}
        for p, h in zip(premises, hypotheses)]
    labels = label_pairs(list("acegik"), list("bdfhjl"), oracle)
    assert [relation for relation, _ in labels] == ["equivalence", "forward", "reverse", "contradiction", "neutral", "invalid"]
    expected = relation_probabilities({"entailment": 0.8, "neutral": 0.1, "contradiction": 0.1},
                                      {"entailment": 0.8, "neutral": 0.1, "contradiction": 0.1})["equivalence"]
    assert labels[0][1] == pytest.approx(expected)  # the likelihood of the relation found, 0.64


@pytest.mark.filterwarnings("ignore:.*were cut to fit:RuntimeWarning")  # the tiny classifier has 64 positions
def test_the_real_oracle_labels_in_chunks_as_in_one_call(tiny_pair_classifier, quora_pairs, monkeypatch):
    oracle = EntailmentOracle(str(tiny_pair_classifier), device="cpu")
    sources, targets = quora_pairs["source"].tolist()[:16], quora_pairs["target"].tolist()[:16]
    whole = [(j.relation, j.probabilities[j.relation]) for j in oracle.judge(sources, targets)]
    monkeypatch.setattr(pretraining, "LABELLING_CHUNK", 5)
    chunked = label_pairs(sources, targets, oracle)
    assert [r for r, _ in chunked] == [r for r, _ in whole] and all(r in RELATIONS for r, _ in chunked)
    assert [p for _, p in chunked] == pytest.approx([p for _, p in whole], abs=1e-5)


def test_divergent_pairs_are_dropped_and_the_relations_balanced_to_the_middle_count():
    relations = ["equivalence"] * 6 + ["forward"] * 3 + ["reverse"] + ["contradiction"] * 2 + ["neutral", "invalid"]
    copies = balanced_copies(relations, rule="median", seed=0)
    per_relation = Counter()
    for relation, n in zip(relations, copies):
        per_relation[relation] += n
    assert dict(per_relation) == {"equivalence": 3, "forward": 3, "reverse": 3, "contradiction": 0, "neutral": 0, "invalid": 0}
    assert sorted(copies[:6]) == [0, 0, 0, 1, 1, 1]  # down-sampled: 3 distinct pairs
    assert copies[6:9] == [1, 1, 1] and copies[9] == 3  # kept as is; up-sampled: the one pair three times
    assert copies[10:] == [0, 0, 0, 0]


def test_up_sampling_repeats_pairs_as_evenly_as_can_be_and_the_rules_set_the_count():
    relations = ["equivalence"] * 7 + ["forward"] * 3 + ["reverse"] * 2
    largest = balanced_copies(relations, rule="largest", seed=1)
    assert sorted(largest[7:10]) == [2, 2, 3] and sorted(largest[10:]) == [3, 4] and largest[:7] == [1] * 7
    smallest = balanced_copies(relations, rule="smallest", seed=1)
    assert sum(smallest[:7]) == sum(smallest[7:10]) == sum(smallest[10:]) == 2 and max(smallest) == 1
    assert balanced_copies(relations + ["neutral"], rule="none") == [1] * 12 + [0]
    assert balance_target([900, 300, 120]) == 300 and balance_target([40, 0, 10]) == 25  # a missing relation is left out
    assert balanced_copies(["neutral", "invalid"]) == [0, 0]


def test_balancing_is_seeded():
    relations = ["equivalence"] * 12 + ["forward"] * 4 + ["reverse"] * 2
    assert balanced_copies(relations, seed=7) == balanced_copies(relations, seed=7)
    assert len({tuple(balanced_copies(relations, seed=seed)) for seed in range(6)}) > 1


def test_pairs_come_from_line_files_or_a_table_with_relations_and_splits(shared_data, labelled_table):
    folder = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    lines = read_pairs(lines=(folder / "val.q1", folder / "val.q2"), limit=25)
    assert len(lines.pairs) == 25 and list(lines.pairs.columns) == ["source", "target"]
    table = read_pairs(table=labelled_table, relation_column="relation", split="train")
    assert len(table.pairs) == 48 and table.pairs["relation"].tolist()[:10] == CYCLE[:10]
    with pytest.raises(AugkitError, match="unknown split 'tran'; did you mean 'train'"):
        read_pairs(table=labelled_table, relation_column="relation", split="tran")


@pytest.fixture(scope="module")
def aware_run(labelled_table, tiny_t5, tmp_path_factory):
    """An entailment-aware pre-training of the tiny T5 (4 steps) on the 48 train pairs of the
    labelled table: the generator folder and the result."""
    out = tmp_path_factory.mktemp("pretrained") / "generator"
    pairs = read_pairs(table=labelled_table, relation_column="relation", split="train").pairs
    return out, pretrain(pairs, out, model=str(tiny_t5), settings=PretrainSettings(max_steps=4, **FAST), progress=False)


@pytest.mark.slow
def test_aware_pretraining_saves_a_generator_with_control_tokens(aware_run):
    import transformers

    out, result = aware_run
    assert result.relations_from == "column" and result.oracle is None
    assert result.labelled == {"equivalence": 24, "forward": 12, "reverse": 4, "contradiction": 0, "neutral": 4, "invalid": 4}
    assert result.dropped == 8 and result.balance_target == 12
    assert result.balanced == {"equivalence": 12, "forward": 12, "reverse": 12} and result.examples == 36
    assert result.steps == 4 and len(result.losses) == 3  # step 1, then every 2
    assert (out / "model.safetensors").is_file()
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["relations_before_balancing"]["neutral"] == 4 and record["relations_after_balancing"]["reverse"] == 12
    assert record["entailment_aware"] is True and record["labelled_pairs"] == LABELLED_PAIRS
    assert record["input"] == "<erap_{relation}> <source>"
    saved = [json.loads(line) for line in (out / LABELLED_PAIRS).read_text().splitlines()]
    assert [row["relation"] for row in saved[:12]] == CYCLE and sum(row["copies"] for row in saved) == 36
    assert all(row["copies"] == 0 for row in saved if row["relation"] in ("neutral", "invalid"))
    tokenizer = transformers.AutoTokenizer.from_pretrained(out)
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(out)
    assert model.get_input_embeddings().num_embeddings >= len(tokenizer)
    for relation, token in CONTROL_TOKENS.items():
        token_id = tokenizer.convert_tokens_to_ids(token)
        assert token_id != tokenizer.unk_token_id and record["control_tokens"][relation]["id"] == token_id
        assert tokenizer(controlled_input("How do I learn Python?", relation)).input_ids[0] == token_id


@pytest.mark.slow
def test_the_command_refuses_a_second_run_and_resumes_without_running_the_oracle_again(shared_data, tiny_t5, tmp_path,
                                                                                       train_erap, monkeypatch, capsys):
    oracles = iter([ScriptedOracle(CYCLE), RefusingOracle(), RefusingOracle()])
    monkeypatch.setattr(pretraining, "_oracle", lambda oracle, device: next(oracles))
    folder = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    out = tmp_path / "pretrain-a"
    common = ["--pairs", folder / "val.q1", folder / "val.q2", "-m", tiny_t5, "-o", out, "--max-length", "24",
              "--batch-size", "8", "--gradient-accumulation", "1", "--logging-steps", "1", "--save-steps", "2", "--no-progress"]
    assert train_erap(*common, "--limit", "48", "--max-steps", "2") == 0
    err = capsys.readouterr().err
    assert "augkit train erap: pretrain (entailment-aware)" in err and "48 pairs read" in err
    assert "relations from the oracle scripted-oracle: equivalence 24, forward 12, reverse 4, neutral 4, invalid 4" in err
    assert "dropped 8 semantically divergent pairs" in err
    assert "balanced (median, 12 per relation): equivalence 12, forward 12, reverse 12 -> 36 training pairs" in err
    assert "2 optimisation steps" in err and f"augkit augment data.csv -m erap -p generator={out}" in err
    assert train_erap(*common, "--limit", "48", "--max-steps", "4") == 2
    assert "holds checkpoints of an earlier run (checkpoint-2); pass --resume" in capsys.readouterr().err
    assert train_erap(*common, "--limit", "48", "--max-steps", "4", "--resume") == 0
    err = capsys.readouterr().err
    assert "resumed from checkpoint-2" in err and f"relations from {LABELLED_PAIRS} of the earlier run (oracle not run again)" in err
    assert "equivalence 12, forward 12, reverse 12 -> 36 training pairs" in err
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["steps"] == 4 and record["oracle"] == "scripted-oracle" and record["relations_after_balancing"]["forward"] == 12
    assert train_erap(*common, "--limit", "40", "--max-steps", "6", "--resume") == 2
    assert "holds the labelled pairs of other input than this run's (48 pairs, this run 40)" in capsys.readouterr().err


@pytest.mark.slow
def test_the_unaware_command_trains_on_bare_sources(shared_data, tiny_t5, tmp_path, train_erap, capsys):
    folder = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    out = tmp_path / "pretrain-u"
    code = train_erap("--unaware", "--pairs", folder / "val.q1", folder / "val.q2", "--limit", "30", "-m", tiny_t5, "-o", out,
                      "--max-steps", "1", "--max-length", "24", "--gradient-accumulation", "1", "--no-progress")
    err = capsys.readouterr().err
    assert code == 0, err
    assert "pretrain (entailment-unaware)" in err and "30 training pairs, input the bare source" in err
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["entailment_aware"] is False and record["input"] == "<source>" and not (out / LABELLED_PAIRS).exists()


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--balance", "medain"], "unknown balance rule 'medain'; did you mean 'median'\\? valid balance rules: "),
        (["--limit", "0"], "--limit must be at least 1, got 0"),
        (["--learning-rate", "0"], "learning-rate must be positive, got 0"),
        (["--max-minutes", "-1"], "--max-minutes must be positive, got -1"),
        (["--generator", "somewhere"], "--generator is an option of --stage rl"),
        (["--unaware"], "--unaware trains without relations; --relation-column has no use with it"),
        (["--oracle", "nli-model"], "--relation-column gives the relations; --oracle would not be run"),
        (["--target-column", "paraphrse"], "unknown column 'paraphrse'; did you mean 'paraphrase'\\?"),
        (["--split", "dev"], "unknown split 'dev'; .* holds: test, train"),
        (["--rollouts", "3"], "--rollouts is a setting of --stage rl, not of --stage pretrain"),
        (["--stage", "rl"], "--stage rl needs --generator FOLDER"),
        (["--stage", "rl", "--generator", "g", "--balance", "largest"], "--balance is a setting of --stage pretrain, not of --stage rl"),
        (["--stage", "rl", "--generator", "g", "-m", "t5-small"], "--base-model is an option of --stage pretrain"),
        (["--stage", "rl", "--generator", "g", "--gamma", "0"], "gamma"),
    ],
)
def test_bad_arguments_exit_2_naming_them(arguments, message, labelled_table, tmp_path, train_erap, capsys):
    out = tmp_path / "out"
    assert train_erap("--table", labelled_table, "--relation-column", "relation", "-o", out, *arguments) == 2
    err = capsys.readouterr().err
    assert err.startswith("augkit: error: ") and re.search(message, err), err
    assert not (out / "model.safetensors").exists()


def test_relation_column_on_line_files_and_a_bad_relation_are_named(shared_data, tmp_path, train_erap, capsys, quora_pairs):
    folder = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    assert train_erap("--pairs", folder / "val.q1", folder / "val.q2", "--relation-column", "relation", "-o", tmp_path / "o") == 2
    assert "--relation-column reads a table's column; two line files have no columns" in capsys.readouterr().err
    table = tmp_path / "bad.tsv"
    quora_pairs.head(3).assign(relation=["forward", "sideways", "reverse"]).to_csv(table, sep="\t", index=False)
    assert train_erap("--table", table, "--target-column", "target", "--relation-column", "relation", "-o", tmp_path / "o") == 2
    assert "pair 2: relation 'sideways' is not a relation; relations are: equivalence, forward, reverse" in capsys.readouterr().err


@pytest.mark.slow
def test_the_rl_stage_fine_tunes_the_pretrained_generator(aware_run, labelled_table, tiny_pair_classifier,
                                                         tiny_encoder_dir, tmp_path, train_erap, capsys):
    pretrained_generator, out = aware_run[0], tmp_path / "erap-rl"
    code = train_erap("--stage", "rl", "--table", labelled_table, "--relation-column", "relation", "--split", "train",
                      "--limit", "12", "--generator", pretrained_generator, "-o", out, "--oracle", tiny_pair_classifier,
                      "--similarity", tiny_encoder_dir, "--adversary", "none", "--max-steps", "1", "--batch-size", "2",
                      "--rollouts", "1", "--num-beams", "1", "--max-new-tokens", "4", "--no-progress")
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"augkit train erap: rl of {pretrained_generator}: 10 (text, relation) examples; 2 rows with a divergent" in err
    assert "adversary none" in err and "1 optimisation steps" in err and f"generator saved to {out}" in err
    assert (out / "model.safetensors").is_file()
    # 10 examples in batches of 2: one step is 0.2 of an epoch, and one mean reward tells no trend
    assert re.search(r"; 0\.20 epochs; mean reward -?[\d.]+ \(step 1\), best -?[\d.]+ \(step 1\), last -?[\d.]+ \(step 1\)", err), err
    assert "augkit train erap: warning: the run ended after 0.20 of an epoch (stopped by --max-steps)" in err
    assert "augkit train erap: warning: only one mean reward was logged" in err and "whether it rose cannot be told" in err
    progress = json.loads((out / "augkit-training.json").read_text())["progress"]
    assert progress["measure"] == "mean reward" and progress["epochs"] == 0.2 and len(progress["warnings"]) == 2


@pytest.mark.slow
def test_a_short_pretraining_whose_loss_did_not_fall_warns_and_the_erap_method_warns_once(shared_data, tiny_t5, tmp_path,
                                                                                         train_erap, capsys):
    """Both warnings, caused: --max-steps under one epoch, a learning rate too low to move the
    loss; on Quora pairs no other test trains on (the dev file), without relations (unaware)."""
    folder = shared_data / "quora_pairs" / "paragen" / "commit_bd93576"
    out = tmp_path / "flat"
    code = train_erap("--unaware", "--pairs", folder / "dev.q1", folder / "dev.q2", "--limit", "40", "-m", tiny_t5, "-o", out,
                      "--max-steps", "3", "--batch-size", "8", "--gradient-accumulation", "1", "--logging-steps", "1",
                      "--max-length", "24", "--learning-rate", "1e-12", "--no-progress")
    err = capsys.readouterr().err
    assert code == 0, err
    assert re.search(r"3 optimisation steps in [\d.]+ s; 0\.60 epochs; loss [\d.]+ \(step 1\)", err), err
    warned = [line.split("warning: ", 1)[1] for line in err.splitlines() if line.startswith("augkit train erap: warning: ")]
    assert [w.split(":")[0] for w in warned] == ["the run ended after 0.60 of an epoch (stopped by --max-steps)",
                                                 "the loss did not fall"]
    assert json.loads((out / "augkit-training.json").read_text())["progress"]["warnings"] == warned
    with pytest.warns(RuntimeWarning) as caught:
        for _ in range(2):
            augkit.Pipeline.from_string("erap", {"generator": str(out)})
    told = [str(w.message) for w in caught if "was trained with warnings" in str(w.message)]
    assert len(told) == 1 and told[0].startswith(f"augkit: erap: the model {out.resolve()} was trained with warnings")


def test_the_command_module_loads_no_model_library(loaded_by_import):
    heavy = ("torch", "transformers", "tokenizers", "pandas", "numpy", "accelerate", "datasets")
    assert loaded_by_import("augkit_erap.train_cli", heavy) == []
    assert loaded_by_import("augkit_erap.pretraining", heavy) == []
