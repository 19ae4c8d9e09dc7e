"""augkit-contextual: contextual word substitution and insertion with a masked language
model (Kobayashi 2018; Wu et al. 2019, C-BERT), and ``augkit train contextual``.

Importing this package loads no model library.
"""

from __future__ import annotations
