"""augkit-aeda: the AEDA baseline (Karimi et al. 2021) as an augkit plugin."""

from __future__ import annotations

import augkit
from augkit_aeda.aeda import AEDA

__all__ = ["AEDA"]


@augkit.hookimpl
def register_augmenters(register):
    register(AEDA)
