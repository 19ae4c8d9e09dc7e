"""The parabank builder's per-sentence recipe as an ordinary augkit pipeline (issue 14):

    pivot_beams | wrong_script | dedup(ignore_case=True, against_candidates=False)
                | dedup(ignore_case=True, against_source=False) | edit_ratio(min=0.12)
                | dual_score | top_k(weights={'dual_score': 1.0})

run with ``n=1`` (best per sentence; ``beyond n`` in the trace is "not the best") and a
trace, from which :func:`~augkit_backtranslation.parabank.build_parabank` reads its counts:
the drops of ``wrong_script``, of the first ``dedup`` (copies of the sentence), of the second
(repeats) and of ``edit_ratio``, found by :func:`counted_steps`.
``wrong_script`` is there only with a script to screen for; ``dual_score`` and ``top_k`` only
when both models can score (else the first survivor in beam order is kept).

The pipeline's sources are the sentences (language L): the duplicate and edit-ratio rules
compare candidates with them. The pivot (language P) each sentence is generated and scored
from is looked up in :attr:`PivotBeamCandidates.pivots`, which the builder fills for the
sentences of each run (a sentence given twice with different translations goes in separate
runs).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from augkit.plugin import (
    DEFAULT_TOKEN_BUDGET,
    Augmenter,
    Candidate,
    EditRatioFilter,
    ExactDuplicateFilter,
    Filter,
    check_sources,
)
from augkit_backtranslation.dual_score import per_token
from augkit_backtranslation.scripts import script_share


def counted_steps(pipeline: Any) -> dict[str, str]:
    """The trace name (:attr:`augkit.Pipeline.named_steps`) of each step of the recipe whose
    drops :data:`~augkit_backtranslation.parabank.COUNT_KEYS` counts, by count key:
    ``wrong_script``, ``copies`` (the duplicate rule against the sentence only),
    ``duplicates`` (against earlier candidates only) and ``edit_ratio``; a step the
    pipeline lacks (``wrong_script`` without a script) is left out."""
    keys = {}
    for name, step in pipeline.named_steps.items():
        if isinstance(step, WrongScriptFilter):
            keys["wrong_script"] = name
        elif isinstance(step, ExactDuplicateFilter) and not step.against_candidates:
            keys["copies"] = name
        elif isinstance(step, ExactDuplicateFilter) and not step.against_source:
            keys["duplicates"] = name
        elif isinstance(step, EditRatioFilter):
            keys["edit_ratio"] = name
    return keys


class PivotBeamCandidates(Augmenter):
    """Generates, for each sentence, ``k`` candidates from its pivot translation with the
    P->L model's beam ``k`` (the paper's "collect all beam search candidates"), in beam order.
    Empty candidates are returned too (the pipeline drops them); :attr:`generated` counts
    every candidate of the last call, blanks included.

    Parameters
    ----------
    model : object
        The P->L model: :meth:`augkit.models.Seq2SeqModel.generate`'s shape.
    k : int
        Beam size and candidates per sentence.
    token_budget : int
        Tokens per generation batch.
    show_progress : bool
        Show a progress bar while generating.
    """

    name = "pivot_beams"

    def __init__(self, model: Any = None, k: int = 15, token_budget: int = DEFAULT_TOKEN_BUDGET, show_progress: bool = False):
        self.model = model
        self.k = k
        self.token_budget = token_budget
        self.show_progress = show_progress
        #: Sentence -> its pivot translation, for the sentences of the current run.
        self.pivots: dict[str, str] = {}
        #: Candidates generated per sentence by the last :meth:`augment_batch`, blanks included.
        self.generated: list[int] = []

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        return self.augment_batch([text], n, [rng])[0]

    def augment_batch(self, texts: Sequence[str], n: int, rngs: Sequence[random.Random]) -> list[list[str]]:
        rows = self.model.generate(
            [self.pivots[text] for text in texts], num_beams=self.k, num_return=self.k, token_budget=self.token_budget,
            progress=self.show_progress, description="generating candidates",
        ).texts if texts else []
        self.generated = [len(row) for row in rows]
        return [list(row) for row in rows]


class WrongScriptFilter(Filter):
    """The paper's language filter on candidates: drops one with more than ``max_share`` of
    its letters in ``script`` (:func:`~augkit_backtranslation.scripts.script_share`). Adds
    the score ``wrong_script_share``.

    Parameters
    ----------
    script : str
        The script a candidate must not be mostly in (e.g. ``Latin`` for Chinese sentences).
    max_share : float
        Highest share of letters in ``script`` kept.
    """

    name = "wrong_script"
    scores = ("wrong_script_share",)

    def __init__(self, script: str = "Latin", max_share: float = 0.6):
        self.script = script
        self.max_share = max_share

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        check_sources(self.name, [source], [candidates])
        kept = []
        for candidate in candidates:
            share = script_share(candidate.text, self.script)
            candidate.scores["wrong_script_share"] = share
            if not share > self.max_share:
                kept.append(candidate)
            else:
                candidate.drop_reason = f"{share:.1%} of its letters in {self.script} script, above max_share={self.max_share:g}"
        return kept


class DualScore(Filter):
    """Scores every candidate (keeps them all) by the paper's eq. 1: ``forward_logprob``,
    log P(candidate | pivot) under the P->L model, ``reverse_logprob``, the teacher-forced
    log P(pivot | candidate) under the L->P model (each summed over the target's tokens),
    and ``dual_score``, their sum over the summed token counts. The whole batch is scored in
    one call per model.

    Parameters
    ----------
    to_language_model, from_language_model : object
        The P->L and L->P models (:meth:`augkit.models.Seq2SeqModel.score`'s shape).
    pivots : mapping
        Sentence -> its pivot translation (shared with :class:`PivotBeamCandidates`).
    token_budget : int
        Tokens per scoring batch.
    show_progress : bool
        Show progress bars while scoring.
    """

    name = "dual_score"
    scores = ("dual_score", "forward_logprob", "reverse_logprob")

    def __init__(self, to_language_model: Any = None, from_language_model: Any = None, pivots: Mapping[str, str] | None = None,
                 token_budget: int = DEFAULT_TOKEN_BUDGET, show_progress: bool = False):
        self.to_language_model = to_language_model
        self.from_language_model = from_language_model
        self.pivots = pivots if pivots is not None else {}
        self.token_budget = token_budget
        self.show_progress = show_progress

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return self.filter_batch([source], [candidates], None)[0]

    def filter_batch(self, sources, candidates, context):
        check_sources(self.name, sources, candidates)
        flat = [(self.pivots[source], candidate) for source, row in zip(sources, candidates) for candidate in row]
        if flat:
            texts = [candidate.text for _, candidate in flat]
            sides = [pivot for pivot, _ in flat]
            options = {"token_budget": self.token_budget, "progress": self.show_progress}
            forward = self.to_language_model.score(sides, texts, description="forward-scoring candidates", **options)
            reverse = self.from_language_model.score(texts, sides, description="reverse-scoring candidates", **options)
            for (_, candidate), ahead, back in zip(flat, forward, reverse, strict=True):
                candidate.scores["dual_score"] = per_token([ahead, back])
                candidate.scores["forward_logprob"] = ahead.logprob
                candidate.scores["reverse_logprob"] = back.logprob
        return [list(row) for row in candidates]
