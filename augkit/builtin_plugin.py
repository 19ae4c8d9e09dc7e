"""augkit's own filters, registered through the ``augkit`` entry point like any plugin's."""

from __future__ import annotations

from augkit.filters.dedup import ExactDuplicateFilter
from augkit.hookspecs import hookimpl


@hookimpl
def register_filters(register):
    register(ExactDuplicateFilter)
