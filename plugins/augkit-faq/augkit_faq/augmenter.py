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

from augkit.augmenter import Augmenter

from augkit_faq.abbreviations import shorten
from augkit_faq.generators import (
    DEFAULT_GENERATOR,
    DEFAULT_MAX_LENGTH,
    DEFAULT_TOP_K,
    DEFAULT_TOP_P,
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
    """

    name = "faq"
    uses_model = True  # a paraphrase model (T5), or back-translation's models as the offline generator

    def __init__(
        self,
        generator: str = DEFAULT_GENERATOR,
        top_k: int = DEFAULT_TOP_K,
        top_p: float = DEFAULT_TOP_P,
        max_length: int = DEFAULT_MAX_LENGTH,
        device: str = "auto",
    ):
        self.generator = generator
        self.top_k = top_k
        self.top_p = top_p
        self.max_length = max_length
        self.device = device
        self._generator = resolve_generator(generator, top_k=top_k, top_p=top_p, max_length=max_length, device=device)

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        return self.augment_batch([text], n, [rng])[0]

    def augment_batch(self, texts: Sequence[str], n: int, rngs: Sequence[random.Random]) -> list[list[str]]:
        shortened = [shorten(text) for text in texts]
        seeds = [rng.getrandbits(63) for rng in rngs]
        generated = self._generator.generate([s.text for s in shortened], n, seeds)
        return [
            [c.text for c in process_candidates(text, short.terms, row) if not c.duplicate][:n]
            for text, short, row in zip(texts, shortened, generated, strict=True)
        ]
