"""ROUGE-1, ROUGE-2 and ROUGE-L F1 with Google's rouge-score package, averaged over pairs."""

from __future__ import annotations

from collections.abc import Sequence

from augkit.metrics._inputs import References, non_empty_text_list, reference_lists
from augkit.metrics._optional import METRICS_EXTRA, import_optional

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


def rouge(hypotheses: Sequence[str], references: References, *, use_stemmer: bool = True) -> dict[str, float]:
    """Mean ROUGE F1 of each hypothesis against its reference(s): ``{"rouge1", "rouge2",
    "rougeL"}``, each on a 0-1 scale.

    For one pair, ROUGE-N recall = matching n-grams / n-grams in the reference, precision =
    matching n-grams / n-grams in the hypothesis, F1 their harmonic mean; ROUGE-L uses the
    longest common subsequence of tokens instead of n-gram matches. Lin, 2004, "ROUGE: A
    Package for Automatic Evaluation of Summaries"; computed by ``rouge-score``
    (``RougeScorer``), then the F1 values are averaged over the pairs (a mean of sentence
    scores, not a pooled corpus score). With several references for a hypothesis the best
    one counts (``score_multi``, the highest F1).

    Stemming: ``use_stemmer=True`` by default (Porter stemmer, so "cards" matches "card"),
    as ParaMac's released evaluation code does. rouge-score's tokenizer lowercases and keeps
    only ASCII letters and digits: text in other scripts (Chinese, Cyrillic...) has no tokens
    and scores 0. Unlike :func:`bleu`, the scale is 0-1.
    """
    hyps = non_empty_text_list(hypotheses, "hypotheses")
    refs = reference_lists(references, len(hyps))
    scorer = import_optional("rouge_score.rouge_scorer", "ROUGE", METRICS_EXTRA).RougeScorer(
        list(ROUGE_TYPES), use_stemmer=use_stemmer
    )
    totals = dict.fromkeys(ROUGE_TYPES, 0.0)
    for hypothesis, targets in zip(hyps, refs):
        scores = scorer.score(targets[0], hypothesis) if len(targets) == 1 else scorer.score_multi(targets, hypothesis)
        for name in ROUGE_TYPES:
            totals[name] += scores[name].fmeasure
    return {name: total / len(hyps) for name, total in totals.items()}
