"""Few-shot benchmark: does augmentation help a classifier trained on K examples per class?

For each dataset, K in ``--shots`` and seed, a K-shot sample is drawn from the training split;
a classifier is trained on it alone (``none``) and on it plus ``n`` augmentations per example
from each method, and scored on the full test split (accuracy and macro-F1). Gains over
``none`` are paired per seed. Run ``python -m benchmarks.fewshot --help``; results and
findings: docs/benchmarks/fewshot.md.

Modules: :mod:`~benchmarks.fewshot.data` (datasets, K-shot sampling),
:mod:`~benchmarks.fewshot.methods` (method strings), :mod:`~benchmarks.fewshot.classifiers`
(the ``Classifier`` protocol, logistic regression on frozen embeddings),
:mod:`~benchmarks.fewshot.finetune` (fine-tuned MiniLM), :mod:`~benchmarks.fewshot.setfit_classifier`
(SetFit, augmentation as rows or as positive pairs), :mod:`~benchmarks.fewshot.runner` (the loop),
:mod:`~benchmarks.fewshot.report` (CSV, Markdown, plots), :mod:`~benchmarks.fewshot.cli`,
:mod:`~benchmarks.fewshot.map` (classifiers x shots x tasks x methods, resumable).
"""

#: The methods compared when ``--methods`` is not given.
DEFAULT_METHODS = (
    "none",
    "eda",
    "aeda",
    "eda|semantic|label_integrity",
    "aeda|semantic|label_integrity",
    "nlpaug:synonym",
    "nlpaug:swap",
)

#: The method run with the paper's models (seed 000): added to the defaults when they are at
#: hand (:func:`default_methods`).
PARAMAC = "paramac"


def default_methods() -> tuple[str, ...]:
    """:data:`DEFAULT_METHODS`, plus ``paramac`` when augkit-paramac is installed and its four
    default models load without a download (a folder, ``$AUGKIT_MODEL_DIR`` or the Hugging
    Face cache): ParaMac is worth a row wherever a real generator is, and costs a download
    of several GB where none is."""
    return DEFAULT_METHODS + ((PARAMAC,) if _paramac_models_at_hand() else ())


def _paramac_models_at_hand() -> bool:
    try:
        from augkit_paramac.augmenter import (
            DEFAULT_FLUENCY_MODEL,
            DEFAULT_GENERATOR,
            DEFAULT_SEMANTIC_MODEL,
            DEFAULT_SUBSTITUTION_MODEL,
        )
        from huggingface_hub import try_to_load_from_cache

        from augkit.models import resolve_model_source
    except ImportError:
        return False
    for model in (DEFAULT_GENERATOR, DEFAULT_SUBSTITUTION_MODEL, DEFAULT_FLUENCY_MODEL, DEFAULT_SEMANTIC_MODEL):
        source = resolve_model_source(model)
        if not source.local and not isinstance(try_to_load_from_cache(model, "config.json"), str):
            return False
    return True
