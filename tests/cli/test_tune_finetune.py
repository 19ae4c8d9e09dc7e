"""The fine-tuned judge (``augkit tune --classifier finetune``,
:class:`augkit.tuning.finetune.FineTunedMiniLM`): early stopping stops and keeps the best
weights, two-stage training runs a second stage on the originals alone, the same seed gives
the same model, and in ``augkit tune`` it early-stops on rows of each split's training part,
never its validation part. Mechanics only: a tiny random BERT (the ``tiny_masked_lm``
fixture) stands in for MiniLM; BANKING77 5-shot rows."""

from __future__ import annotations

import pandas as pd
import pytest

import augkit
from augkit.tuning import classifiers
from augkit.tuning.finetune import FineTunedMiniLM, _Validation
from augkit.tuning.split import stratified_split
from conftest import read_lines

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytestmark = pytest.mark.slow

#: A tiny model learns quickly at a large learning rate; 8 rows a step.
FAST = {"batch_size": 8, "lr": 1e-3, "head_lr": 1e-2, "warmup": 0.0}


@pytest.fixture(scope="module")
def five_shot(shared_data) -> pd.DataFrame:
    """BANKING77's 5-shot training split, its first 4 intents (20 rows)."""
    folder = shared_data / "banking77" / "jianguoz" / "train_5"
    frame = pd.DataFrame({"text": read_lines(folder / "seq.in"), "label": read_lines(folder / "label")})
    return frame[frame["label"].isin(sorted(frame["label"].unique())[:4])].reset_index(drop=True)


@pytest.fixture(scope="module")
def halves(five_shot):
    """Three rows of each intent to train on, two to stop on."""
    layout = stratified_split(five_shot["label"].tolist(), 0.4, seed=0)
    pick = lambda rows: (five_shot["text"][rows].tolist(), five_shot["label"][rows].tolist())
    return pick(layout.train), pick(layout.valid)


def test_early_stopping_stops_after_patience_checks_and_keeps_the_best_weights(tiny_masked_lm, halves):
    (texts, labels), stop = halves
    model = FineTunedMiniLM(steps=400, eval_every=2, patience=3, seed=0, model_path=str(tiny_masked_lm), **FAST)
    model.fit(texts, labels, validation=stop)
    (run, kept), = model.stage_steps_
    checks = model.checks_[0]
    assert run < 400, "stopped before the ceiling"
    assert run == checks[-1][0] and run - kept == 3 * 2, "stopped 3 checks (6 steps) after the best"
    best = max(checks, key=lambda check: check[1:])
    assert best[0] == kept
    targets = __import__("torch").tensor([model.classes_.index(label) for label in stop[1]])
    assert model._evaluate(_Validation(stop[0], targets)) == pytest.approx(best[1:], abs=1e-6), \
        "the model holds the best check's weights, not the last step's"


def test_two_stage_training_runs_a_second_stage_on_the_originals_alone(tiny_masked_lm, five_shot, halves, monkeypatch):
    (texts, labels), stop = halves
    augmented = augkit.augment(pd.DataFrame({"text": texts, "label": labels}), "aeda", n=2, seed=0,
                               label_column="label", progress=False)
    originals = augmented["augkit_method"].isna().tolist()
    drawn: list[list[str]] = []
    stage, logits = FineTunedMiniLM._train_stage, FineTunedMiniLM._logits

    def train_stage(self, *args):
        drawn.append([])
        return stage(self, *args)

    def record(self, batch):
        if self.encoder_.training:
            drawn[-1].extend(batch)
        return logits(self, batch)

    monkeypatch.setattr(FineTunedMiniLM, "_train_stage", train_stage)
    monkeypatch.setattr(FineTunedMiniLM, "_logits", record)
    model = FineTunedMiniLM(steps=20, eval_every=5, patience=2, seed=0, model_path=str(tiny_masked_lm), **FAST)
    model.fit(augmented["text"].tolist(), augmented["label"].tolist(), [1.0 if o else 0.3 for o in originals],
              validation=stop, originals_last=originals)
    assert len(model.stage_steps_) == 2 and len(drawn) == 2
    original_texts = set(augmented["text"][originals])
    assert not set(drawn[0]) <= original_texts, "the first stage draws augmented rows too"
    assert drawn[1] and set(drawn[1]) <= original_texts, "the second stage draws originals only"


def test_the_same_seed_gives_the_same_model_and_another_seed_another(tiny_masked_lm, halves):
    (texts, labels), stop = halves
    import torch

    before = torch.random.get_rng_state()
    fits = [FineTunedMiniLM(steps=12, eval_every=4, patience=2, seed=seed, model_path=str(tiny_masked_lm), **FAST)
            .fit(texts, labels, validation=stop) for seed in (0, 0, 1)]
    assert torch.equal(torch.random.get_rng_state(), before), "fitting leaves torch's global generator alone"
    first, again, other = (fit._state() for fit in fits)
    for part in ("encoder", "head"):
        assert all(torch.equal(first[part][name], again[part][name]) for name in first[part])
    assert not torch.equal(first["head"]["weight"], other["head"]["weight"])
    assert fits[0].predict(stop[0]) == fits[1].predict(stop[0])


def test_tune_with_the_fine_tuned_judge_stops_on_the_training_part_and_repeats_its_table(tiny_masked_lm, five_shot, monkeypatch):
    monkeypatch.setitem(classifiers.FINETUNE_SETTINGS, "steps", 12)
    monkeypatch.setitem(classifiers.FINETUNE_SETTINGS, "eval_every", 4)
    for key, value in FAST.items():
        monkeypatch.setitem(classifiers.FINETUNE_SETTINGS, key, value)
    fitted: list[dict] = []
    fit = FineTunedMiniLM.fit

    def spy(self, texts, labels, sample_weight=None, validation=None, originals_last=None):
        fitted.append({"texts": list(texts), "stop": list(validation[0]), "two_stage": originals_last is not None})
        return fit(self, texts, labels, sample_weight, validation, originals_last)

    monkeypatch.setattr(FineTunedMiniLM, "fit", spy)
    arguments = {"classifier": "finetune", "encoder": str(tiny_masked_lm), "pipelines": ["aeda"], "n": [1], "weights": [1.0],
                 "trainings": ["joint", "two-stage"], "splits": 2, "seed": 0}
    result = augkit.tune(five_shot, **arguments)
    assert result.complete and result.runs_done == 6
    texts, labels = five_shot["text"].tolist(), five_shot["label"].tolist()
    for index in range(2):
        layout = stratified_split(labels, 0.25, seed=index)
        split_fits = fitted[3 * index:3 * index + 3]
        stop = set(split_fits[0]["stop"])
        assert stop <= {texts[i] for i in layout.train}, "early stopping reads the training part"
        assert not stop & {texts[i] for i in layout.valid}, "never the validation part it is scored on"
        assert len(stop) == 4, "one row of each of the 4 intents"
        for each in split_fits:
            assert each["stop"] == split_fits[0]["stop"], "every configuration of a split stops on the same rows"
            # AEDA only inserts punctuation marks: without them, a row shows which original it came from
            assert not stop & {_without_marks(text) for text in each["texts"]}, \
                "held out before augmenting: neither trained on nor augmented"
        assert [each["two_stage"] for each in split_fits] == [False, False, True]
    again = augkit.tune(five_shot, **arguments)
    pd.testing.assert_frame_equal(result.table, again.table)


def _without_marks(text: str) -> str:
    return " ".join(word for word in text.split() if word not in {".", ";", "?", ":", "!", ","})
