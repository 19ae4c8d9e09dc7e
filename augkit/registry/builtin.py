"""augkit's own filters, scorers and rankers, registered through the ``augkit`` entry point like any plugin's."""

from __future__ import annotations

from augkit.filters import (
    BertScoreScorer,
    BleuToSourceScorer,
    ConsistencyFilter,
    DiversityScorer,
    EditRatioFilter,
    EntailmentFilter,
    EntitiesFilter,
    ExactDuplicateFilter,
    FluencyScorer,
    LabelIntegrityFilter,
    LengthFilter,
    NearDuplicatesFilter,
    NegationFilter,
    NumbersFilter,
    PviFilter,
    QuestionFilter,
    RankFilter,
    RepetitionFilter,
    SemanticFilter,
    TopKFilter,
)
from augkit.protection.step import ProtectedSpansFilter
from augkit.registry.hookspecs import hookimpl


@hookimpl
def register_filters(register):
    for filter_class in (
        ExactDuplicateFilter, SemanticFilter, LabelIntegrityFilter, EditRatioFilter, LengthFilter, TopKFilter,
        NegationFilter, NumbersFilter, EntitiesFilter, EntailmentFilter, DiversityScorer, BleuToSourceScorer, FluencyScorer, BertScoreScorer,
        RankFilter, ProtectedSpansFilter, RepetitionFilter, QuestionFilter, PviFilter, ConsistencyFilter, NearDuplicatesFilter,
    ):
        register(filter_class)
