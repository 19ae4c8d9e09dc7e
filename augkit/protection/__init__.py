"""Protected spans (``protect=``, ``protect_column=``): what no method may change in a row."""

from augkit.protection.spans import ProtectedSpan, RowProtection

__all__ = ["ProtectedSpan", "RowProtection"]
