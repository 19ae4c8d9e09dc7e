"""The shipped lexicon is WordNet 3.0, and answers exactly as NLTK's WordNet reader does."""

from __future__ import annotations

import importlib.util
from importlib import resources
from pathlib import Path

import pytest
from augkit_eda.wordnet import LEXICON_RESOURCE, default_lexicon

TOOLS = Path(__file__).resolve().parents[1] / "tools" / "build_wordnet_lexicon.py"
IRREGULAR = ["geese", "mice", "axes", "better", "best", "went", "ran", "children", "leaves", "women",
             "corpora", "happiest", "hoping", "boxes", "churches", "studies", "fixing", "swimming", "data"]


def nltk_lemma_names(wordnet, word: str) -> tuple[str, ...]:
    names: dict[str, None] = {}
    for synset in wordnet.synsets(word):
        names.update(dict.fromkeys(synset.lemma_names()))
    return tuple(names)


def test_lemma_names_match_nltk_for_real_vocabulary(nltk_wordnet, banking77_vocabulary):
    lexicon = default_lexicon()
    words = banking77_vocabulary + IRREGULAR
    mismatches = [w for w in words if lexicon.lemma_names(w) != nltk_lemma_names(nltk_wordnet, w)]
    assert len(words) > 5000
    assert mismatches == []


def test_lookups_are_case_insensitive_and_unknown_words_are_empty():
    lexicon = default_lexicon()
    assert lexicon.lemma_names("Bank") == lexicon.lemma_names("bank")
    assert "depository_financial_institution" in lexicon.lemma_names("banks")
    assert lexicon.lemma_names("qwxzv") == ()
    assert lexicon.lemma_names("") == ()


@pytest.mark.slow
def test_shipped_file_is_rebuilt_byte_for_byte_from_wordnet_3(nltk_wordnet):
    wordnet_dir = Path("/usr/share/wordnet")
    spec = importlib.util.spec_from_file_location("build_wordnet_lexicon", TOOLS)
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    rebuilt = builder.serialise(builder.build_lexicon(wordnet_dir))
    shipped = resources.files("augkit_eda").joinpath(LEXICON_RESOURCE).read_bytes()
    assert rebuilt == shipped
