"""augkit-eda: the EDA baseline (Wei and Zou 2019) as an augkit plugin."""

from __future__ import annotations

import augkit
from augkit_eda.eda import EDA

__all__ = ["EDA"]


@augkit.hookimpl
def register_augmenters(register):
    register(EDA)
