"""What every model family shares: spec resolution ($AUGKIT_MODEL_DIR, ids offline), one
shared copy per process, safetensors only, the one message for a model that is missing,
and the sentence encoder's old import path."""

from __future__ import annotations

import shutil

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from augkit.errors import ModelNotAvailableError  # noqa: E402
from augkit.models import (  # noqa: E402
    MODEL_DIR_ENV,
    CausalLM,
    MaskedLM,
    PairClassifier,
    load_causal_lm,
    load_masked_lm,
    load_pair_classifier,
)

FAMILIES = [
    (load_masked_lm, "tiny_masked_lm", MaskedLM, "masked language"),
    (load_causal_lm, "tiny_causal_lm", CausalLM, "causal language"),
    (load_pair_classifier, "tiny_pair_classifier", PairClassifier, "sequence-pair classification"),
]


@pytest.mark.parametrize(("load", "fixture", "runtime", "kind"), FAMILIES)
def test_a_model_is_loaded_once_and_shared(request, load, fixture, runtime, kind):
    folder = str(request.getfixturevalue(fixture))
    first = load(folder, device="cpu")
    assert isinstance(first, runtime) and load(folder, device="cpu") is first
    assert not first.model.training


@pytest.mark.parametrize(("load", "fixture", "runtime", "kind"), FAMILIES)
def test_weights_other_than_safetensors_are_refused(request, tmp_path, load, fixture, runtime, kind):
    folder = tmp_path / "pickled"
    shutil.copytree(request.getfixturevalue(fixture), folder)
    from safetensors.torch import load_file

    torch.save(load_file(folder / "model.safetensors"), folder / "pytorch_model.bin")
    (folder / "model.safetensors").unlink()
    with pytest.raises(ModelNotAvailableError) as caught:
        load(str(folder), device="cpu")
    assert f"{kind} model" in str(caught.value) and "model.safetensors" in str(caught.value)


@pytest.mark.parametrize(("load", "fixture", "runtime", "kind"), FAMILIES)
def test_a_hub_id_loads_from_augkit_model_dir_offline(request, tmp_path, monkeypatch, load, fixture, runtime, kind):
    shutil.copytree(request.getfixturevalue(fixture), tmp_path / "augkit-tests--tiny")
    monkeypatch.setenv(MODEL_DIR_ENV, str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = load("augkit-tests/tiny@main", device="cpu")
    assert isinstance(model, runtime) and model.name == "augkit-tests/tiny@main"


@pytest.mark.parametrize(("load", "fixture", "runtime", "kind"), FAMILIES)
def test_a_missing_hub_model_says_how_to_provide_it(monkeypatch, load, fixture, runtime, kind):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv(MODEL_DIR_ENV, raising=False)
    with pytest.raises(ModelNotAvailableError) as caught:
        load("augkit-tests/no-such-model", device="cpu")
    message = str(caught.value)
    assert f"{kind} model 'augkit-tests/no-such-model' is not available" in message
    assert "AUGKIT_MODEL_DIR" in message and "local directory" in message


def test_a_model_of_another_family_is_refused_naming_the_family(tiny_causal_lm):
    with pytest.raises(ModelNotAvailableError, match="masked language model"):
        load_masked_lm(str(tiny_causal_lm), device="cpu")


def test_one_padding_multiple_and_one_device_resolver():
    from augkit.models import batching, device, encoder

    assert encoder.PAD_MULTIPLE is batching.PAD_MULTIPLE
    assert encoder.resolve_device is device.resolve_device
    assert encoder._padded_length(5, 512) == batching.padded_length(5)
