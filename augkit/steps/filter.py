"""The :class:`Filter` interface: keep, drop or re-rank candidates of each source text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from augkit.errors import InputError
from augkit.steps.candidate import Candidate
from augkit.steps.configurable import Configurable
from augkit.steps.context import BatchContext, DatasetContext


class Filter(Configurable):
    """Base class of candidate filters, scorers and rankers.

    A subclass sets ``name``, takes its configuration as constructor keyword arguments and
    implements :meth:`filter` (one source at a time) or :meth:`filter_batch` (a batch, for
    filters that embed or score with a model). A filter may add scores to
    ``candidate.scores``; it must return a subset of the candidates it received, in the order
    it prefers.

    A filter says why it dropped a candidate with :meth:`explain` (or, when it knows it
    while filtering, by setting ``candidate.drop_reason``): the trace shows it in its
    ``reason`` column.
    """

    name: ClassVar[str] = ""
    #: Names of the scores this filter adds to ``candidate.scores`` (declared so that table
    #: outputs whose columns are fixed in advance, such as a ``datasets.Dataset``, get them).
    scores: ClassVar[tuple[str, ...]] = ()
    #: True when :meth:`prepare` must see every original of the run for the filter to decide
    #: correctly (not just to warm a cache): streamed runs then read all the texts first.
    needs_all_texts: ClassVar[bool] = False
    #: True when the filter runs a model (an encoder, a classifier): its batches take long and
    #: vary with the hardware, so ``augkit augment`` sets no per-row time limit by default
    #: when a pipeline holds such a step.
    uses_model: ClassVar[bool] = False

    #: Names of the usage this filter reports per row (``("requests", "prompt_tokens")``), for a
    #: filter that asks a paid or slow service (``llm_check``): :meth:`filter_batch` returns
    #: that row's kept candidates as :class:`augkit.GeneratedRow` ``(kept, usage={...})``, and
    #: the run's report sums each name with the augmenters' of the same name.
    usage: ClassVar[tuple[str, ...]] = ()

    #: How many candidates (reaching this step) :meth:`calibrate` wants to see before the run;
    #: 0: the step is not calibrated. An instance may set its own.
    calibration_candidates: int = 0

    def calibrate(self, sources: list[str], candidates: list[list[Candidate]]) -> None:
        """Called once per run after :meth:`prepare` when :attr:`calibration_candidates` is set,
        with the candidates that reach this step for the run's first originals (in the data's
        order, until at least that many candidates): a ranker sets its weights from their
        spread here. Depends only on the data, ``n`` and the seed, never on batching."""

    def reads_scores(self) -> tuple[str, ...]:
        """Names of the scores this step reads from ``candidate.scores`` (a ranker's
        weights): a pipeline refuses to build when no earlier step declares one of them."""
        return ()

    def prepare(self, dataset: DatasetContext) -> None:
        """Called once per run, before any batch, with all the run's originals: the place to
        embed or index them once (``label_integrity`` compares candidates with all of them).
        Runs in the calling process, so worker processes inherit what it computes."""

    def explain(self, source: str, text: str) -> str:
        """Why this filter drops ``text`` as a rewrite of ``source``, in words (``"negation
        added: 'not'"``), or ``""`` when it keeps it or cannot say. The pipeline asks it for
        each candidate the filter dropped without a ``drop_reason``, when it keeps a trace;
        the base filter cannot say."""
        return ""

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        """Return the candidates of ``source`` to keep."""
        raise NotImplementedError(f"{type(self).__name__} must implement filter()")

    def filter_batch(
        self,
        sources: list[str],
        candidates: list[list[Candidate]],
        context: BatchContext,
    ) -> list[list[Candidate]]:
        """Filter the candidates of many sources; defaults to :meth:`filter` per source."""
        check_sources(self.name, sources, candidates)
        return [self.filter(source, cands) for source, cands in zip(sources, candidates, strict=True)]


def check_sources(step: str, sources: Any, candidates: Sequence[Sequence[Candidate]]) -> None:
    """Fail clearly when a filter is handed candidates without their source texts."""
    if sources is None or isinstance(sources, str) or not isinstance(sources, Sequence):
        raise InputError(
            f"filter {step!r} scores candidates against their source texts: pass the list of "
            f"sources, one per list of candidates (got {type(sources).__name__})"
        )
    if len(sources) != len(candidates):
        raise InputError(
            f"filter {step!r} got {len(sources)} source texts for {len(candidates)} lists of candidates; "
            "each list of candidates needs its source"
        )
    for position, source in enumerate(sources):
        if not isinstance(source, str):
            raise InputError(f"filter {step!r}: the source of candidate list {position} is {type(source).__name__}, not a text")
