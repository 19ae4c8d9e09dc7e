"""augkit-pointer: insertion-based paraphrasing around keywords (Chevasson et al. 2023,
"Diverse Paraphrasing with Insertion Models for Few-Shot Intent Detection", on POINTER by
Zhang et al. 2020). A sentence's YAKE keywords are augmented (WordNet synonyms, swaps) and a
BERT insertion model grows a new sentence around them, keeping every keyword in order.

Importing this package loads no model library.
"""

from __future__ import annotations

import augkit
from augkit.plugin import renamed_module_names
from augkit_pointer.augmenter import POINTER

__all__ = ["POINTER"]


@augkit.hookimpl
def register_augmenters(register):
    register(POINTER)


@augkit.hookimpl
def register_training_targets(register):
    from augkit_pointer import train_cli  # light: loads no torch, transformers or yake

    register("pointer", train_cli.add_arguments, train_cli.run, help=train_cli.HELP)  # `augkit train pointer`

#: Old class names, importable until augkit 0.3 (docs/plugin-authors.md, "One name per idea").
__getattr__ = renamed_module_names(__name__, {"Pointer": "POINTER"}, globals())
