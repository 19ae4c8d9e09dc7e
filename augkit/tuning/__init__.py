"""``augkit tune``: find out whether, and which, augmentation helps a classifier on your data.

Modules: :mod:`~augkit.tuning.split` (stratified, seeded validation splits),
:mod:`~augkit.tuning.space` (the configurations tried), :mod:`~augkit.tuning.classifiers`
(the judges: logistic regression on frozen MiniLM or on TF-IDF),
:mod:`~augkit.tuning.runner` (:func:`tune`), :mod:`~augkit.tuning.ranking` (paired gains
and the recommendation), :mod:`~augkit.tuning.job` (the resumable job folder),
:mod:`~augkit.tuning.summary` (the closing words) and the command, :mod:`augkit.cli.tune`.
Guide: docs/tune.md.
"""

from augkit.tuning.runner import TuneResult, tune
from augkit.tuning.space import Configuration

__all__ = ["Configuration", "TuneResult", "tune"]
