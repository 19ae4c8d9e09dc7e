"""Warnings of a method that a step runs inside itself, said in the terms the user set.

A step that samples another method (ERAP's ``sample_from``, the FAQ method's generator) asks it
for its own count of candidates: ``k=20`` samples, ``num_return=40`` candidates. The inner
method's warnings then speak of an ``n=20`` the user never gave (``augkit augment -n 1``).
:func:`n_named_as` re-issues them with that ``n`` named as the parameter that set it.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator


@contextlib.contextmanager
def n_named_as(n: int, setting: str) -> Iterator[None]:
    """Run the block with its warnings held back; then warn each one again (once per distinct
    message), with ``n={n}`` replaced by ``setting`` (``"k=20 samples per text (erap's k)"``).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     with n_named_as(20, "k=20 (erap's k)"):
    ...         warnings.warn("one per text; asked for n=20", RuntimeWarning)
    >>> str(seen[0].message)
    "one per text; asked for k=20 (erap's k)"
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    said = re.compile(rf"\bn={n}\b")
    for message, category in dict.fromkeys((str(w.message), w.category) for w in caught):
        warnings.warn(said.sub(lambda _: setting, message), category, stacklevel=3)
