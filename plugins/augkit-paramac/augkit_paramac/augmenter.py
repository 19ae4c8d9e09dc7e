"""The ``paramac`` method: keywords, filtered, substituted and reordered, infilled by T5, then
ranked by meaning, fluency and diversity (Liu et al. 2022, section 3 and appendix A)."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import augkit
from augkit.plugin import (
    BatchContext,
    Candidate,
    GeneratedRow,
    InvalidParameterError,
    ModelNeed,
    check_bool,
    repetition_loop,
)
from augkit_paramac.plan import KEYWORD_SCORINGS, NO_KEYWORDS, Planner, RowPlan
from augkit_paramac.substitution import CHECKS

#: The paper's models (appendix A): generator, substitution MLM, fluency LM, BERTScore model.
DEFAULT_GENERATOR = "t5-large"
DEFAULT_SUBSTITUTION_MODEL = "bert-base-uncased"
DEFAULT_FLUENCY_MODEL = "gpt2"
DEFAULT_SEMANTIC_MODEL = "roberta-large-mnli"
#: Appendix A's comprehensive-score weights: semantic, fluency, diversity.
PAPER_WEIGHTS = (4.0, 8.0, 1.2)
#: Why a row got no infilling, in the words of the run's summary (with those of
#: :mod:`augkit_paramac.plan`: no keywords, too many protected spans).
UNSPELLABLE_REASON = ("paramac: every infilling held a token the generator cannot spell (<unk>); a generator whose "
                      "vocabulary covers the text's words writes them")
REPETITION_REASON = ("paramac: every infilling fell into a repetition loop (a phrase said over and over); "
                     "refuse_loops=false keeps such candidates")


class ParaMac(augkit.Augmenter):
    """ParaMac paraphrasing (Liu et al. 2022): keyword-anchored T5 infilling, ranked.

    The sentence's keywords are kept as anchors, reworded and reordered, and T5 writes the
    words between them; candidates are ranked by ``4.0 * bertscore + 8.0 * fluency + 1.2 *
    diversity``.

    Per sentence: keywords by RAKE plus the remaining nouns and verbs; the
    ``round(drop_rate * |K|)`` least informative dropped (scored with the generator); each
    adjective, adverb and verb of a keyword replaced by the masked LM's
    ``substitute_rank``-th prediction unless WordNet calls it an antonym or the same word;
    up to ``permutations`` random keyword orders; for each, T5 span infilling with the
    sentence's context when the caller maps the ``before``/``after`` columns
    (``context_columns={"before": ..., "after": ...}``). Every candidate holds the keywords
    in its order. Each protected span of the row (``protect=``, ``protect_column=``, the codes
    protected by default) is a keyword, never dropped nor substituted, written exactly as
    it is, and kept in its order relative to the other protected spans. An infilling caught
    in a repetition loop is refused (``refuse_loops``); a row left without one says why.
    Then (its own pipeline steps, shown in the trace and counts): candidates under
    ``min_chars`` characters or equal to the source dropped, BERTScore F1 against the source,
    fluency and diversity scored, and ranked with ``rank(normalize=raw)``; the pipeline keeps
    the ``n`` best. Models load on first use, once per process.

    Parameters
    ----------
    generator : str
        T5 span-infilling model (sentinels ``<extra_id_N>``): hub id, folder or name under
        ``$AUGKIT_MODEL_DIR``. Default ``t5-large`` (the paper's).
    substitution_model : str
        Masked LM proposing substitutes. Default ``bert-base-uncased``.
    semantic_model : str
        Model whose token embeddings BERTScore compares. Default ``roberta-large-mnli``.
    semantic_layer : int, optional
        Its hidden layer; None: BERTScore's default for the model (19 for roberta-large-mnli).
    fluency_model : str
        Causal LM scoring fluency. Default ``gpt2``.
    fluency_scale : str
        ``paramac`` (default): ``sigmoid(4 / perplexity) - 0.5``, the authors' code's scale,
        on which the weights 4.0 / 8.0 / 1.2 were set; ``logprob``: the mean token
        log-probability itself (its spread is some ten times BERTScore's: use
        ``weights="inverse_std"`` with it).
    drop_rate : float
        Share of keywords dropped as least informative, rounded half up. Default 0.15
        (appendix A; the authors' code defaults to 0.3).
    keyword_scoring : str
        ``leave_one_out`` (a keyword's informativeness: how much the generator's score of the
        sentence falls when it is left out of the keywords) or ``alone`` (the score of the
        sentence given that keyword alone: the paper's p(S|k) and the authors' code).
    substitute_rank : int
        Which prediction replaces a word (1 = likeliest); 0 turns substitution off. Default 2.
    substitute_check : str
        ``antonym`` (refuse WordNet antonyms and forms of the word; default) or ``synonym``
        (accept only WordNet lemma names of the word, as the authors' code does).
    substitute_nouns : bool
        Substitute common nouns too (default False: adjectives, adverbs and verbs only).
    permutations : int
        Most keyword orders per sentence. Default 15 (appendix A).
    num_beams : int
        Beam width of T5's infilling. Default 20 (the authors' code).
    num_return : int
        Infillings kept per keyword order. Default 10 (the authors' code).
    max_new_tokens : int
        Longest infilling T5 writes, in tokens, sentinels included.
    context_chars : int
        Characters of context kept on each side (cut at a word). Default 250 (section 4).
    weights : str or sequence of float
        ``(semantic, fluency, diversity)`` weights, default ``(4.0, 8.0, 1.2)``; or
        ``"inverse_std"``: each score weighted by the inverse of its standard deviation over the
        run's first ``calibration_candidates`` candidates, the rule the appendix set its weights by.
    calibration_candidates : int
        How many candidates ``weights="inverse_std"`` measures spreads on. Default 500 (appendix A).
    min_chars : int
        Candidates shorter than this are dropped. Default 15 (the authors' code).
    refuse_loops : bool
        Refuse an infilling caught in a repetition loop its source is not in ("first class
        first class flight"; :func:`augkit.plugin.repetition_loop`). Default true.
    device : str
        ``auto`` (default: CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``, for every model.
    """

    name = "paramac"
    uses_model = True
    protects = True  # protected spans are keywords, written as they are
    optional_context_columns = ("before", "after")

    def __init__(
        self,
        generator: str = DEFAULT_GENERATOR,
        substitution_model: str = DEFAULT_SUBSTITUTION_MODEL,
        semantic_model: str = DEFAULT_SEMANTIC_MODEL,
        semantic_layer: int | None = None,
        fluency_model: str = DEFAULT_FLUENCY_MODEL,
        fluency_scale: str = "paramac",
        drop_rate: float = 0.15,
        keyword_scoring: str = "leave_one_out",
        substitute_rank: int = 2,
        substitute_check: str = "antonym",
        substitute_nouns: bool = False,
        permutations: int = 15,
        num_beams: int = 20,
        num_return: int = 10,
        max_new_tokens: int = 48,
        context_chars: int = 250,
        weights: str | Sequence[float] = PAPER_WEIGHTS,
        min_chars: int = 15,
        calibration_candidates: int = 500,
        refuse_loops: bool = True,
        device: str = "auto",
    ):
        for label, value in (("generator", generator), ("substitution_model", substitution_model),
                             ("semantic_model", semantic_model), ("fluency_model", fluency_model), ("device", device)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidParameterError(f"paramac: {label} must be a model id or folder (non-empty str), got {value!r}")
        if isinstance(drop_rate, bool) or not isinstance(drop_rate, (int, float)) or not 0 <= drop_rate < 1:
            raise InvalidParameterError(f"paramac: drop_rate must be a number in [0, 1), got {drop_rate!r}")
        if keyword_scoring not in KEYWORD_SCORINGS:
            raise InvalidParameterError(f"paramac: keyword_scoring must be one of {', '.join(KEYWORD_SCORINGS)}, got {keyword_scoring!r}")
        if fluency_scale not in ("paramac", "logprob"):
            raise InvalidParameterError(f"paramac: fluency_scale must be 'paramac' or 'logprob', got {fluency_scale!r}")
        if substitute_check not in CHECKS:
            raise InvalidParameterError(f"paramac: substitute_check must be one of {', '.join(CHECKS)}, got {substitute_check!r}")
        for label, value, low in (("substitute_rank", substitute_rank, 0), ("permutations", permutations, 1),
                                  ("num_beams", num_beams, 1), ("num_return", num_return, 1),
                                  ("max_new_tokens", max_new_tokens, 1), ("context_chars", context_chars, 0),
                                  ("min_chars", min_chars, 0), ("calibration_candidates", calibration_candidates, 2)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidParameterError(f"paramac: {label} must be an integer >= {low}, got {value!r}")
        if num_return > num_beams:
            raise InvalidParameterError(f"paramac: num_return ({num_return}) cannot exceed num_beams ({num_beams})")
        if semantic_layer is not None and (isinstance(semantic_layer, bool) or not isinstance(semantic_layer, int) or semantic_layer < 0):
            raise InvalidParameterError(f"paramac: semantic_layer must be an integer >= 0 or None, got {semantic_layer!r}")
        if not isinstance(substitute_nouns, bool):
            raise InvalidParameterError(f"paramac: substitute_nouns must be True or False, got {substitute_nouns!r}")
        self.generator = generator
        from augkit.plugin import warn_if_trained_with_warnings

        warn_if_trained_with_warnings(generator, method=self.name)  # e.g. `augkit train paraphraser --preset paramod`
        self.substitution_model = substitution_model
        self.semantic_model = semantic_model
        self.semantic_layer = semantic_layer
        self.fluency_model = fluency_model
        self.fluency_scale = fluency_scale
        self.drop_rate = float(drop_rate)
        self.keyword_scoring = keyword_scoring
        self.substitute_rank = substitute_rank
        self.substitute_check = substitute_check
        self.substitute_nouns = substitute_nouns
        self.permutations = permutations
        self.num_beams = num_beams
        self.num_return = num_return
        self.max_new_tokens = max_new_tokens
        self.context_chars = context_chars
        self.weights = _checked_weights(weights)
        self.min_chars = min_chars
        self.calibration_candidates = calibration_candidates
        self.refuse_loops = check_bool("refuse_loops", refuse_loops)
        self.device = device

    def required_models(self) -> list[ModelNeed]:
        """The generator (keyword scoring and infilling), the substitution MLM (unless
        ``substitute_rank=0``), and the BERTScore and fluency models of its own steps."""
        return [
            ModelNeed(self.generator, "seq2seq", "generator", "T5 span infilling"),
            *([ModelNeed(self.substitution_model, "masked", "substitution_model", "keyword substitutes")]
              if self.substitute_rank else []),
            ModelNeed(self.semantic_model, "token", "semantic_model", "BERTScore"),
            ModelNeed(self.fluency_model, "causal", "fluency_model", "fluency"),
        ]

    # -- the pipeline steps every paramac candidate goes through ----------------------------

    def follow_up(self) -> list[Any]:
        """Drop candidates under ``min_chars`` characters or equal to the source, score
        BERTScore F1, fluency and diversity, and rank them raw with the paper's weights (or
        by inverse spread)."""
        from augkit.plugin import (
            BertScoreScorer,
            DiversityScorer,
            ExactDuplicateFilter,
            FluencyScorer,
            LengthFilter,
            RankFilter,
        )

        if self.weights == "inverse_std":
            rank = RankFilter(normalize="raw", weighting="inverse_std", calibration_candidates=self.calibration_candidates,
                              bertscore=1.0, fluency=1.0, diversity=1.0)
        else:
            semantic, fluency, diversity = self.weights
            rank = RankFilter(normalize="raw", bertscore=semantic, fluency=fluency, diversity=diversity)
        return [
            LengthFilter(min=0.0, max=math.inf, unit="chars", shortest=self.min_chars),
            ExactDuplicateFilter(against_source=True, ignore_case=True, ignore_final_punctuation=True),
            BertScoreScorer(model=self.semantic_model, layer=self.semantic_layer, device=self.device),
            FluencyScorer(model=self.fluency_model, device=self.device, scale=self.fluency_scale),
            DiversityScorer(),
            rank,
        ]

    def candidates_for(self, n: int) -> int:
        """Every infilling of every keyword order is a candidate for the ranking."""
        return max(n, self.permutations * self.num_return)

    # -- generation ---------------------------------------------------------------------

    def planner(self) -> Planner:
        """The keyword steps (extraction, filtering, substitution, orders) with this
        configuration; models load on first use."""
        return Planner(
            generator=self.generator, substitution_model=self.substitution_model, device=self.device,
            drop_rate=self.drop_rate, keyword_scoring=self.keyword_scoring, substitute_rank=self.substitute_rank,
            substitute_check=self.substitute_check, substitute_nouns=self.substitute_nouns,
            permutations=self.permutations, context_chars=self.context_chars,
        )

    def augment_batch(self, texts: list[str], n: int, rngs: list[random.Random], context: BatchContext) -> list[list[Candidate]]:
        plans = self.planner().plan(texts, rngs, context)
        return self.infill(plans, n)

    def infill(self, plans: list[RowPlan], n: int) -> list[list[Candidate]]:
        """T5's infillings for every keyword order of every row, in one batched call; each
        row's distinct outputs, first order first, best beam first. A row left with none says
        why (:class:`augkit.GeneratedRow`)."""
        from augkit.plugin import load_seq2seq
        from augkit_paramac.infilling import fill

        inputs = [(row, order) for row, plan in enumerate(plans) for order in range(len(plan.orders))]
        if not inputs:
            return [GeneratedRow([], reason=plan.reason or NO_KEYWORDS) for plan in plans]
        model = load_seq2seq(self.generator, device=self.device)
        result = model.generate(
            [plans[row].model_inputs[order] for row, order in inputs], num_beams=self.num_beams,
            num_return=self.num_return, max_new_tokens=self.max_new_tokens, skip_special_tokens=False,
            description="infilling",
        )
        unknown = model.tokenizer.unk_token
        rows: list[dict[str, None]] = [{} for _ in plans]
        refused: list[Counter] = [Counter() for _ in plans]
        for (row, order), outputs in zip(inputs, result.texts, strict=True):
            keywords = plans[row].ordered_keywords(order)
            protected = plans[row].ordered_protected(order)
            for output in outputs:
                if unknown and unknown in output:
                    refused[row][UNSPELLABLE_REASON] += 1  # a span T5 could not spell ("<unk>") is no text to offer
                    continue
                text = fill(keywords, output, protected)
                if self.refuse_loops and repetition_loop(plans[row].text, text):
                    refused[row][REPETITION_REASON] += 1
                    continue
                rows[row].setdefault(text)
        return [[Candidate(text, self.name) for text in list(found)[:n] if text]
                or GeneratedRow([], reason=plan.reason or _most_refused(why) or NO_KEYWORDS)
                for found, plan, why in zip(rows, plans, refused, strict=True)]


def _most_refused(refused: Counter) -> str:
    """The reason most of a row's infillings were refused for ("" when none was)."""
    return refused.most_common(1)[0][0] if refused else ""


def _checked_weights(weights: Any) -> str | tuple[float, float, float]:
    if weights == "inverse_std":
        return "inverse_std"
    if isinstance(weights, str):
        try:
            weights = [float(part) for part in weights.split(",")]
        except ValueError:
            weights = None
    if (isinstance(weights, (list, tuple)) and len(weights) == 3
            and all(not isinstance(w, bool) and isinstance(w, (int, float)) and math.isfinite(w) for w in weights)):
        return tuple(float(w) for w in weights)  # type: ignore[return-value]
    raise InvalidParameterError(
        f"paramac: weights must be three numbers (semantic, fluency, diversity), e.g. (4.0, 8.0, 1.2) or '4,8,1.2', "
        f"or 'inverse_std'; got {weights!r}"
    )

