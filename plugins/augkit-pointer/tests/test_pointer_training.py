"""Training POINTER's insertion model on BANKING77 training texts with a tiny BERT: the loss
falls, the saved folder is a BERT masked LM with [NOI] that transformers loads, a pretrained
model without [NOI] gets one, runs resume from their newest checkpoint, a time budget stops a
run cleanly, and a folder in use or holding an earlier run is refused."""

from __future__ import annotations

import json

import pytest
from augkit_pointer.augmenter import REPETITION_REASON
from augkit_pointer.stages import NOI_TOKEN
from augkit_pointer.training import (
    IGNORED_LABEL,
    PointerSettings,
    example_features,
    stage_corpus,
    train_pointer,
)

from augkit.plugin import UsageError, training_folder

pytestmark = pytest.mark.slow
pytest.importorskip("torch")
pytest.importorskip("accelerate")

#: A quick run: a tiny model learns in tens of steps at a rate a from-scratch model can take.
FAST = {"batch_size": 16, "learning_rate": 1e-3, "logging_steps": 5}


@pytest.fixture(scope="module")
def sentences(shared_data) -> list[str]:
    """The first 160 BANKING77 training texts."""
    return (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()[:160]


def test_loss_falls_and_the_folder_is_a_bert_with_noi(tmp_path, sentences):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    out = tmp_path / "pointer"
    result = train_pointer(sentences, out, new_model="tiny", settings=PointerSettings(max_steps=40, **FAST), progress=False)
    assert result.steps == 40 and len(result.losses) == 9 and result.sentences == 160  # step 1, then every 5
    first, last = [loss for _, loss in result.losses[:2]], [loss for _, loss in result.losses[-2:]]
    assert sum(last) / 2 < sum(first) / 2 - 1.0
    assert (out / "model.safetensors").is_file() and not (out / "pytorch_model.bin").exists()
    model, tokenizer = AutoModelForMaskedLM.from_pretrained(out), AutoTokenizer.from_pretrained(out)
    assert type(model).__name__ == "BertForMaskedLM"
    noi = tokenizer.convert_tokens_to_ids(NOI_TOKEN)
    assert noi != tokenizer.unk_token_id and model.config.vocab_size == len(tokenizer)
    assert tokenizer.tokenize(f"my {NOI_TOKEN} card") == ["my", NOI_TOKEN, "card"]
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["new_model"] == "tiny" and record["new_model_shape"]["hidden"] == 128 and record["base_model"] is None
    assert record["noi_token"] == NOI_TOKEN and record["noi_token_id"] == noi
    assert record["steps"] == 40 and record["sentences"] == 160 and record["examples"] == result.examples > 160 * 2
    assert record["settings"]["learning_rate"] == 1e-3 and record["seconds"] > 0
    _generates_around_keywords(out, sentences)


def _generates_around_keywords(folder, sentences):
    """The trained folder is a ``pointer`` model: it says [NOI] where the random one never
    does (some rows finish before the stage limit) and every output keeps its keywords."""
    import random

    from augkit_pointer.insertion import InsertionGenerator
    from augkit_pointer.keywords import extract_keywords

    import augkit
    from augkit.plugin import load_masked_lm

    queries = sentences[:12]
    lists = [[k.text for k in extract_keywords(text, random.Random(i))] for i, text in enumerate(queries)]
    insertions = InsertionGenerator(load_masked_lm(str(folder), device="cpu")).generate(lists)
    assert any(insertion.finished for insertion in insertions)
    for keywords, insertion in zip(lists, insertions, strict=True):
        position = 0
        for keyword in keywords:
            position = insertion.text.index(keyword, position) + len(keyword)
    outputs, report = augkit.augment_with_report(queries, "pointer", n=2, seed=0, insertion_model=str(folder), p_syn=0.0)
    assert all(text not in queries for row in outputs for text in row)
    # a 40-step model still says a keyword over and over now and then: such rows are refused as loops
    assert sum(map(bool, outputs)) + report.without_augmentation[REPETITION_REASON] == len(queries)
    assert sum(map(bool, outputs)) >= len(queries) // 2


def test_examples_become_inputs_and_labels_the_loss_reads(tmp_path, sentences):
    from transformers import AutoTokenizer

    train_pointer(sentences[:20], tmp_path / "m", new_model="tiny", settings=PointerSettings(max_steps=1, **FAST), progress=False)
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "m")
    staged, _ = stage_corpus(sentences[:20], tokenizer)
    example = staged.examples[1]
    features = example_features(example, tokenizer)
    assert tokenizer.convert_ids_to_tokens(features["input_ids"]) == ["[CLS]", *example.tokens, "[SEP]"]
    assert tokenizer.convert_ids_to_tokens(features["labels"][:-1]) == list(example.labels)
    assert features["labels"][-1] == IGNORED_LABEL


