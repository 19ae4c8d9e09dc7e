"""Fixtures of the EDA tests."""

from __future__ import annotations

import re

import pytest


@pytest.fixture(scope="session")
def banking77_vocabulary(shared_data) -> list[str]:
    """Distinct lower-case words of the BANKING77 and CLINC150 training texts."""
    words: set[str] = set()
    for path in (
        shared_data / "banking77" / "polyai" / "train.csv",
        shared_data / "clinc150" / "jianguoz" / "train" / "seq.in",
    ):
        words.update(re.findall(r"[a-z]+(?:['-][a-z]+)*", path.read_text(encoding="utf-8").lower()))
    return sorted(words)


@pytest.fixture(scope="session")
def nltk_wordnet():
    """NLTK's WordNet reader over Princeton WordNet 3.0 (laid out by scripts/nltk_wordnet.sh)."""
    from nltk.corpus import wordnet

    try:
        wordnet.ensure_loaded()
    except LookupError:
        pytest.fail("NLTK cannot find WordNet: run the tests with `make test`, which lays out "
                    "Debian's WordNet 3.0 for NLTK (scripts/nltk_wordnet.sh) and sets NLTK_DATA")
    return wordnet
