"""The ``faq`` method: FAQ-style paraphrase generation (abbreviation handling around a
paraphraser) as a plain augkit augmenter, so it composes with any filter in a pipeline:

    augkit.augment(df, "faq|semantic(max=1.0)|label_integrity(own_source=true)", n=4, seed=0,
                   text_column="question")

:func:`augkit_faq.paraphrase_faq` runs the thesis' whole procedure on a question/answer table
and reports every candidate with its scores and fate.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Sequence

from augkit.plugin import (
    Augmenter,
    BatchContext,
    GeneratedRow,
    InvalidParameterError,
    ModelNeed,
    RowProtection,
    check_bool,
    draw_seed,
    relocated,
    renamed_module_names,
    repetition_loop,
    spans_kept_first,
)
from augkit_faq.abbreviations import shorten
from augkit_faq.generators import (
    BART_UNI_PROBABILITY,
    DEFAULT_GENERATOR,
    DEFAULT_MAX_LENGTH,
    DEFAULT_TOP_K,
    DEFAULT_TOP_P,
    QuestionGenerator,
    resolve_generator,
)
from augkit_faq.postprocess import ProcessedCandidate, process_candidates

#: Why a question got no paraphrase, in the words of the run's summary.
NOTHING_GENERATED = "faq: the generator gave no candidate (only empty texts)"
REPETITION_REASON = ("faq: every candidate fell into a repetition loop (a phrase said over and over); "
                     "refuse_loops=false keeps such candidates")


class FAQParaphraser(Augmenter):
    """Paraphrases questions while keeping their domain terms (Ng 2021).

    Each "Expansion (ABBR)" of a question is shortened to "ABBR", the paraphraser samples
    candidates for the shortened question, the long forms are restored in every candidate, and
    candidates that repeat the question or each other are dropped, as are candidates caught
    in a repetition loop (``refuse_loops``). A question left without a candidate says why.

    Protected spans (``protect=``, ``protect_column=``, the codes protected by default): a
    method generator (``"backtranslation"``) is given them, so back-translation carries them
    through as placeholders; a model generator cannot be told, so its candidates that kept
    every span are offered first, and the pipeline's ``protected`` step drops the others.

    Parameters
    ----------
    generator : str
        A seq2seq paraphrase model (hub id, ``id@revision`` or directory, prompted
        ``"paraphrase: <question> </s>"``), or an augkit method or pipeline string such as
        ``"backtranslation"`` (offline). Default: the thesis' T5 recipe,
        ramsrigouthamg/t5_paraphraser (safetensors revision). See :func:`resolve_generator`.
    top_k : int
        A model generator samples among the top_k likeliest tokens (thesis: 120).
    top_p : float
        ... and within them the smallest set holding top_p of the probability (thesis: 0.98).
    max_new_tokens : int
        Most tokens a model generator writes per candidate (thesis: 256); ``max_length``
        until augkit 0.3.
    device : str
        Where a model generator runs.
    num_return : int, optional
        Candidates asked of the generator per question (None: the ``n`` the pipeline asks
        for). :func:`~augkit_faq.paraphrase_faq` asks for the thesis' 40.
    keep_duplicates : bool
        Return the candidates that repeat the question or an earlier candidate too (every
        restored candidate, in generation order), for a ``dedup(ignore_case=true,
        ignore_final_punctuation=true)`` step to drop and the trace to record: what
        :func:`~augkit_faq.paraphrase_faq` does. False drops them here.
    forbid_source_unigrams : bool
        Bart-uni, ProtAugment's diverse decoding (Dopierre et al. 2021): a model generator
        is forbidden each token of the question with probability forbid_probability (drawn
        from the question's seed), so its candidates diverge from the question's wording.
        Off by default (the thesis samples without it); an error with a method generator.
    forbid_probability : float
        That probability, when forbid_source_unigrams is on (default 0.7: ProtAugment's
        p_mask).
    runtime, compute_type : str
        How a model generator runs: ``transformers`` (torch, default) or ``ctranslate2``
        (converted once; ``compute_type`` ``auto``, ``int8``, ``float32``, ...). Seeded
        sampling on both; other samples for the same seed.
    refuse_loops : bool
        Refuse a candidate caught in a repetition loop its question is not in ("how do i
        pay pay pay"; :func:`augkit.plugin.repetition_loop`). Default true;
        :func:`~augkit_faq.paraphrase_faq` turns it off and runs the ``repetition`` step instead,
        so that its candidates table records them.
    """

    name = "faq"
    #: augkit's one name per idea (docs/plugin-authors.md): the old name works until 0.3
    renamed_parameters = {"max_length": "max_new_tokens"}
    uses_model = True  # a paraphrase model (T5), or back-translation's models as the offline generator

    def __init__(
        self,
        generator: str | QuestionGenerator = DEFAULT_GENERATOR,
        top_k: int = DEFAULT_TOP_K,
        top_p: float = DEFAULT_TOP_P,
        max_new_tokens: int = DEFAULT_MAX_LENGTH,
        device: str = "auto",
        num_return: int | None = None,
        keep_duplicates: bool = False,
        forbid_source_unigrams: bool = False,
        forbid_probability: float = BART_UNI_PROBABILITY,
        runtime: str = "transformers",
        compute_type: str = "auto",
        refuse_loops: bool = True,
    ):
        if num_return is not None and (isinstance(num_return, bool) or not isinstance(num_return, int) or num_return < 1):
            raise InvalidParameterError(f"faq: num_return must be an integer >= 1 or None, got {num_return!r}")
        self.generator = generator
        self.top_k = top_k
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens
        self.forbid_source_unigrams = forbid_source_unigrams
        self.forbid_probability = forbid_probability
        self.device = device
        self.num_return = num_return
        self.keep_duplicates = bool(keep_duplicates)
        self.runtime = runtime
        self.compute_type = compute_type
        self.refuse_loops = check_bool("refuse_loops", refuse_loops)
        self._generator = resolve_generator(
            generator, top_k=top_k, top_p=top_p, max_new_tokens=max_new_tokens, device=device,
            forbid_source_unigrams=forbid_source_unigrams, forbid_probability=forbid_probability,
            runtime=runtime, compute_type=compute_type,
        )

    def required_models(self) -> list[ModelNeed]:
        """The generator's models (a generator object without ``required_models`` declares none)."""
        declared = getattr(self._generator, "required_models", None)
        return list(declared()) if declared is not None else []

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        return self.augment_batch([text], n, [rng])[0]

    def augment_batch(self, texts: Sequence[str], n: int, rngs: Sequence[random.Random],
                      context: BatchContext | None = None) -> list[list[str]]:
        """Candidates of every question from one generator call; each row's protected spans
        (``context.protected``) go to a generator that takes them, and order the candidates
        that kept them first. A question left with none says why."""
        shortened = [shorten(text) for text in texts]
        seeds = [draw_seed(rng) for rng in rngs]
        asked = n if self.num_return is None else self.num_return
        protected = context.protected if context is not None else None
        options = {}
        if protected is not None and _takes_protection(self._generator):
            # the spans as they stand in the shortened question (a span inside an expansion comes back with it)
            options["protected"] = [relocated(spans, short.text) for spans, short in zip(protected, shortened, strict=True)]
        generated = self._generator.generate([s.text for s in shortened], asked, seeds, **options)
        rows = []
        for index, (text, short, row) in enumerate(zip(texts, shortened, generated, strict=True)):
            spans = protected[index] if protected is not None else ()
            rows.append(self._chosen(text, process_candidates(text, short.terms, row), n, spans, getattr(row, "reason", None)))
        return rows

    def _chosen(self, text: str, candidates: list[ProcessedCandidate], n: int, spans: RowProtection,
                generator_reason: str | None) -> list[str]:
        """A question's candidates without loops (``refuse_loops``), those that kept every
        protected span first, repeats dropped (unless ``keep_duplicates``); or an empty row
        that says why."""
        if not candidates:
            reason = f"faq: the generator gave nothing ({generator_reason})" if generator_reason else NOTHING_GENERATED
            return GeneratedRow([], reason=reason)
        kept = spans_kept_first([c for c in candidates if not (self.refuse_loops and repetition_loop(text, c.text))],
                                spans, text=lambda c: c.text)
        if self.keep_duplicates:
            return [c.text for c in kept] or GeneratedRow([], reason=REPETITION_REASON)
        unique = [c.text for c in kept if not c.duplicate][:n]
        if unique:
            return unique
        if any(not c.duplicate for c in candidates):
            return GeneratedRow([], reason=REPETITION_REASON)
        return GeneratedRow([], reason=self._all_repeats())

    def _all_repeats(self) -> str:
        asked = "the n asked" if self.num_return is None else str(self.num_return)
        return (f"faq: every candidate repeats the question or an earlier one (case, spacing and final punctuation "
                f"aside); a larger num_return= (now {asked}) asks the generator for more, where it can give more")


def _takes_protection(generator: object) -> bool:
    """Whether a generator's ``generate`` takes the rows' protected spans (``protected=``):
    augkit's method generator does; a model, or a generator of one's own, may not."""
    try:
        return "protected" in inspect.signature(generator.generate).parameters
    except (TypeError, ValueError):
        return False

#: Old class names, importable until augkit 0.3 (docs/plugin-authors.md, "One name per idea").
__getattr__ = renamed_module_names(__name__, {"FaqParaphraser": "FAQParaphraser"}, globals())