def test_a_pretrained_bert_without_noi_gets_one(tmp_path, sentences, tiny_masked_lm):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    before = len(AutoTokenizer.from_pretrained(tiny_masked_lm))
    assert NOI_TOKEN not in AutoTokenizer.from_pretrained(tiny_masked_lm).get_vocab()
    out = tmp_path / "from-bert"
    result = train_pointer(sentences, out, model=str(tiny_masked_lm), settings=PointerSettings(max_steps=3, **FAST),
                           progress=False)
    tokenizer = AutoTokenizer.from_pretrained(out)
    assert len(tokenizer) == before + 1 and tokenizer.convert_tokens_to_ids(NOI_TOKEN) == before
    assert AutoModelForMaskedLM.from_pretrained(out).config.vocab_size == before + 1
    record = json.loads((out / "augkit-training.json").read_text())
    assert record["base_model"] == str(tiny_masked_lm) and record["new_model"] is None and result.steps == 3
    assert record["settings"]["learning_rate"] == 1e-3


def test_a_run_resumes_from_its_newest_checkpoint(tmp_path, sentences):
    out = tmp_path / "resumable"
    first = train_pointer(sentences, out, new_model="tiny", settings=PointerSettings(max_steps=10, save_steps=5, **FAST),
                          progress=False)
    assert first.steps == 10 and (out / "checkpoint-10").is_dir()
    with pytest.raises(UsageError, match="holds checkpoints of an earlier run"):
        train_pointer(sentences, out, new_model="tiny", settings=PointerSettings(max_steps=20, **FAST), progress=False)
    second = train_pointer(sentences, out, new_model="tiny", settings=PointerSettings(max_steps=20, save_steps=5, **FAST),
                           resume=True, progress=False)
    assert second.resumed_from == "checkpoint-10" and second.steps == 20
    assert [step for step, _ in second.losses] == [1, 5, 10, 15, 20] and second.losses[:3] == first.losses
    assert json.loads((out / "augkit-training.json").read_text())["resumed_from"] == "checkpoint-10"


def test_the_same_seed_gives_the_same_losses(tmp_path, sentences):
    settings = PointerSettings(max_steps=6, **{**FAST, "logging_steps": 2})
    runs = [train_pointer(sentences, tmp_path / name, new_model="tiny", settings=settings, progress=False).losses
            for name in ("a", "b")]
    assert len(runs[0]) == 4 and runs[0] == runs[1]


def test_a_time_budget_stops_at_a_step_with_a_checkpoint_to_resume(tmp_path, sentences):
    out = tmp_path / "budget"
    spent = train_pointer(sentences, out, new_model="tiny", settings=PointerSettings(max_steps=500, max_minutes=0.0001, **FAST),
                          progress=False)
    assert spent.stopped_by_time_budget and spent.steps == 1 and (out / "checkpoint-1").is_dir()
    assert json.loads((out / "augkit-training.json").read_text())["stopped_by_time_budget"] is True
    more = train_pointer(sentences, out, new_model="tiny", settings=PointerSettings(max_steps=4, **FAST), resume=True,
                         progress=False)
    assert more.resumed_from == "checkpoint-1" and more.steps == 4 and not more.stopped_by_time_budget


def test_a_second_run_on_a_folder_in_use_is_refused(tmp_path, sentences):
    out = tmp_path / "busy"
    with training_folder(out, resume=False):
        with pytest.raises(UsageError, match="in use by another training run"):
            train_pointer(sentences, out, new_model="tiny", settings=PointerSettings(max_steps=2, **FAST), progress=False)
    assert not (out / "model.safetensors").exists()


def test_bad_settings_and_shapes_are_named(tmp_path, sentences):
    with pytest.raises(UsageError, match="unknown model shape 'mni'; did you mean 'mini'.* valid shapes: base, medium, mini, small, tiny"):
        train_pointer(sentences, tmp_path / "x", new_model="mni", progress=False)
    with pytest.raises(UsageError, match="learning-rate must be positive, got 0"):
        train_pointer(sentences, tmp_path / "x", new_model="tiny", settings=PointerSettings(learning_rate=0), progress=False)
    with pytest.raises(UsageError, match="no sentence fits in --max-length 4"):
        train_pointer(sentences, tmp_path / "x", new_model="tiny", settings=PointerSettings(max_length=4), progress=False)
    with pytest.raises(UsageError, match="no sentences to train on"):
        train_pointer(["", "  "], tmp_path / "y", new_model="tiny", progress=False)
