"""The ``erap`` method on real SICK rows with tiny random models: relation tokens reach the
generator, re-ranking orders samples by equation 5 and keeps only the asked relation, NLI
pairs are augmented by Table 6 (every original kept, only determined labels, each row named
by its rule), identically whatever the batch, through the Python API and the command line."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from augkit_erap.augmenter import ERAP
from augkit_erap.projection import TABLE_6
from augkit_erap.relations import CONTROL_TOKENS
from augkit_erap.reward import ErapEvaluator, minilm_similarity

import augkit
from augkit.plugin import InputError, ModelNotAvailableError, UsageError
from augkit.testing import run_command

P, H, LABEL = "sentence_A", "sentence_B", "entailment_label"
RULES = {rule.name: rule for rule in TABLE_6}


@pytest.fixture(scope="module")
def sick(shared_data) -> pd.DataFrame:
    """24 SICK training pairs, all three labels among them."""
    frame = pd.read_csv(shared_data / "sick" / "kkalouli" / "SICK.txt", sep="\t", dtype=str, keep_default_na=False)
    frame = frame[frame["SemEval_set"] == "TRAIN"].head(24)[["pair_ID", P, H, LABEL]].reset_index(drop=True)
    assert set(frame[LABEL]) == {"ENTAILMENT", "NEUTRAL", "CONTRADICTION"}
    return frame


@pytest.fixture(scope="module")
def models(tiny_pair_classifier, tiny_encoder_dir) -> dict:
    return {"oracle": str(tiny_pair_classifier), "similarity_model": str(tiny_encoder_dir), "device": "cpu"}


def test_without_a_generator_the_error_says_how_to_get_one():
    with pytest.raises(InputError, match="augkit train erap.*sample_from"):
        augkit.augment(["A man is playing a guitar"], "erap", n=1, seed=0, strict=True)


def test_a_generator_without_relation_tokens_is_refused(tiny_t5):
    with pytest.raises(ModelNotAvailableError, match="no ERAP relation tokens"):
        augkit.augment(["A man is playing a guitar"], "erap", n=1, seed=0, generator=str(tiny_t5), strict=True)


def test_the_relation_token_leads_the_generators_input_and_changes_its_output(tiny_erap_generator, sick):
    import transformers
    from augkit_erap.relations import controlled_input

    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_erap_generator)
    text = sick[P][0]
    for relation, token in CONTROL_TOKENS.items():
        ids = tokenizer(controlled_input(text, relation))["input_ids"]
        assert ids[0] == tokenizer.convert_tokens_to_ids(token)
        assert ids[1:] == tokenizer(text)["input_ids"], "the text follows its control token unchanged"
    import torch

    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(tiny_erap_generator).eval()
    start = torch.tensor([[model.config.decoder_start_token_id]])
    with torch.no_grad():
        first_step = {
            relation: model(input_ids=torch.tensor([tokenizer(controlled_input(text, relation))["input_ids"]]),
                            decoder_input_ids=start).logits[0, -1]
            for relation in CONTROL_TOKENS
        }
    assert not torch.allclose(first_step["equivalence"], first_step["forward"], atol=1e-4)
    assert not torch.allclose(first_step["forward"], first_step["reverse"], atol=1e-4)


def test_reranking_orders_samples_by_equation_5(models, sick):
    texts = list(sick[P][:8])
    erap = ERAP(sample_from="eda", num_return=6, relation="forward", require_relation=False, **models)
    best = augkit.augment(texts, erap, n=6, seed=2)
    evaluator = ErapEvaluator(erap.evaluator.oracle, similarity=minilm_similarity(models["similarity_model"]))
    for text, kept in zip(texts, best):
        rewards = [p.reward for p in evaluator.evaluate([text] * len(kept), kept, ["forward"] * len(kept))]
        assert rewards == sorted(rewards, reverse=True)
    assert any(len(row) > 1 for row in best), "some rows keep several samples to order"


def test_require_relation_keeps_only_samples_the_oracle_finds_holding_it(models, sick):
    from augkit.plugin import entailment_relation

    texts = list(sick[P][:10])
    kept_any = 0
    for relation in CONTROL_TOKENS:
        kept = augkit.augment(texts, "erap", n=5, seed=1, sample_from="eda", num_return=8, relation=relation, **models)
        sources = [t for t, row in zip(texts, kept) for _ in row]
        found = entailment_relation(sources, [c for row in kept for c in row], model=models["oracle"], device="cpu")
        assert set(found) <= {relation}
        kept_any += len(found)
    assert kept_any, "the random oracle should find some samples holding some relation"


def test_nli_pairs_follow_table_6_and_keep_every_original(models, sick):
    out = augkit.augment(sick, "erap", n=4, seed=0, sample_from="eda", num_return=6, require_relation=False, **models,
                         premise_column=P, hypothesis_column=H, label_column=LABEL)
    originals = out[out["augkit_method"].isna()].drop(columns=[c for c in out if c.startswith("augkit_")])
    pd.testing.assert_frame_equal(originals.reset_index(drop=True), sick)
    made = out[out["augkit_method"].notna()]
    assert len(made) > len(sick)
    for _, row in made.iterrows():
        source = sick.iloc[row["augkit_source"]]
        rule = RULES[row["augkit_method"].removeprefix("erap:")]
        assert row[LABEL] == source[LABEL], "Table 6 never changes a label"
        assert rule.determined(source[LABEL] == "ENTAILMENT")
        assert (row[P] != source[P]) == (rule.premise is not None)
        assert (row[H] != source[H]) == (rule.hypothesis is not None)
        changed = set(filter(None, (row["augkit_changed"] or "").split(",")))
        assert changed == {c for c, side in ((P, rule.premise), (H, rule.hypothesis)) if side}
    rules_by_label = made.groupby(made["augkit_source"].map(sick[LABEL]))["augkit_method"].agg(set)
    assert any(name.endswith("hf>") for name in rules_by_label["ENTAILMENT"])
    assert not any(name.endswith("hf>") for name in rules_by_label["NEUTRAL"] | rules_by_label["CONTRADICTION"])


def test_strict_projection_and_the_unaware_baseline(models, sick):
    strict = augkit.augment(sick, "erap", n=8, seed=0, sample_from="eda", num_return=4, require_relation=False, projection="strict",
                            **models, premise_column=P, hypothesis_column=H, label_column=LABEL)
    made = strict[strict["augkit_method"].notna()]
    not_entailed = made[made[LABEL] != "ENTAILMENT"]["augkit_method"]
    assert len(not_entailed) and not any("pr" in name for name in not_entailed)
    unaware = augkit.augment(sick, "erap", n=8, seed=0, sample_from="eda", num_return=4, aware=False, **models,
                             premise_column=P, hypothesis_column=H, label_column=LABEL)
    rules = set(unaware["augkit_method"].dropna())
    assert rules and rules <= {"erap:<p',h>", "erap:<p,h'>", "erap:<p',h'>"}


def test_output_does_not_depend_on_the_batch_or_the_workers(models, sick):
    kwargs = dict(sample_from="eda", num_return=5, require_relation=False, premise_column=P, hypothesis_column=H, label_column=LABEL,
                  **models)
    one = augkit.augment(sick, "erap", n=3, seed=7, batch_size=1, **kwargs)
    many = augkit.augment(sick, "erap", n=3, seed=7, batch_size=16, **kwargs)
    pd.testing.assert_frame_equal(one, many)
    workers = augkit.augment(sick, "erap", n=3, seed=7, batch_size=8, workers=2, **kwargs)
    pd.testing.assert_frame_equal(one, workers)


def test_wrong_arguments_are_named(models, sick):
    with pytest.raises(InputError, match="label column"):
        augkit.augment(sick, "erap", n=1, seed=0, sample_from="eda", premise_column=P, hypothesis_column=H, strict=True,
                       **models)
    with pytest.raises(InputError, match="entailment_label.*CONTRADICTION"):
        augkit.augment(sick, "erap", n=1, seed=0, sample_from="eda", premise_column=P, hypothesis_column=H,
                       label_column=LABEL, entailment_label="entails", **models)
    with pytest.raises(UsageError, match="premise_column"):
        augkit.augment(sick, "erap", n=1, seed=0, sample_from="eda", premis_column=P, **models)


def test_the_command_line_writes_the_same_rows(models, sick, tmp_path, capsys):
    table = tmp_path / "sick.tsv"
    sick.to_csv(table, sep="\t", index=False)
    out = tmp_path / "out.tsv"
    params = [f"-p{key}={value}" for key, value in {"sample_from": "eda", "num_return": 5, "require_relation": "false", **models}.items()]
    code = run_command(["augment", str(table), "-m", "erap", "-n", "2", "--seed", "3", "--text-column", H,
                 "--context-column", f"premise={P}", "--label-column", LABEL, *params, "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    written = pd.read_csv(out, sep="\t", dtype=str, keep_default_na=False)
    expected = augkit.augment(sick.astype(str), "erap", n=2, seed=3, sample_from="eda", num_return=5, require_relation=False,
                              premise_column=P, hypothesis_column=H, label_column=LABEL, **models)
    assert list(written[H]) == list(expected[H]) and list(written[P]) == list(expected[P])
    assert list(written["augkit_method"]) == [m if isinstance(m, str) else "" for m in expected["augkit_method"]]


def test_a_warning_about_the_samples_asked_names_num_return_not_the_runs_n(models, shared_data, tmp_path, capsys):
    """``-n 1`` with ``sample_from=backtranslation`` (Bergamot: one round trip per text) and
    ``num_return=3``: the warning speaks of the ``num_return=3`` samples the user set, never of an ``n=3``."""
    trial = pd.read_csv(shared_data / "sick" / "kkalouli" / "SICK.txt", sep="\t", dtype=str, keep_default_na=False)
    table = tmp_path / "sick-trial.csv"
    trial[trial["SemEval_set"] == "TRIAL"].head(4)[[H]].rename(columns={H: "text"}).to_csv(table, index=False)
    params = [f"-p{key}={value}" for key, value in {"sample_from": "backtranslation", "num_return": 3, **models}.items()]
    code = run_command(["augment", str(table), "-m", "erap", "-n", "1", "--seed", "0", *params, "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert ("augkit: warning: the bergamot engine gives one back-translation per text; asked for num_return=3 samples per text "
            "(erap's num_return).") in err
    assert not re.search(r"\bn=3", err)
