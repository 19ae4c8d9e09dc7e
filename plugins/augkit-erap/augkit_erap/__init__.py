"""augkit-erap: entailment-relation-aware paraphrasing (Sancheti et al. 2022, "Entailment
Relation Aware Paraphrase Generation", ERAP). A seq2seq generator told the relation by a
control token, an NLI oracle that checks it (:func:`augkit.metrics.entailment_relation`),
re-ranking of any generator's samples by ERAP's reward (the ``erap_relation`` step and
``rank``), label-projected augmentation of
NLI pairs (Table 6), recast SICK (`augkit erap recast-sick`), and `augkit train erap`.

Importing this package loads no model library.
"""

from __future__ import annotations

import augkit
from augkit.plugin import renamed_module_names
from augkit_erap.augmenter import ERAP
from augkit_erap.ranking import ErapRelationFilter

__all__ = ["ERAP", "ErapRelationFilter"]


@augkit.hookimpl
def register_augmenters(register):
    register(ERAP)


@augkit.hookimpl
def register_filters(register):
    register(ErapRelationFilter)  # `erap_relation`: equation 5's reward as a score, for `rank`


@augkit.hookimpl
def register_commands(register):
    from augkit_erap import recast_cli  # light: loads no model library

    register("erap", recast_cli.add_arguments, recast_cli.run, help=recast_cli.HELP)  # `augkit erap recast-sick`


@augkit.hookimpl
def register_training_targets(register):
    from augkit_erap import train_cli  # light: loads no torch, transformers or pandas

    register("erap", train_cli.add_arguments, train_cli.run, help=train_cli.HELP)  # `augkit train erap`

#: Old class names, importable until augkit 0.3 (docs/plugin-authors.md, "One name per idea").
__getattr__ = renamed_module_names(__name__, {"Erap": "ERAP"}, globals())
