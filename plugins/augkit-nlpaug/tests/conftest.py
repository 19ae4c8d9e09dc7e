"""Fixtures of the augkit-nlpaug tests: real texts from the shared data (the root
conftest's helpers are reached as fixtures only: ``from conftest import`` may find another
plugin's conftest)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import numpy as np
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


@pytest.fixture(scope="session")
def outputs_under_numpy_seeds() -> Callable:
    """``outputs_under_numpy_seeds(method, texts)``: the bridged method's outputs (each row's
    generator seeded alike) after NumPy's global seed 1 and after seed 2, checking that
    NumPy's stream goes on as if the method had not run."""

    def run(method, texts: list[str]) -> list[list[list[str]]]:
        outputs = []
        for numpy_seed in (1, 2):
            np.random.seed(numpy_seed)
            outputs.append([method.augment(text, 2, random.Random(7)) for text in texts])
            after = np.random.random()
            np.random.seed(numpy_seed)
            assert after == np.random.random(), f"{method.name} moved NumPy's global stream"
        return outputs

    return run
