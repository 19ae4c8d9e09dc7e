"""Metrics for augmented and paraphrased text: overlap with references and sources (BLEU,
iBLEU, ROUGE), diversity (self-BLEU, dist-n, edit-distance ratio, ParaMac's s_div),
fluency (perplexity), meaning (embedding similarity, BERTScore) and the entailment
relation of a rewrite to its source (ERAP's NLI oracle).

Each function's docstring gives its formula, its source paper and its scale;
docs/metrics.md collects them. Importing this package is light: sacrebleu, rouge-score,
numpy, torch and transformers load when a metric that needs them is first called.

>>> from augkit.metrics import edit_distance_ratio, distinct_n
>>> edit_distance_ratio("sitting", "kitten")
0.5
>>> distinct_n(["a b c", "a b d"])
0.75
"""

from augkit.metrics._bertscore import DEFAULT_BERTSCORE_MODEL, BertScore, bertscore
from augkit.metrics._bleu import IBLEU_ALPHA, bleu, ibleu, self_bleu, sentence_bleu
from augkit.metrics._distinct import distinct_n
from augkit.metrics._edit_distance import edit_distance_ratio
from augkit.metrics._entailment import (
    DEFAULT_NLI_MODEL,
    PARAPHRASE_RELATIONS,
    RELATIONS,
    EntailmentOracle,
    RelationJudgement,
    entailment_relation,
    relation_of,
    relation_probabilities,
)
from augkit.metrics._paramac import PARAMAC_BETAS, paramac_diversity
from augkit.metrics._perplexity import (
    DEFAULT_PERPLEXITY_MODEL,
    geometric_mean,
    geometric_std,
    load_causal_lm,
    perplexity,
)
from augkit.metrics._rouge import rouge
from augkit.metrics._semantic import semantic_similarity

__all__ = [
    "DEFAULT_NLI_MODEL",
    "PARAPHRASE_RELATIONS",
    "RELATIONS",
    "EntailmentOracle",
    "RelationJudgement",
    "entailment_relation",
    "relation_of",
    "relation_probabilities",
    "DEFAULT_BERTSCORE_MODEL",
    "DEFAULT_PERPLEXITY_MODEL",
    "IBLEU_ALPHA",
    "PARAMAC_BETAS",
    "BertScore",
    "bertscore",
    "bleu",
    "distinct_n",
    "edit_distance_ratio",
    "geometric_mean",
    "geometric_std",
    "ibleu",
    "load_causal_lm",
    "paramac_diversity",
    "perplexity",
    "rouge",
    "self_bleu",
    "semantic_similarity",
    "sentence_bleu",
]
