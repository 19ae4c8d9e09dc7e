"""augkit-nlpaug: nlpaug's character, word and sentence augmenters as augkit methods.

Each nlpaug augmenter of :data:`augkit_nlpaug.specs.SPECS` is registered as ``nlpaug.<name>``
(``nlpaug.synonym``, ``nlpaug.keyboard``, ...), with augkit's per-row seeds, parameter
checking, filters, trace, command line, streaming and Ray. Importing this module does not
import nlpaug: a method imports it when it is constructed.
"""

from __future__ import annotations

import augkit
from augkit_nlpaug.bridge import BRIDGED, NlpaugAugmenter
from augkit_nlpaug.specs import SPECS, BridgeSpec

__all__ = ["BRIDGED", "SPECS", "BridgeSpec", "NlpaugAugmenter"]


@augkit.hookimpl
def register_augmenters(register):
    for cls in BRIDGED.values():
        register(cls)
