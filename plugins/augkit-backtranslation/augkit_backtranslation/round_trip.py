"""Round-trip translation with any pair of seq2seq translation models (the ``transformers``
engine): k forward beams, k backward beams for each, up to k² candidates per pivot
(Mallinson et al., as summarised in the FAQ-paraphrasing thesis, section 2.2.1.2), scored
by dual scoring (MT-parabank)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from augkit.plugin import (
    DEFAULT_TOKEN_BUDGET,
    MODEL_SEED_BITS,
    Runtime,
    TargetScore,
    derive,
    load_seq2seq,
)
from augkit.plugin import SEQ2SEQ_RUNTIMES as RUNTIMES  # noqa: F401 - augmenter.py reads it from here
from augkit_backtranslation.candidates import RoundTripCandidate
from augkit_backtranslation.dual_score import SCORINGS, per_token, round_trip_terms

#: Opus-MT models of the Helsinki-NLP group; ``{pivot}`` is replaced by the language code.
DEFAULT_FORWARD_MODEL = "Helsinki-NLP/opus-mt-en-{pivot}"
DEFAULT_BACKWARD_MODEL = "Helsinki-NLP/opus-mt-{pivot}-en"


@dataclass(frozen=True)
class GenerationSettings:
    """How each translation step decodes: ``k`` sequences returned from ``num_beams`` beams,
    or ``k`` samples with nucleus ``top_p`` when ``sample``."""

    k: int = 4
    num_beams: int = 4
    sample: bool = False
    top_p: float = 0.9
    max_new_tokens: int | None = None
    min_new_tokens: int | None = None
    max_input_tokens: int | None = None
    token_budget: int = DEFAULT_TOKEN_BUDGET


class TransformersEngine:
    """English -> pivot -> English through two seq2seq translation models per pivot.

    ``forward_model`` and ``backward_model`` are model ids or directories, with
    ``{pivot}`` replaced by each pivot code. Models load once per process (shared through
    :func:`augkit.models.load_seq2seq`).
    """

    def __init__(
        self,
        pivots: Sequence[str],
        forward_model: str = DEFAULT_FORWARD_MODEL,
        backward_model: str = DEFAULT_BACKWARD_MODEL,
        settings: GenerationSettings = GenerationSettings(),
        scoring: str = "dual",
        device: str = "auto",
        dtype: str = "auto",
        progress: bool = False,
        runtime: Runtime = Runtime(),
    ):
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, got {scoring!r}")
        self.pivots = list(pivots)
        self.forward_model = forward_model
        self.backward_model = backward_model
        self.settings = settings
        self.scoring = scoring
        self.device = device
        self.dtype = dtype
        self.progress = progress
        self.runtime = runtime

    def models(self, pivot: str):
        """The (source->pivot, pivot->source) models of ``pivot``, loaded on first use."""
        forward = load_seq2seq(self.forward_model.format(pivot=pivot), device=self.device, dtype=self.dtype, **self.runtime.options())
        backward = load_seq2seq(self.backward_model.format(pivot=pivot), device=self.device, dtype=self.dtype, **self.runtime.options())
        return forward, backward

    def round_trip(self, texts: Sequence[str], seeds: Sequence[int] | None = None) -> list[list[RoundTripCandidate]]:
        """Distinct candidates for each text from every pivot, best first when scored (ties
        and ``scoring="none"`` keep pivot, then beam order; a text reached along several
        paths keeps its best). ``seeds`` (one per text) drive sampling; beam search
        ignores them."""
        results: list[list[RoundTripCandidate]] = [[] for _ in texts]
        for pivot in self.pivots:
            for index, candidates in enumerate(self._round_trip_pivot(pivot, list(texts), seeds)):
                results[index].extend(candidates)
        if self.scoring != "none":
            for candidates in results:
                candidates.sort(key=lambda c: -c.score)  # stable: pivot and beam order break ties
        return [_first_of_each_text(candidates) for candidates in results]

    def _round_trip_pivot(self, pivot: str, texts: list[str], seeds) -> list[list[RoundTripCandidate]]:
        forward, backward = self.models(pivot)
        settings = self.settings
        pivot_seeds = [_derived_seed(seed, pivot) for seed in seeds] if settings.sample and seeds is not None else None
        translated = self._generate(forward, texts, pivot_seeds, f"translating to {pivot}").texts
        # each distinct pivot translation of a text is translated back once
        legs = [(i, p) for i, pivots in enumerate(translated) for p in dict.fromkeys(pivots)]
        back_seeds = [_derived_seed(pivot_seeds[i], p) for i, p in legs] if pivot_seeds else None
        returned = self._generate(backward, [p for _, p in legs], back_seeds, f"translating back from {pivot}").texts
        triples = [(i, p, c) for (i, p), candidates in zip(legs, returned, strict=True) for c in dict.fromkeys(candidates)]
        scores = self._scores(forward, backward, texts, legs, triples)
        results: list[list[RoundTripCandidate]] = [[] for _ in texts]
        for position, (i, p, c) in enumerate(triples):
            results[i].append(RoundTripCandidate(c, pivot, p, None if scores is None else scores[position]))
        return results

    def _generate(self, model, texts: list[str], seeds, description: str):
        s = self.settings
        return model.generate(
            texts, num_beams=max(s.num_beams, s.k), num_return=s.k, do_sample=s.sample, top_p=s.top_p,
            seeds=seeds, max_new_tokens=s.max_new_tokens, min_new_tokens=s.min_new_tokens,
            max_input_tokens=s.max_input_tokens, token_budget=s.token_budget, progress=self.progress,
            description=description,
        )

    def _scores(self, forward, backward, texts, legs, triples) -> list[float] | None:
        """Per-token score of each (text, pivot text, candidate) triple, or None."""
        if self.scoring == "none" or not triples:
            return None
        budget = self.settings.token_budget
        leg_index = {leg: n for n, leg in enumerate(legs)}
        sources = [texts[i] for i, _ in legs]
        pivots = [p for _, p in legs]
        p_given_s = forward.score(sources, pivots, token_budget=budget, description="scoring pivots")
        s_given_p = _maybe(self.scoring == "dual", lambda: backward.score(pivots, sources, token_budget=budget, description="reverse-scoring pivots"))
        leg_pivots = [p for _, p, _ in triples]
        candidates = [c for _, _, c in triples]
        c_given_p = backward.score(leg_pivots, candidates, token_budget=budget, description="scoring candidates")
        p_given_c = _maybe(self.scoring == "dual", lambda: forward.score(candidates, leg_pivots, token_budget=budget, description="reverse-scoring candidates"))
        scores = []
        for position, (i, p, _) in enumerate(triples):
            leg = leg_index[(i, p)]
            terms = round_trip_terms(
                self.scoring, p_given_s[leg], s_given_p[leg] if s_given_p else None,
                c_given_p[position], p_given_c[position] if p_given_c else None,
            )
            scores.append(per_token(terms))
        return scores


def _first_of_each_text(candidates: list[RoundTripCandidate]) -> list[RoundTripCandidate]:
    """One candidate per distinct text: the best scored, or the first generated."""
    seen: set[str] = set()
    return [c for c in candidates if not (c.text in seen or seen.add(c.text))]


def _maybe(condition: bool, compute) -> list[TargetScore] | None:
    return compute() if condition else None


def _derived_seed(seed: int, salt: str) -> int:
    """A seed for one sampling step, from the item's own seed and what is sampled from
    (the pivot code, or the pivot text being translated back), so samples depend neither
    on the batch nor on the other pivots. Joined with "|", as since the first release:
    the common separator would change every sampled round trip for the same seed."""
    return derive(seed, salt, bits=MODEL_SEED_BITS, separator="|")
