"""Protected spans (``protect=``, ``protect_column=``): what no method may change in a row."""

from augkit.steps.protected_spans import (
    CODE,
    PHRASE,
    SLOT,
    ProtectedSpan,
    RowProtection,
)

__all__ = ["CODE", "PHRASE", "SLOT", "ProtectedSpan", "RowProtection"]
