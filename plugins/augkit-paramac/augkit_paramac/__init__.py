"""augkit-paramac: ParaMac (Liu et al. 2022, "Unsupervised paraphrase generation ..."):
keywords of a sentence are filtered, substituted and reordered, a T5 model infills the
words between them, and candidates are ranked by meaning, fluency and diversity.
``augkit paramac build-pairs`` makes ParaNet, the paper's paraphrase pairs, from running
text (:mod:`augkit_paramac.paranet_cli`); ``augkit train paraphraser --preset paramod``
trains ParaMod on them.

Importing this package loads no model library.
"""

from __future__ import annotations

import augkit
from augkit_paramac.augmenter import ParaMac

__all__ = ["ParaMac"]


@augkit.hookimpl
def register_augmenters(register):
    register(ParaMac)


@augkit.hookimpl
def register_commands(register):
    from augkit_paramac import paranet_cli

    register("paramac", paranet_cli.add_arguments, paranet_cli.run, help=paranet_cli.HELP)  # `augkit paramac build-pairs`
