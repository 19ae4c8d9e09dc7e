"""Pipeline steps that score candidates against their source and keep, drop or rank them.

Importing this package is light: the embedding filters load their encoder on first use.
"""

from augkit.filters.bertscore import BertScoreScorer
from augkit.filters.bleu_to_source import BleuToSourceScorer
from augkit.filters.consistency import ConsistencyFilter
from augkit.filters.dedup import ExactDuplicateFilter
from augkit.filters.diversity import DiversityScorer
from augkit.filters.edit_ratio import EditRatioFilter
from augkit.filters.entailment import EntailmentFilter
from augkit.filters.entities import EntitiesFilter
from augkit.filters.fluency import FluencyScorer
from augkit.filters.label_integrity import LabelIntegrityFilter
from augkit.filters.label_safety import LabelSafetyFilter, Mismatch
from augkit.filters.length import LengthFilter
from augkit.filters.near_duplicates import NearDuplicatesFilter
from augkit.filters.negation import NegationFilter
from augkit.filters.numbers import NumbersFilter
from augkit.filters.pvi import PviFilter
from augkit.filters.question import QuestionFilter
from augkit.filters.rank import RankFilter
from augkit.filters.repetition import RepetitionFilter
from augkit.filters.scorer import Scorer
from augkit.filters.semantic import SemanticFilter
from augkit.filters.top_k import TopKFilter
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.filter import Filter

__all__ = [
    "BatchContext",
    "BertScoreScorer",
    "BleuToSourceScorer",
    "ConsistencyFilter",
    "DatasetContext",
    "DiversityScorer",
    "EditRatioFilter",
    "EntailmentFilter",
    "EntitiesFilter",
    "ExactDuplicateFilter",
    "Filter",
    "FluencyScorer",
    "LabelIntegrityFilter",
    "LabelSafetyFilter",
    "LengthFilter",
    "Mismatch",
    "NearDuplicatesFilter",
    "NegationFilter",
    "NumbersFilter",
    "PviFilter",
    "QuestionFilter",
    "RankFilter",
    "RepetitionFilter",
    "Scorer",
    "SemanticFilter",
    "TopKFilter",
]
