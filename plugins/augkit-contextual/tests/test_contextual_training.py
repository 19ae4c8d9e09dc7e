"""Training a label-conditional masked LM (C-BERT) on BANKING77 rows with a tiny BERT and a tiny
RoBERTa: the label prefix and the offset of the text, masking that never touches the label, a
saved folder that ``load_masked_lm`` loads and whose record names the labels, runs that resume
and stop on a time budget, rows without a label left out, and, trained on rows where the label
decides a word, fills that follow the label they are conditioned on."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from augkit_contextual.conditioning import (
    LABEL_PREFIX_RECORD_KEY,
    conditioned,
    trained_labels,
)
from augkit_contextual.training import (
    IGNORED_LABEL,
    ContextualSettings,
    TextOnlyMasking,
    conditioned_rows,
    train_contextual,
)

from augkit.plugin import InputError, UsageError

#: A quick run: a tiny random model learns in tens of steps at a rate a new model can take.
FAST = {"batch_size": 16, "learning_rate": 5e-3, "logging_steps": 5}
#: Two BANKING77 intents whose texts share the word "card".
CARD_ARRIVAL, LOST_CARD = "card_arrival", "lost_or_stolen_card"


@pytest.fixture(scope="module")
def banking(shared_data) -> pd.DataFrame:
    """The official BANKING77 training rows (text, category)."""
    return pd.read_csv(shared_data / "banking77" / "polyai" / "train.csv")


@pytest.fixture(scope="module")
def two_intents(banking) -> pd.DataFrame:
    """The 235 rows of card_arrival and lost_or_stolen_card, in file order."""
    return banking[banking["category"].isin([CARD_ARRIVAL, LOST_CARD])].reset_index(drop=True)


@pytest.fixture(scope="module")
def tiny_bert(shared_data, tmp_path_factory):
    """A random 2-layer BERT masked LM (32-dim) with BANKING77's WordPiece vocabulary, drawn
    with BERT's own initialiser range (0.02): it trains in tens of steps, where the root
    conftest's ``tiny_masked_lm`` (std 0.5, for fills that vary with the input) starts from a
    loss near 10."""
    from augkit.testing import build_bert_masked_lm

    texts = (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    return build_bert_masked_lm(tmp_path_factory.mktemp("tiny-bert") / "bert", texts)


@pytest.fixture(scope="module", params=["bert", "roberta"])
def tiny_model(request, tiny_bert, tiny_roberta_lm):
    """Each tiny masked LM in turn: BERT ([SEP], WordPiece) and RoBERTa (</s>, byte-level BPE)."""
    return {"bert": tiny_bert, "roberta": tiny_roberta_lm}[request.param]


def _tokenizer(folder):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder)


def test_the_label_comes_first_and_the_offset_finds_the_text():
    text = "I am still waiting on my card?"
    string, offset = conditioned(CARD_ARRIVAL, text, "</s>")
    assert string == "card_arrival </s> I am still waiting on my card?" and string[offset:] == text
    assert conditioned(3, text, "[SEP]") == ("3 [SEP] " + text, 8)  # a label is written with str()


def test_trained_labels_is_none_for_anything_but_a_contextual_folder(tmp_path):
    assert trained_labels(tmp_path / "missing") is None and trained_labels("distilroberta-base") is None
    assert trained_labels(tmp_path) is None  # no record
    (tmp_path / "augkit-training.json").write_text(json.dumps({"target": "pointer", LABEL_PREFIX_RECORD_KEY: ["a"]}))
    assert trained_labels(tmp_path) is None
    (tmp_path / "augkit-training.json").write_text("{not json")
    assert trained_labels(tmp_path) is None
    (tmp_path / "augkit-training.json").write_text(json.dumps({"target": "contextual", LABEL_PREFIX_RECORD_KEY: ["a", "b"]}))
    assert trained_labels(tmp_path) == ["a", "b"]


def test_only_tokens_of_the_text_are_marked_for_masking(tiny_model, two_intents):
    tokenizer = _tokenizer(tiny_model)
    rows = conditioned_rows(two_intents["text"], two_intents["category"], tokenizer)
    assert rows.labels == [CARD_ARRIVAL, LOST_CARD] and rows.per_label == {CARD_ARRIVAL: 153, LOST_CARD: 82}
    spelt = tokenizer.convert_tokens_to_string
    for example, text, label in zip(rows.examples[:40], two_intents["text"][:40], two_intents["category"][:40]):
        tokens = tokenizer.convert_ids_to_tokens(example["input_ids"])
        marked = [token for token, on in zip(tokens, example["text_mask"]) if on]
        unmarked = [token for token, on in zip(tokens, example["text_mask"]) if not on]
        assert spelt(marked).strip() == spelt(tokenizer.tokenize(text)).strip()  # the whole text, nothing else
        prefix = [tokenizer.cls_token, *tokenizer.tokenize(label), tokenizer.sep_token, tokenizer.sep_token]
        assert spelt(unmarked).replace(" ", "") == spelt(prefix).replace(" ", "")  # the label, separator, specials


def test_the_collator_masks_text_tokens_only_at_berts_rates(tiny_model, two_intents):
    import torch

    tokenizer = _tokenizer(tiny_model)
    examples = conditioned_rows(two_intents["text"], two_intents["category"], tokenizer).examples
    collate = TextOnlyMasking(tokenizer, 0.15, generator=torch.Generator().manual_seed(0))
    chosen = maskable = as_mask = kept = 0
    for start in range(0, len(examples), 16):
        features = examples[start : start + 16]
        batch = collate(features)
        for row, feature in enumerate(features):
            ids, text = feature["input_ids"], feature["text_mask"]
            labels, inputs = batch["labels"][row].tolist(), batch["input_ids"][row].tolist()
            predicted = [p for p, label in enumerate(labels) if label != IGNORED_LABEL]
            assert predicted and all(p < len(ids) and text[p] for p in predicted)  # at least one, never the label
            assert all(inputs[p] == ids[p] for p in range(len(ids)) if not text[p])  # prefix and specials untouched
            assert all(labels[p] == ids[p] for p in predicted)
            chosen, maskable = chosen + len(predicted), maskable + sum(text)
            as_mask += sum(inputs[p] == tokenizer.mask_token_id for p in predicted)
            kept += sum(inputs[p] == ids[p] for p in predicted)
    assert 0.14 < chosen / maskable < 0.22  # 15%, and one for a row that drew none
    assert 0.72 < as_mask / chosen < 0.88 and 0.05 < kept / chosen < 0.17  # 80% masked, 10% kept (+ random hits)


def test_rows_without_a_label_or_text_are_left_out_and_one_label_is_refused(tiny_bert, two_intents):
    tokenizer = _tokenizer(tiny_bert)
    texts, labels = two_intents["text"].tolist()[:30], two_intents["category"].tolist()[:30]
    labels[:3] = [None, "", float("nan")]
    texts[3:5] = ["  ", None]
    rows = conditioned_rows(texts, [*labels[:-1], LOST_CARD], tokenizer)
    assert (rows.missing_label, rows.blank_text, len(rows.examples)) == (3, 2, 25)
    with pytest.raises(InputError, match=r"at least 2 labels, found 1 \('card_arrival'\) \(3 rows without a label left out\)"):
        conditioned_rows(texts, labels, tokenizer)
    with pytest.raises(InputError, match="row 5: the text must be a string, got int 5"):
        conditioned_rows([*texts[:5], 5, *texts[6:]], labels, tokenizer)


def test_a_long_row_is_cut_at_the_end_of_its_text(tiny_bert, banking):
    tokenizer = _tokenizer(tiny_bert)
    longest = banking.loc[banking["text"].str.len().nlargest(3).index]
    rows = conditioned_rows(longest["text"], longest["category"], tokenizer, max_length=16)
    assert rows.truncated == 3 and all(len(e["input_ids"]) == 16 for e in rows.examples)
    assert all(e["input_ids"][-1] == tokenizer.sep_token_id and e["text_mask"][-1] == 0 for e in rows.examples)


@pytest.mark.slow
def test_training_writes_a_masked_lm_whose_record_names_the_labels(tiny_model, two_intents, tmp_path):
    from augkit.plugin import load_masked_lm

    out = tmp_path / "contextual"
    labels = two_intents["category"].tolist()
    labels[0] = ""  # an empty cell: left out, not a class
    result = train_contextual(two_intents["text"], labels, out, model=str(tiny_model),
                              settings=ContextualSettings(max_steps=20, **FAST), progress=False)
    assert result.steps == 20 and result.labels == [CARD_ARRIVAL, LOST_CARD] and result.examples == 234
    assert result.losses[-1][1] < result.losses[0][1] - 1.0
    assert (out / "model.safetensors").is_file() and not (out / "pytorch_model.bin").exists()
    assert trained_labels(out) == [CARD_ARRIVAL, LOST_CARD]
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["target"] == "contextual" and record["base_model"] == str(tiny_model)
    assert record["examples_per_label"] == {CARD_ARRIVAL: 152, LOST_CARD: 82}
    assert record["skipped_rows"] == {"missing_label": 1, "blank_text": 0, "no_text_within_max_length": 0}
    assert record["settings"]["learning_rate"] == 5e-3 and record["settings"]["mlm_probability"] == 0.15
    assert record["sep_token"] in ("[SEP]", "</s>") and record["steps"] == 20 and record["progress"]["epochs"] > 1
    lm = load_masked_lm(str(out), device="cpu")
    masked = conditioned(CARD_ARRIVAL, f"I am still waiting on my {lm.mask_token}?", lm.tokenizer.sep_token)[0]
    assert len(lm.fill_masked([masked], k=5)[0][0]) == 5


@pytest.mark.slow
def test_a_run_resumes_from_its_newest_checkpoint(tiny_bert, two_intents, tmp_path):
    out, rows = tmp_path / "resumable", (two_intents["text"], two_intents["category"])
    first = train_contextual(*rows, out, model=str(tiny_bert), settings=ContextualSettings(max_steps=10, save_steps=5, **FAST),
                             progress=False)
    assert first.steps == 10 and (out / "checkpoint-10").is_dir()
    with pytest.raises(UsageError, match="holds checkpoints of an earlier run"):
        train_contextual(*rows, out, model=str(tiny_bert), settings=ContextualSettings(max_steps=20, **FAST), progress=False)
    second = train_contextual(*rows, out, model=str(tiny_bert),
                              settings=ContextualSettings(max_steps=20, save_steps=5, **FAST), resume=True, progress=False)
    assert second.resumed_from == "checkpoint-10" and second.steps == 20
    assert [step for step, _ in second.losses] == [1, 5, 10, 15, 20] and second.losses[:3] == first.losses
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["resumed_from"] == "checkpoint-10" and record[LABEL_PREFIX_RECORD_KEY] == [CARD_ARRIVAL, LOST_CARD]


@pytest.mark.slow
def test_a_time_budget_stops_at_a_step_with_a_checkpoint_to_resume(tiny_bert, two_intents, tmp_path):
    out, rows = tmp_path / "budget", (two_intents["text"], two_intents["category"])
    spent = train_contextual(*rows, out, model=str(tiny_bert),
                             settings=ContextualSettings(max_steps=500, max_minutes=0.0001, **FAST), progress=False)
    assert spent.stopped_by_time_budget and spent.steps == 1 and (out / "checkpoint-1").is_dir()
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["stopped_by_time_budget"] is True and record["progress"]["stopped_by"] == "--max-minutes"
    more = train_contextual(*rows, out, model=str(tiny_bert), settings=ContextualSettings(max_steps=4, **FAST), resume=True,
                            progress=False)
    assert more.resumed_from == "checkpoint-1" and more.steps == 4 and not more.stopped_by_time_budget


def test_bad_settings_are_named(tiny_bert, two_intents, tmp_path):
    rows = (two_intents["text"], two_intents["category"])
    for settings, message in ((ContextualSettings(mlm_probability=0), "mlm-probability must be positive, got 0"),
                              (ContextualSettings(mlm_probability=1.5), "mlm-probability must be at most 1, got 1.5"),
                              (ContextualSettings(max_length=4), "max-length must be at least 6"),
                              (ContextualSettings(learning_rate=0), "learning-rate must be positive, got 0")):
        with pytest.raises(UsageError, match=message):
            train_contextual(*rows, tmp_path / "x", model=str(tiny_bert), settings=settings, progress=False)


# The label decides a word: in card_arrival's texts the card stays a "card", in
# lost_or_stolen_card's it becomes a "phone" ("I lost my phone"). A model trained on these rows
# and asked to fill the slot of the same text must say "card" after card_arrival's prefix and
# "phone" after lost_or_stolen_card's: the prefix alone decides.
SLOT = re.compile(r"\bcard\b")
WORDS = {CARD_ARRIVAL: "card", LOST_CARD: "phone"}


@pytest.fixture(scope="module")
def slot_rows(two_intents) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of the two intents whose text has the word "card", that word replaced by
    :data:`WORDS` of the row's label; the last 3 rows of each label held out."""
    rows = two_intents[two_intents["text"].str.contains(SLOT)].copy()
    rows["text"] = [SLOT.sub(WORDS[label], text) for text, label in zip(rows["text"], rows["category"])]
    held = rows.groupby("category").tail(3)
    return rows.drop(held.index), held


