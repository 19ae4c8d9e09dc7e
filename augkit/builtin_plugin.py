"""augkit's own filters, registered through the ``augkit`` entry point like any plugin's."""

from __future__ import annotations

from augkit.filters import (
    EditRatioFilter,
    EntitiesFilter,
    ExactDuplicateFilter,
    FluencyScorer,
    LabelIntegrityFilter,
    LengthFilter,
    NegationFilter,
    NumbersFilter,
    SemanticFilter,
    TopKFilter,
)
from augkit.hookspecs import hookimpl


@hookimpl
def register_filters(register):
    for filter_class in (
        ExactDuplicateFilter, SemanticFilter, LabelIntegrityFilter, EditRatioFilter, LengthFilter, TopKFilter,
        NegationFilter, NumbersFilter, EntitiesFilter, FluencyScorer,
    ):
        register(filter_class)
