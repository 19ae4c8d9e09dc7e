"""Fixtures of the augkit-nlpaug tests: real texts from the shared data (the root
conftest's helpers are reached as fixtures only: ``from conftest import`` may find another
plugin's conftest)."""

from __future__ import annotations

import re

import pytest


def _lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="session")
def banking77_train(shared_data) -> list[str]:
    """BANKING77's training texts (jianguoz split), in file order."""
    return _lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")


@pytest.fixture(scope="session")
def banking77_texts(banking77_train) -> list[str]:
    """Thirty BANKING77 training texts of five words or more (room for every augmenter)."""
    return [text for text in banking77_train if len(text.split()) >= 5][:30]


@pytest.fixture(scope="session")
def banking77_multi_sentence(banking77_train) -> list[str]:
    """BANKING77 training texts of two sentences or more, for the sentence augmenter."""
    return [text for text in banking77_train if len(re.findall(r"[.?!](?:\s|$)", text)) >= 2][:10]


@pytest.fixture(scope="session")
def wordnet_for_nltk():
    """Fail (not skip) when NLTK has no WordNet: `make test` lays it out and sets NLTK_DATA."""
    import nltk

    try:
        nltk.data.find("corpora/wordnet")
    except LookupError:
        pytest.fail("NLTK cannot find WordNet: run the tests with `make test` (scripts/nltk_wordnet.sh, NLTK_DATA)")