def slot_margins(folder, texts: list[str]) -> dict[str, list[float]]:
    """For each label, log p(card) - log p(phone) at the first slot of each text, the text
    conditioned on that label."""
    from augkit.plugin import clear_model_cache, load_masked_lm

    clear_model_cache()
    lm = load_masked_lm(str(folder), device="cpu")
    lead = "Ġ" if lm.tokenizer.sep_token == "</s>" else ""  # RoBERTa's tokens for a word after a space
    masked = [re.sub(r"\b(card|phone)\b", lm.mask_token, text, count=1) for text in texts]
    margins = {}
    for label in WORDS:
        fills = lm.fill_masked([conditioned(label, text, lm.tokenizer.sep_token)[0] for text in masked], k=len(lm.tokenizer))
        logprobs = [{fill.token: fill.logprob for fill in row[0]} for row in fills]
        margins[label] = [round(p[lead + "card"] - p[lead + "phone"], 2) for p in logprobs]
    return margins


@pytest.mark.slow
def test_the_label_a_trained_model_reads_decides_its_fill(tiny_model, slot_rows, tmp_path):
    train, held = slot_rows
    texts = held["text"].tolist()
    before = slot_margins(tiny_model, texts)
    # the random model barely tells the prefixes apart: the same text gets nearly the same margin
    assert all(abs(a - b) < 0.5 for a, b in zip(before[CARD_ARRIVAL], before[LOST_CARD])), before
    train_contextual(train["text"], train["category"], tmp_path / "m", model=str(tiny_model),
                     settings=ContextualSettings(max_steps=300, **{**FAST, "logging_steps": 100}), progress=False)
    after = slot_margins(tmp_path / "m", texts)
    assert all(margin > 0 for margin in after[CARD_ARRIVAL]), after  # "card" above "phone" after card_arrival
    assert sum(margin < 0 for margin in after[LOST_CARD]) >= 5, after  # "phone" above "card" after lost_or_stolen_card
    assert all(a - b > 1.0 for a, b in zip(after[CARD_ARRIVAL], after[LOST_CARD])), after
    # and through the method: the held-out texts with "card", every other word protected, the
    # likeliest accepted proposal ("card" itself is refused) under each label
    import augkit

    with_card = [SLOT.sub("card", text) for text in texts]
    others = sorted({word for text in with_card for word in re.findall(r"\w+", text) if word != "card"})
    phones = {}
    for label in WORDS:
        rows = pd.DataFrame({"text": with_card, "category": label})
        out = augkit.augment(rows, "contextual", n=1, seed=0, label_column="category", model=str(tmp_path / "m"),
                             condition="label", top_k=1, protect=others, device="cpu")
        added = out[out["augkit_method"] == "contextual"]["text"]
        phones[label] = sum(bool(re.search(r"\bphone\b", text)) for text in added)
    assert phones[LOST_CARD] > phones[CARD_ARRIVAL], phones
    unknown = pd.DataFrame({"text": with_card[:2], "category": "top_up_failed"})
    out, report = augkit.augment_with_report(unknown, "contextual", n=1, seed=0, label_column="category",
                                             model=str(tmp_path / "m"), condition="label", device="cpu")
    assert len(out) == 2 and "'top_up_failed' is not among the labels the model was trained on" in str(report.summary())
