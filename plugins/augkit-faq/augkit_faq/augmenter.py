"""The ``faq`` method: FAQ-style paraphrase generation (abbreviation handling around a
paraphraser) as a plain augkit augmenter, so it composes with any filter in a pipeline:

    augkit.augment(df, "faq|semantic(max=1.0)|label_integrity(own_source=true)", n=4, seed=0,
                   text_column="question")

:func:`augkit_faq.paraphrase_faq` runs the thesis' whole procedure on a question/answer table
and reports every candidate with its scores and fate.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from augkit.plugin import Augmenter, InvalidParameterError, ModelNeed

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
from augkit_faq.postprocess import process_candidates


class FaqParaphraser(Augmenter):
    """Paraphrases questions while keeping their domain terms (Ng 2021).

    Each "Expansion (ABBR)" of a question is shortened to "ABBR", the paraphraser samples
    candidates for the shortened question, the long forms are restored in every candidate, and
    candidates that repeat the question or each other are dropped.

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
    max_length : int
        Most tokens a model generator writes per candidate (thesis: 256).
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
    """

    name = "faq"
    uses_model = True  # a paraphrase model (T5), or back-translation's models as the offline generator

    def __init__(
        self,
        generator: str | QuestionGenerator = DEFAULT_GENERATOR,
        top_k: int = DEFAULT_TOP_K,
        top_p: float = DEFAULT_TOP_P,
        max_length: int = DEFAULT_MAX_LENGTH,
        device: str = "auto",
        num_return: int | None = None,
        keep_duplicates: bool = False,
        forbid_source_unigrams: bool = False,
        forbid_probability: float = BART_UNI_PROBABILITY,
        runtime: str = "transformers",
        compute_type: str = "auto",
    ):
        if num_return is not None and (isinstance(num_return, bool) or not isinstance(num_return, int) or num_return < 1):
            raise InvalidParameterError(f"faq: num_return must be an integer >= 1 or None, got {num_return!r}")
        self.generator = generator
        self.top_k = top_k
        self.top_p = top_p
        self.max_length = max_length
        self.forbid_source_unigrams = forbid_source_unigrams
        self.forbid_probability = forbid_probability
        self.device = device
        self.num_return = num_return
        self.keep_duplicates = bool(keep_duplicates)
        self.runtime = runtime
        self.compute_type = compute_type
        self._generator = resolve_generator(
            generator, top_k=top_k, top_p=top_p, max_length=max_length, device=device,
            forbid_source_unigrams=forbid_source_unigrams, forbid_probability=forbid_probability,
            runtime=runtime, compute_type=compute_type,
        )

    def required_models(self) -> list[ModelNeed]:
        """The generator's models (a generator object without ``required_models`` declares none)."""
        declared = getattr(self._generator, "required_models", None)
        return list(declared()) if declared is not None else []

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        return self.augment_batch([text], n, [rng])[0]

    def augment_batch(self, texts: Sequence[str], n: int, rngs: Sequence[random.Random]) -> list[list[str]]:
        shortened = [shorten(text) for text in texts]
        seeds = [rng.getrandbits(63) for rng in rngs]
        asked = n if self.num_return is None else self.num_return
        generated = self._generator.generate([s.text for s in shortened], asked, seeds)
        rows = [process_candidates(text, short.terms, row) for text, short, row in zip(texts, shortened, generated, strict=True)]
        if self.keep_duplicates:
            return [[c.text for c in row] for row in rows]
        return [[c.text for c in row if not c.duplicate][:n] for row in rows]
