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

#: Methods added to the defaults when their models load without a download (a folder,
#: ``$AUGKIT_MODEL_DIR`` or the Hugging Face cache): worth a row wherever their models are,
#: and a download of several GB where they are not (:func:`default_methods`).
PARAMAC = "paramac"  # seed 000, with the paper's four models
CONTEXTUAL = "contextual"  # issue 38: masked-LM substitution, distilroberta-base


def default_methods() -> tuple[str, ...]:
    """:data:`DEFAULT_METHODS`, plus ``paramac`` and ``contextual`` when their plugin is
    installed and their default models are at hand (:func:`augkit.tuning.space.methods_at_hand`)."""
    from augkit.tuning.space import methods_at_hand

    return DEFAULT_METHODS + methods_at_hand((PARAMAC, CONTEXTUAL))
