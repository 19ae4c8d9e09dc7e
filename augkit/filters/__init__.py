"""Pipeline steps that score candidates against their source and keep or drop them."""

from augkit.filters.base import BatchContext, Filter
from augkit.filters.dedup import ExactDuplicateFilter

__all__ = ["BatchContext", "ExactDuplicateFilter", "Filter"]
