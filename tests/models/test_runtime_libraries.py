"""A model-backed step in an install without the libraries that load models (a bare
``pip install augkit``) says which are missing and the extra that installs them, before any
model is looked for."""

from __future__ import annotations

import importlib.util

import pytest

from augkit.errors import MissingDependencyError
from augkit.models.needs import ModelNeed, check_models

ENCODER = ModelNeed(None, "sentence-transformers", "semantic.model", "sentence embeddings")
TRANSLATOR = ModelNeed("Helsinki-NLP/opus-mt-en-fr", "seq2seq", "forward_model", "translation")


def without(monkeypatch, *modules: str) -> None:
    """Make ``modules`` look uninstalled to ``importlib.util.find_spec``."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in modules else find_spec(name, *a))


def test_a_missing_encoder_library_names_itself_the_model_and_the_quality_extra(monkeypatch):
    without(monkeypatch, "sentence_transformers")
    with pytest.raises(MissingDependencyError) as caught:
        check_models([ENCODER], "the pipeline 'eda|semantic'")
    message = str(caught.value)
    assert message.startswith("the pipeline 'eda|semantic' needs sentence-transformers to load its model (")
    assert "set by semantic.model" in message and message.endswith("it is not installed: pip install 'augkit[quality]'")


def test_without_torch_every_model_kind_is_named_with_its_extra(monkeypatch):
    without(monkeypatch, "torch", "sentence_transformers")
    with pytest.raises(MissingDependencyError) as caught:
        check_models([ENCODER, TRANSLATOR], "the pipeline 'backtranslation|semantic'")
    message = str(caught.value)
    assert "needs torch, sentence-transformers to load its models (" in message
    assert "'Helsinki-NLP/opus-mt-en-fr'" in message and "set by forward_model" in message
    assert message.endswith("they are not installed: pip install 'augkit[models,quality]'")


def test_with_the_libraries_installed_the_models_themselves_are_looked_for(tmp_path):
    folder = tmp_path / "no-model-here"
    with pytest.raises(Exception) as caught:
        check_models([ModelNeed(str(folder), "seq2seq", "model")], "paramac")
    assert not isinstance(caught.value, MissingDependencyError) and str(folder) in str(caught.value)
