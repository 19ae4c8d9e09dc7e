"""``import augkit`` and ``import augkit.metrics`` stay light: no pandas, numpy, torch,
transformers or metric back-ends at import."""

import pytest

from conftest import modules_loaded_by_import

HEAVY = (
    "torch", "transformers", "pandas", "numpy", "datasets", "nltk",
    "sacrebleu", "rouge_score", "rapidfuzz", "sentence_transformers", "sentencepiece", "segtok",
)


@pytest.mark.parametrize(
    "module",
    ["augkit", "augkit.metrics", "augkit.evaluation", "augkit.cli", "augkit.filters", "augkit.encoders",
     "augkit.models", "augkit.testing"],
)
def test_import_loads_no_heavy_dependency(module):
    assert modules_loaded_by_import(module, HEAVY) == []


def test_public_api_is_explicit():
    import augkit
    import augkit.metrics

    for package in (augkit, augkit.metrics):
        for name in package.__all__:
            assert hasattr(package, name), f"{package.__name__}.{name}"
