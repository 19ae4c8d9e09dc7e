"""Sentence BLEU of each candidate against its source, as a pipeline step."""

from __future__ import annotations

from augkit.filters.scorer import Scorer


class BleuToSourceScorer(Scorer):
    """Adds the sentence BLEU of each candidate against its source (0-100); drops nothing.

    High means the candidate repeats its source's n-grams (100: a copy); it is the term that
    iBLEU subtracts to penalise copying. Computed by :func:`augkit.metrics.sentence_bleu`:
    sacrebleu's sentence BLEU, effective n-gram order, ``exp`` smoothing, 13a tokenizer, case
    sensitive; needs sacrebleu (``pip install "augkit[metrics]"``). Rank with a negative
    weight to prefer candidates that copy less: ``rank(semantic=4, bleu_to_source=-0.5)``.
    Adds the score ``bleu_to_source``.
    """

    name = "bleu_to_source"
    scores = ("bleu_to_source",)

    def score_batch(self, sources, candidates, context):
        from augkit.metrics import sentence_bleu

        hypotheses = [candidate.text for row in candidates for candidate in row]
        references = [source for source, row in zip(sources, candidates) for _ in row]
        flat = iter(sentence_bleu(hypotheses, references) if hypotheses else [])
        return [[next(flat) for _ in row] for row in candidates]
