"""Few-shot benchmark: does augmentation help a classifier trained on K examples per class?

For each dataset, K in ``--shots`` and seed, a K-shot sample is drawn from the training split;
a classifier is trained on it alone (``none``) and on it plus ``n`` augmentations per example
from each method, and scored on the full test split (accuracy and macro-F1). Gains over
``none`` are paired per seed. Run ``python -m benchmarks.fewshot --help``; results and
findings: docs/benchmarks/fewshot.md.

Modules: :mod:`~benchmarks.fewshot.data` (datasets, K-shot sampling),
:mod:`~benchmarks.fewshot.methods` (method strings), :mod:`~benchmarks.fewshot.classifiers`
(the ``Classifier`` protocol, logistic regression on frozen embeddings),
:mod:`~benchmarks.fewshot.finetune` (fine-tuned MiniLM), :mod:`~benchmarks.fewshot.runner`
(the loop), :mod:`~benchmarks.fewshot.report` (CSV, Markdown, plot), :mod:`~benchmarks.fewshot.cli`.
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
