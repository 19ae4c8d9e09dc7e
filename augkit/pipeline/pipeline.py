"""Pipelines: generate candidates with augmenters, then filter and rank them.

``Pipeline(generate, filters)`` runs its generator (an augmenter, an :class:`Interleave` of
generators whose candidates are interleaved, or a :class:`Chain` whose steps rewrite each
other's output) and then every filter in order, keeping at most ``n`` candidates per source.
Exact-duplicate removal (``dedup``) runs first unless ``dedup=False``, then the check that
every protected span survived (``protected``, :mod:`augkit.protection`) unless
``protected=False``.

The rooms of this package: :mod:`~augkit.pipeline.compose` (what users compose with),
:mod:`~augkit.pipeline.build` (steps from names and spec strings),
:mod:`~augkit.pipeline.generation` (the generator tree and its seeds),
:mod:`~augkit.pipeline.calibrate` (preparing steps on a run's originals),
:mod:`~augkit.pipeline.run` (one batch, its failures and trace) and
:mod:`~augkit.pipeline.checks` (what steps return, against their contracts).
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from augkit.errors import InvalidParameterError, PipelineSpecError, UsageError
from augkit.filters.dedup import ExactDuplicateFilter
from augkit.models.needs import ModelNeed, check_models, distinct_needs, qualified
from augkit.pipeline.build import (
    apply_params,
    check_scores_read,
    default_registry,
    follow_up_steps,
    generator_from_spec,
    resolve_filter,
)
from augkit.pipeline.calibrate import Preparation, calibration_sample, preparation_of
from augkit.pipeline.compose import Chain, Interleave
from augkit.pipeline.generation import build_generator, feedback_rounds_of
from augkit.pipeline.row_context import without_unchanged
from augkit.pipeline.row_order import select_in_row_order
from augkit.pipeline.run import (
    BEYOND_N,
    GENERATED,
    BatchOutcome,
    BatchSteps,
    RunSettings,
    run_batch,
)
from augkit.pipeline.spec import format_options, format_step, parse_pipeline_spec
from augkit.protection.step import ProtectedSpansFilter
from augkit.steps.augmenter import Augmenter
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext, DatasetContext
from augkit.steps.dataset_filter import DatasetFilter
from augkit.steps.feedback import RowFeedback
from augkit.steps.filter import Filter
from augkit.steps.generated_row import USAGE_PREFIX
from augkit.steps.protected_spans import RowProtection

if TYPE_CHECKING:
    from augkit.registry.registered import Registry

#: The pipelines whose models were found (:meth:`Pipeline.check_models`), so that a pipeline
#: run batch after batch looks once; kept here rather than on the pipeline, which a run does
#: not change. A worker process looks again for its own copy.
_MODELS_CHECKED: weakref.WeakSet = weakref.WeakSet()



class Pipeline:
    """Generate, then filter and rank.

    Parameters
    ----------
    generate : str, Augmenter, Interleave or Chain
        What produces candidates; a string is a registered method name.
    filters : sequence of str or Filter
        Filters applied in order after generation; strings are registered filter names.
    dedup : bool
        Prepend exact-duplicate removal unless the filters already include it.
    protected : bool
        Check, right after duplicate removal, that every candidate keeps its row's protected
        spans (:class:`~augkit.protection.step.ProtectedSpansFilter`, the ``protected`` step),
        unless the filters already include that step.
    oversample : float
        Ask the generator for ``ceil(n * oversample)`` candidates so that filters have
        more to choose from; at most ``n`` survive.
    registry : Registry, optional
        Where method and filter names are looked up (default: the installed plugins,
        :func:`augkit.get_registry`); resolved once, here.

    Examples
    --------
    >>> augkit.augment(df, augkit.Pipeline(augkit.Interleave("eda", "aeda")), n=4, seed=0)  # doctest: +SKIP
    """

    def __init__(
        self,
        generate: str | Augmenter | Interleave | Chain,
        filters: Iterable[str | Filter] = (),
        *,
        dedup: bool = True,
        protected: bool = True,
        oversample: float = 1.0,
        registry: Registry | None = None,
    ):
        if isinstance(oversample, bool) or not isinstance(oversample, (int, float)) or oversample < 1:
            raise InvalidParameterError(f"oversample must be a number >= 1, got {oversample!r}")
        for option, value in (("dedup", dedup), ("protected", protected)):
            if not isinstance(value, bool):
                raise InvalidParameterError(f"{option} must be True or False, got {value!r}")
        self.oversample = float(oversample)
        self.dedup = dedup
        self.protected = protected
        registry = registry or default_registry()
        self._generator = build_generator(generate, Counter(), registry)
        own = follow_up_steps(self._generator, registry)
        self._own_steps = tuple(own)
        resolved = [*own, *(resolve_filter(f, registry) for f in filters)]
        added_dedup = dedup and not any(isinstance(f, ExactDuplicateFilter) for f in resolved)
        if added_dedup:
            resolved.insert(0, ExactDuplicateFilter())
        #: The protected step this pipeline added itself (its string form leaves it out), or None.
        self._added_protection: ProtectedSpansFilter | None = None
        if protected and not any(isinstance(f, ProtectedSpansFilter) for f in resolved):
            self._added_protection = ProtectedSpansFilter()
            resolved.insert(1 if added_dedup else 0, self._added_protection)
        self.filters: tuple[Filter, ...] = tuple(resolved)
        _check_dataset_filters_last(self.filters)
        check_scores_read(self._generator.leaves(), self.filters, registry)
        self._feedback_rounds = feedback_rounds_of(self._generator)


    @classmethod
    def from_string(cls, spec: str, params: Mapping[str, Any] | None = None, **options: Any) -> Pipeline:
        """Build a pipeline from its string form (see :mod:`augkit.pipeline.spec`).

        ``params`` adds constructor arguments: ``alpha_sr=0.2`` goes to the only generator
        of a one-method pipeline; ``"eda.alpha_sr"`` goes to every step named ``eda``.
        """
        parsed = parse_pipeline_spec(spec)
        registry = options.pop("registry", None) or default_registry()
        apply_params(parsed.generator_steps(), parsed.filters, dict(params or {}), registry)
        generate = generator_from_spec(parsed.generator, registry)
        filters = [registry.create_filter(step.name, step.args) for step in parsed.filters]
        clash = sorted(set(parsed.options) & set(options))
        if clash:
            raise PipelineSpecError(f"pipeline option(s) {', '.join(clash)} given both in the string's '[...]' and as arguments")
        return cls(generate, filters, registry=registry, **parsed.options, **options)


    @property
    def name(self) -> str:
        """The generator's label, e.g. ``eda`` or ``eda+aeda``."""
        return self._generator.label


    @property
    def spec(self) -> str:
        """The pipeline's string form, with non-default parameters inline and non-default
        pipeline options in leading brackets: ``Pipeline.from_string(p.spec)`` builds the
        same pipeline (for steps whose parameters are literals)."""
        own = {id(step) for step in self._own_steps}  # implied by the method, not written
        filters = "".join(f"|{format_step(f.name, f.changed_params())}" for f in self.filters
                          if id(f) not in own and f is not self._added_protection)
        options: dict[str, Any] = {}
        if not self.dedup and not any(isinstance(f, ExactDuplicateFilter) for f in self.filters):
            options["dedup"] = False
        if not self.protected and not any(isinstance(f, ProtectedSpansFilter) for f in self.filters):
            options["protected"] = False
        if self.oversample != 1.0:
            options["oversample"] = self.oversample
        return format_options(options) + self._generator.spec + filters


    def __repr__(self) -> str:
        return f"Pipeline({self.spec!r})"


    @property
    def score_names(self) -> tuple[str, ...]:
        """The scores this pipeline's augmenters and filters declare they add, augmenters
        first, then filters in order."""
        generated = (name for leaf in self._generator.leaves() for name in leaf.augmenter.scores)
        filtered = (name for step in self.filters for name in step.scores)
        return tuple(dict.fromkeys([*generated, *filtered]))


    @property
    def context_names(self) -> tuple[str, ...]:
        """The logical names of the other columns this pipeline's augmenters read or rewrite
        (``context_columns`` and ``rewrites_columns``), in order: each must be mapped to a
        column of the data (``context_columns={"premise": "sentence_A"}``)."""
        return tuple(dict.fromkeys(name for leaf in self._generator.leaves() for name in leaf.names))


    @property
    def text_names(self) -> tuple[str, ...]:
        """What this pipeline's augmenters call the text they rewrite, besides "text"
        (:attr:`Augmenter.text_name`, e.g. ``hypothesis``): ``hypothesis_column=`` names the text column."""
        return tuple(dict.fromkeys(leaf.augmenter.text_name for leaf in self._generator.leaves() if leaf.augmenter.text_name))


    @property
    def rewritten_names(self) -> tuple[str, ...]:
        """The logical names of the other columns this pipeline's augmenters may rewrite."""
        return tuple(dict.fromkeys(name for leaf in self._generator.leaves() for name in leaf.rewritable))


    @property
    def label_setters(self) -> tuple[str, ...]:
        """The augmenters (by label) of this pipeline that may set the label of the rows they
        make (``sets_label``)."""
        return tuple(leaf.label for leaf in self._generator.leaves() if leaf.augmenter.sets_label)


    def required_models(self) -> list[ModelNeed]:
        """Every model this pipeline's steps will load with their parameters, each once: the
        generators' first, then the filters' (:meth:`augkit.Augmenter.required_models`). A
        model is named by the parameter its caller passes: ``generator`` for a lone method,
        ``paramac.generator`` or ``semantic.model`` in a pipeline of several steps (as ``-p``
        and ``params`` take them); a method's own steps' models by the method's parameters."""
        lone = self._lone_method()
        needs: list[ModelNeed] = []
        for leaf in self._generator.leaves():
            declared = list(leaf.augmenter.required_models())
            needs += declared if lone else qualified(declared, leaf.label)
        for step in self.filters:
            needs += qualified(list(step.required_models()), step.name)
        return distinct_needs(needs)


    def check_models(self) -> None:
        """Find where every model of :meth:`required_models` would load from, before any is
        loaded: one :class:`~augkit.errors.ModelNotAvailableError` names every one that is
        missing, with how to provide each (:func:`augkit.models.needs.check_models`).
        :meth:`prepare` and :meth:`run_batch` check once per pipeline; :func:`augkit.augment`
        and ``augkit augment`` check at the start of every run."""
        check_models(self.required_models(), self.name if self._lone_method() else f"the pipeline {self.spec!r}")
        _MODELS_CHECKED.add(self)


    def _lone_method(self) -> bool:
        """Whether one method makes the pipeline's models, with its own steps and no other step
        that loads one: its parameters then name them unqualified."""
        own = {id(step) for step in self._own_steps}
        return len(self._generator.leaves()) == 1 and not any(
            id(step) not in own and step.required_models() for step in self.filters)


    def _check_models_once(self) -> None:
        if self not in _MODELS_CHECKED:
            self.check_models()


    @property
    def readers(self) -> dict[str, tuple[str, ...]]:
        """Per augmenter (by label) that reads or rewrites other columns, their logical
        names: what error messages name when a mapping is missing."""
        return {leaf.label: leaf.required for leaf in self._generator.leaves() if leaf.required}


    @property
    def preparation(self) -> Preparation:
        """Whether and how this pipeline's steps (augmenters and filters) must see the run's
        originals before its batches: the one place callers ask (see :class:`Preparation`)."""
        return preparation_of([leaf.augmenter for leaf in self._generator.leaves()], self.filters)

    def prepare(
        self,
        texts: Sequence[str],
        labels: Sequence[Any] | None = None,
        columns: Mapping[str, Sequence[Any]] | None = None,
        *,
        n: int = 1,
        seed: int = 0,
        protected: Sequence[RowProtection] | None = None,
    ) -> None:
        """Show every augmenter and filter all the originals of a run once, before its batches
        (filters such as ``label_integrity`` embed them here; a label-conditioned generator
        collects each label's examples), with their labels and their context columns (by
        logical name). Then calibrate the steps that ask for it (:meth:`Filter.calibrate`:
        a ranker weighting scores by their spread) on the candidates of the first originals,
        generated with the run's ``n`` and ``seed``. ``protected`` holds each text's protected
        spans, when the run protects any. :func:`augkit.augment` calls this; call it
        yourself before :meth:`run` when driving a pipeline by hand."""
        if labels is not None and len(labels) != len(texts):
            raise UsageError(f"prepare: {len(texts)} texts but {len(labels)} labels")
        self._check_models_once()
        for name, values in (columns or {}).items():
            if len(values) != len(texts):
                raise UsageError(f"prepare: {len(texts)} texts but {len(values)} values of context column {name!r}")
        if protected is not None and len(protected) != len(texts):
            raise UsageError(f"prepare: {len(texts)} texts but {len(protected)} rows of protected spans")
        dataset = DatasetContext(texts=list(texts), labels=None if labels is None else list(labels),
                                 columns={name: list(values) for name, values in (columns or {}).items()},
                                 protected=None if protected is None else list(protected))
        for leaf in self._generator.leaves():
            leaf.augmenter.prepare(dataset)
        for step in self.filters:
            step.prepare(dataset)
        for position, step in enumerate(self.filters):
            if step.calibration_candidates:
                step.calibrate(*calibration_sample(self._generated, self.filters, dataset, position,
                                                   step.calibration_candidates, n, seed))


    def _generated(self, texts: list[str], n: int, seed: int, context: BatchContext) -> list[list[Candidate]]:
        """The generator's candidates for ``n`` outputs per text (more when ``oversample`` or
        a method's own ranking steps ask for more)."""
        wanted = math.ceil(n * self.oversample)
        leaves = self._generator.leaves()
        if self._own_steps:
            wanted = leaves[0].augmenter.candidates_for(wanted)
        candidates = self._generator.generate(texts, wanted, seed, context)
        if self.rewritten_names or self.label_setters:  # only such steps may return fields or labels
            candidates = without_unchanged(candidates, context)
        return candidates


    def _generated_again(self, texts: list[str], n: int, seed: int, context: BatchContext, feedback: list[RowFeedback],
                         round_: int) -> list[list[Candidate]]:
        """A feedback round's candidates (:meth:`augkit.Augmenter.augment_again`), asked as
        :meth:`_generated` asks the first round's."""
        candidates = self._generator.generate_again(texts, math.ceil(n * self.oversample), seed, context, feedback, round_)
        if self.rewritten_names or self.label_setters:
            candidates = without_unchanged(candidates, context)
        return candidates

    @property
    def named_steps(self) -> dict[str, Filter]:
        """The pipeline's filters in order, by the name its trace (``dropped_by``), counts
        and report give them: the filter's name, ``dedup#2`` for a second use.

        >>> list(Pipeline.from_string("eda|dedup|dedup(against_source=False)", protected=False).named_steps)
        ['dedup', 'dedup#2']
        """
        seen: Counter = Counter()
        named = {}
        for step in self.filters:
            seen[step.name] += 1
            named[step.name if seen[step.name] == 1 else f"{step.name}#{seen[step.name]}"] = step
        return named

    @property
    def dataset_filters(self) -> dict[str, DatasetFilter]:
        """The pipeline's last filters that judge candidates against the outputs kept for
        earlier rows (:class:`~augkit.steps.dataset_filter.DatasetFilter`), by their names in
        :attr:`named_steps`; empty for most pipelines. A run applies them, and the cut to
        ``n``, in the process that gathers the batches, in row order
        (:meth:`select_in_row_order`)."""
        return {name: step for name, step in self.named_steps.items() if isinstance(step, DatasetFilter)}

    @property
    def count_names(self) -> tuple[str, ...]:
        """What :attr:`BatchOutcome.counts` counts per text, in order: ``generated``, then
        the candidates each filter dropped (:attr:`named_steps`), then ``beyond n`` (kept by
        every filter but over the ``n`` asked for)."""
        return (GENERATED, *self.named_steps, BEYOND_N, *self.usage_names)

    @property
    def usage_names(self) -> tuple[str, ...]:
        """The usage this pipeline's augmenters and filters report per row
        (:attr:`Augmenter.usage`, :attr:`Filter.usage`), as count names ``usage:<name>`` after
        the candidate counts (summed over the steps that report the same name)."""
        steps = [*(leaf.augmenter for leaf in self._generator.leaves()), *self.filters]
        return tuple(dict.fromkeys(f"{USAGE_PREFIX}{name}" for step in steps for name in step.usage))


    def run(
        self, texts: list[str], n: int, seed: int, context: BatchContext | None = None
    ) -> tuple[list[list[Candidate]], list[str | None]]:
        """Augment a batch: at most ``n`` candidates per text, and for each text left with
        none, the reason. :meth:`run_batch` also counts what each step did."""
        outcome = self.run_batch(texts, n, seed, context)
        return outcome.candidates, outcome.reasons


    def run_batch(
        self,
        texts: list[str],
        n: int,
        seed: int,
        context: BatchContext | None = None,
        *,
        trace: bool = False,
        strict: bool = False,
        row_timeout: float | None = None,
        dataset_filters: bool = True,
    ) -> BatchOutcome:
        """Augment a batch: at most ``n`` candidates per text; for each text left with none,
        the reason (nothing generated, which filter removed the last ones, or what went
        wrong on that text: an exception an augmenter or filter raised, output outside its
        contract, or running past ``row_timeout``); and per text, how many candidates were
        generated and how many each filter dropped (:attr:`count_names`). ``trace=True``
        also records every candidate's fate (:attr:`BatchOutcome.traces`).

        ``strict``: when an augmenter or filter raises on a row, returns something outside its
        contract there (None, a non-string), or cannot produce for it (a row it returns as a
        :class:`GeneratedRow` with ``failed=True``: an unusable reply, a request that failed),
        False keeps the row unaugmented and records why (``augmentation failed (...)``); True
        stops, naming the row and counting the batch's failures by reason. ``row_timeout``:
        seconds the batch may take (None: no limit). These are settings of the call, not of
        the pipeline, which a run never changes.

        When the batch fails or runs out of time, it is run again row by row, each row with
        the whole time limit: per-row seeds give the other rows the output they would have
        had, and one slow row costs at most twice the limit. ``KeyboardInterrupt``,
        ``SystemExit`` and an outer time limit are never caught.

        :attr:`dataset_filters` judge each candidate against the outputs kept for earlier
        rows: here they run after the batch, on its rows in order (named by their position in
        the batch), remembering what this call keeps for the next call. ``dataset_filters=False``
        leaves them, and the cut to ``n``, to the caller, which gathers the outcomes of many
        batches (possibly run elsewhere) and hands each, in row order, to
        :meth:`select_in_row_order`: the engine does.
        """
        run = RunSettings(trace=trace, strict=bool(strict), row_timeout=row_timeout)
        self._check_models_once()
        context = context or BatchContext()
        outcome = run_batch(self._batch_steps(), texts, n, seed, context, run)
        if dataset_filters and self.dataset_filters:
            outcome = self.select_in_row_order(outcome, n, context.labels, range(len(texts)), texts)
        return outcome


    def select_in_row_order(self, outcome: BatchOutcome, n: int, labels: Sequence[Any] | None,
                            rows: Sequence[Any], sources: Sequence[str] | None = None) -> BatchOutcome:
        """Apply :attr:`dataset_filters` and the cut to ``n`` to the outcome of a batch run
        with ``dataset_filters=False``, whose rows are named ``rows`` (their index labels, for
        the drop reasons), labelled ``labels``, whose texts are ``sources``. Call it on the batches in the data's row
        order, once each, after :meth:`prepare`: that order is what "kept earlier" means
        (:mod:`augkit.pipeline.row_order`)."""
        return select_in_row_order(outcome, self.dataset_filters, self.count_names, n, labels, rows, sources)


    def _batch_steps(self) -> BatchSteps:
        """What :func:`augkit.pipeline.run.run_batch` runs: this pipeline's generator and filters,
        all but its dataset filters, which the caller runs on the gathered outcomes."""
        return BatchSteps(self._generated, self.named_steps, self.usage_names, self._feedback_rounds, self._generated_again,
                          tuple(self.dataset_filters))


def _check_dataset_filters_last(filters: Sequence[Filter]) -> None:
    """Refuse a per-row filter after a dataset filter: the outputs a dataset filter remembers
    as kept must be final, so it runs after every other step, on the gathered outcomes."""
    first = next((i for i, step in enumerate(filters) if isinstance(step, DatasetFilter)), None)
    if first is None:
        return
    later = [step.name for step in filters[first + 1:] if not isinstance(step, DatasetFilter)]
    if later:
        raise PipelineSpecError(
            f"{filters[first].name!r} compares each candidate with the outputs kept for earlier rows, so it must come "
            f"after every other filter; move {', '.join(map(repr, later))} before it"
        )
