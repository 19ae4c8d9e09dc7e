"""augkit-contextual: contextual word substitution and insertion with a masked language
model (Kobayashi 2018; Wu et al. 2019, C-BERT), and ``augkit train contextual``.

Importing this package loads no model library.
"""

from __future__ import annotations

import augkit
from augkit_contextual.augmenter import Contextual

__all__ = ["Contextual"]


@augkit.hookimpl
def register_augmenters(register):
    register(Contextual)


@augkit.hookimpl
def register_training_targets(register):
    from augkit_contextual import train_cli  # light: no torch, transformers or pandas

    register("contextual", train_cli.add_arguments, train_cli.run, help=train_cli.HELP)  # `augkit train contextual`
