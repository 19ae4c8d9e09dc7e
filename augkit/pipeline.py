"""Pipelines: generate candidates with augmenters, then filter and rank them.

``Pipeline(generate, filters)`` runs its generator (an augmenter, an :class:`Interleave` of
generators whose candidates are interleaved, or a :class:`Chain` whose steps rewrite each
other's output) and then every filter in order, keeping at most ``n`` candidates per source.
Exact-duplicate removal (``dedup``) runs first unless ``dedup=False``, then the check that
every protected span survived (``protected``, :mod:`augkit.protection`) unless
``protected=False``.

Each augmenter in a pipeline draws from its own per-row generator, keyed by the run's
seed, the augmenter's key (its name, or ``name#2`` for a second use) and the text it
rewrites, so outputs never depend on batching.
"""

from __future__ import annotations

import enum
import inspect
import math
import operator
import reprlib
import warnings
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from augkit.augmenter import Augmenter
from augkit.candidate import Candidate
from augkit.errors import (
    AugmentationFailedError,
    AugmenterOutputError,
    InvalidParameterError,
    PipelineSpecError,
    UsageError,
)
from augkit.filters.base import BatchContext, DatasetContext, Filter
from augkit.filters.dedup import ExactDuplicateFilter
from augkit.model_needs import ModelNeed, check_models, distinct_needs, qualified
from augkit.params import did_you_mean
from augkit.generated_row import USAGE_PREFIX, GeneratedRow, merged_notes, notes_of, with_notes
from augkit.pipeline_spec import GroupSpec, StepSpec, format_options, format_step, parse_pipeline_spec
from augkit.protection.locate import relocated
from augkit.protection.spans import RowProtection
from augkit.protection.step import ProtectedSpansFilter
from augkit.report import failure_reason
from augkit.row_context import candidates_context, check_fields, merged, own_columns, without_unchanged
from augkit.seeding import RowSeeder
from augkit.time_limit import TimeLimit, TimeLimitExceeded
if TYPE_CHECKING:
    from augkit.registry import Registry
from augkit.trace import TraceEntry

NOTHING_GENERATED = "augmenter returned nothing"
#: A failed row's reason when its augmenter gave none (:attr:`GeneratedRow.failed`).
NOTHING_USABLE = "the augmenter could not produce a candidate"
#: The first and last of :attr:`Pipeline.count_names`.
GENERATED, BEYOND_N = "generated", "beyond n"


#: The pipelines whose models were found (:meth:`Pipeline.check_models`), so that a pipeline
#: run batch after batch looks once; kept here rather than on the pipeline, which a run does
#: not change. A worker process looks again for its own copy.
_MODELS_CHECKED: weakref.WeakSet = weakref.WeakSet()

#: Originals generated together when calibrating a step (:meth:`Pipeline.prepare`): fixed, so
#: that the calibration sample never depends on the run's batch size.
CALIBRATION_GROUP = 16


class Preparation(enum.Enum):
    """What a pipeline's steps need from :meth:`Pipeline.prepare`, decided in one place
    (:attr:`Pipeline.preparation`) for every caller that runs a pipeline over parts of a run
    (batches, map batches, file chunks, Ray blocks)."""

    #: No step does anything in ``prepare``: callers skip the pass over the originals.
    NONE = "none"
    #: Steps prepare to save work (an encoder warming its cache): each part may be prepared
    #: on its own; preparing the whole run at once is faster, never different.
    ANY_PART = "any part"
    #: A step must see every original of the run (``needs_all_texts``): callers prepare the
    #: whole run up front, and cannot run it streamed without reading it all first.
    WHOLE = "whole"


@dataclass
class BatchOutcome:
    """What a pipeline made of a batch, per text: the candidates kept (at most ``n``), why a
    text got none (None when it got some), and counts aligned with
    :attr:`Pipeline.count_names`: candidates generated, dropped by each filter, and cut
    beyond ``n``."""

    candidates: list[list[Candidate]]
    reasons: list[str | None]
    counts: list[tuple[int, ...]]
    #: Per text, every candidate generated and its fate (:mod:`augkit.trace`); None unless
    #: the batch ran with ``trace=True``.
    traces: list[list[TraceEntry]] | None = None
    #: Per text, what a step could not produce for it (a :attr:`GeneratedRow.failed` row's
    #: reason), even when other steps gave the text candidates; None for the others. Read by
    #: ``strict``; not carried out of the process that ran the batch.
    failures: list[str | None] | None = None


class Interleave:
    """Candidates from every member generator, interleaved round-robin.

    ``Interleave("eda", "aeda")`` is the string form ``"eda+aeda"``; each member is asked
    for ``n`` candidates, so filters downstream choose from up to ``len(members) * n``.
    """

    def __init__(self, *members: str | Augmenter | Interleave | Chain):
        if len(members) < 2:
            raise UsageError(f"{type(self).__name__} needs at least two members")
        self.members = members


class Union(Interleave):
    """Deprecated name of :class:`Interleave` (it shadowed ``typing.Union``)."""

    def __init__(self, *members: str | Augmenter | Interleave | Chain):
        warnings.warn("augkit.Union is now called augkit.Interleave", FutureWarning, stacklevel=2)
        super().__init__(*members)


class Chain:
    """Generators applied in sequence: the first rewrites the source into ``n`` candidates,
    each later step rewrites each candidate once. String form ``"eda>aeda"``."""

    def __init__(self, *steps: str | Augmenter | Interleave | Chain):
        if len(steps) < 2:
            raise UsageError("Chain needs at least two steps")
        self.steps = steps


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

    Example::

        augkit.augment(df, augkit.Pipeline(augkit.Interleave("eda", "aeda")), n=4, seed=0)
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
        registry = registry or _registry()
        self._generator = _build_generator(generate, Counter(), registry)
        own = _follow_up_steps(self._generator, registry)
        self._own_steps = tuple(own)
        resolved = [*own, *(_resolve_filter(f, registry) for f in filters)]
        added_dedup = dedup and not any(isinstance(f, ExactDuplicateFilter) for f in resolved)
        if added_dedup:
            resolved.insert(0, ExactDuplicateFilter())
        #: The protected step this pipeline added itself (its string form leaves it out), or None.
        self._added_protection: ProtectedSpansFilter | None = None
        if protected and not any(isinstance(f, ProtectedSpansFilter) for f in resolved):
            self._added_protection = ProtectedSpansFilter()
            resolved.insert(1 if added_dedup else 0, self._added_protection)
        self.filters: tuple[Filter, ...] = tuple(resolved)
        _check_scores_read(self._generator.leaves(), self.filters, registry)

    @classmethod
    def from_string(cls, spec: str, params: Mapping[str, Any] | None = None, **options: Any) -> Pipeline:
        """Build a pipeline from its string form (see :mod:`augkit.pipeline_spec`).

        ``params`` adds constructor arguments: ``alpha_sr=0.2`` goes to the only generator
        of a one-method pipeline; ``"eda.alpha_sr"`` goes to every step named ``eda``.
        """
        parsed = parse_pipeline_spec(spec)
        registry = options.pop("registry", None) or _registry()
        _apply_params(parsed.generator_steps(), parsed.filters, dict(params or {}), registry)
        generate = _generator_from_spec(parsed.generator, registry)
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
        missing, with how to provide each (:func:`augkit.model_needs.check_models`).
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
        steps = [*(leaf.augmenter for leaf in self._generator.leaves()), *self.filters]
        if any(step.needs_all_texts for step in steps) or any(step.calibration_candidates for step in self.filters):
            return Preparation.WHOLE
        if any(_overrides_prepare(step) for step in steps):
            return Preparation.ANY_PART
        return Preparation.NONE

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
                step.calibrate(*self._calibration_sample(dataset, position, step.calibration_candidates, n, seed))

    def _calibration_sample(self, dataset: DatasetContext, position: int, wanted: int, n: int,
                            seed: int) -> tuple[list[str], list[list[Candidate]]]:
        """The run's first originals, in order, with their candidates that reach filter
        ``position``, until there are at least ``wanted`` (or the originals run out). Rows
        are generated in fixed groups, so the sample never depends on the run's batching."""
        sources: list[str] = []
        reached: list[list[Candidate]] = []
        for start in range(0, len(dataset.texts), CALIBRATION_GROUP):
            rows = list(range(start, min(start + CALIBRATION_GROUP, len(dataset.texts))))
            texts = [dataset.texts[i] for i in rows]
            context = BatchContext(labels=None if dataset.labels is None else [dataset.labels[i] for i in rows],
                                   columns={name: [values[i] for i in rows] for name, values in dataset.columns.items()},
                                   protected=None if dataset.protected is None else [dataset.protected[i] for i in rows])
            candidates = self._generated(texts, n, seed, context)
            for step in self.filters[:position]:
                candidates = _checked_filter_output(step, step.filter_batch(texts, candidates, context), candidates)
            for text, row in zip(texts, candidates, strict=True):
                sources.append(text)
                reached.append(row)
                if sum(map(len, reached)) >= wanted:
                    return sources, reached
        return sources, reached

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

    def _row_usage(self, rows: list[list[Candidate]]) -> list[list[int]]:
        """Each row's usage values, in :attr:`usage_names` order (0 where a step reported none)."""
        names = self.usage_names
        if not names:
            return [[] for _ in rows]
        out = []
        for row in rows:
            values = dict.fromkeys(names, 0)
            for name, value in notes_of(row).usage.items():
                values[f"{USAGE_PREFIX}{name}"] += int(value)
            out.append(list(values.values()))
        return out

    @property
    def count_names(self) -> tuple[str, ...]:
        """What :attr:`BatchOutcome.counts` counts per text, in order: ``generated``, then
        the candidates each filter dropped (named after it; ``semantic#2`` for a second
        use), then ``beyond n`` (kept by every filter but over the ``n`` asked for)."""
        seen: Counter = Counter()
        names = []
        for step in self.filters:
            seen[step.name] += 1
            names.append(step.name if seen[step.name] == 1 else f"{step.name}#{seen[step.name]}")
        return (GENERATED, *names, BEYOND_N, *self.usage_names)

    @property
    def usage_names(self) -> tuple[str, ...]:
        """The usage this pipeline's augmenters report per row (:attr:`Augmenter.usage`), as
        count names ``usage:<name>`` after the candidate counts (summed over the augmenters
        that report the same name)."""
        return tuple(dict.fromkeys(f"{USAGE_PREFIX}{name}" for leaf in self._generator.leaves()
                                   for name in leaf.augmenter.usage))

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
        """
        run = _RunSettings(trace=trace, strict=bool(strict), row_timeout=row_timeout)
        self._check_models_once()
        return self._run_batch_with(texts, n, seed, context or BatchContext(), run)

    def _run_batch_with(self, texts: list[str], n: int, seed: int, context: BatchContext, run: _RunSettings) -> BatchOutcome:
        limit = TimeLimit(run.row_timeout)
        try:
            outcome = limit.run(lambda: self._run_batch(texts, n, seed, context, run.trace))
        except UsageError:
            raise  # configuration and input errors concern every row: stop
        except Exception as error:
            failure: BaseException = error
        except TimeLimitExceeded as error:
            if not limit.raised(error):
                raise  # an outer limit's (a pipeline running this one): its owner decides
            failure = error
        else:
            if run.strict:
                _stop_on_failures(texts, outcome.failures)
            return outcome
        if len(texts) > 1:  # find the failing rows; per-row seeds keep the others' output unchanged
            return self._run_row_by_row(texts, n, seed, context, run)
        return self._row_failed(texts[0], failure, run)

    def _run_row_by_row(self, texts: list[str], n: int, seed: int, context: BatchContext, run: _RunSettings) -> BatchOutcome:
        outcome = BatchOutcome([], [], [], [] if run.trace else None)
        for index, text in enumerate(texts):
            row = self._run_batch_with([text], n, seed, context.take([index]), run)
            outcome.candidates += row.candidates
            outcome.reasons += row.reasons
            outcome.counts += row.counts
            if outcome.traces is not None:
                outcome.traces += row.traces
        return outcome

    def _row_failed(self, text: str, error: BaseException, run: _RunSettings) -> BatchOutcome:
        """The result of a row an augmenter or filter failed on, or (strict) the error naming it."""
        if isinstance(error, TimeLimitExceeded):
            kind = f"timed out after {error.seconds:g} s"
            detail = f"{kind} (row_timeout)" + (f", in {error.where}" if error.where else "")
        elif isinstance(error, AugmenterOutputError):
            kind, detail = error.kind, f"failed: {error}"
        else:
            kind, detail = type(error).__name__, f"failed with {type(error).__name__}: {str(error)[:200]}"
        if run.strict:
            raise AugmentationFailedError(f"augmenting {text[:80]!r} {detail}") from error
        # one reason per kind of failure, so the summary stays short; strict shows the detail
        # (a failed row counts nothing, and traces nothing: what its steps did before the
        # failure is not kept)
        return BatchOutcome([[]], [failure_reason(f"{kind}; strict mode stops and shows it")],
                            [(0,) * len(self.count_names)], [[]] if run.trace else None)

    def _run_batch(self, texts: list[str], n: int, seed: int, context: BatchContext, trace: bool = False) -> BatchOutcome:
        candidates = self._generated(texts, n, seed, context)
        usage = self._row_usage(candidates) if self.usage_names else None  # the notes are on the generated rows
        notes = [notes_of(row) for row in candidates]
        failures = [(note.reason or NOTHING_USABLE) if note.failed else None for note in notes]
        reasons: list[str | None] = [
            None if row else failure_reason(failed) if failed else (note.reason or NOTHING_GENERATED)
            for row, note, failed in zip(candidates, notes, failures)
        ]
        sizes = list(map(len, candidates))
        columns = [sizes]  # one list per count name, one value per text: zipped into rows at the end
        fates = _Fates(candidates) if trace else None
        for step, step_name in zip(self.filters, self.count_names[1:-1]):
            before = candidates
            candidates = _checked_filter_output(step, step.filter_batch(texts, before, context), before)
            left = list(map(len, candidates))
            columns.append(list(map(operator.sub, sizes, left)))
            for index, size in enumerate(left):
                if not size and reasons[index] is None:
                    reasons[index] = f"all candidates removed by filter {step.name!r}"
            if fates is not None:
                fates.dropped(before, candidates, step_name)
            sizes = left
        kept = [row if len(row) <= n else row[:n] for row in candidates]
        columns.append([size - n if size > n else 0 for size in sizes])
        if usage:
            columns.extend(zip(*usage))
        if fates is not None:
            fates.dropped(candidates, kept, BEYOND_N)
        return BatchOutcome(kept, reasons, list(zip(*columns)), fates.entries() if fates is not None else None,
                            failures if any(failures) else None)


@dataclass(frozen=True)
class _RunSettings:
    """How one :meth:`Pipeline.run_batch` call runs: with or without a trace, strict or
    not, and its row time limit."""

    trace: bool = False
    strict: bool = False
    row_timeout: float | None = None


class _Fates:
    """The trace of one batch under construction: every generated candidate, in generation
    order, and the step that dropped it. Filters return the candidate objects they keep, so
    a dropped candidate is one whose object is missing from a step's output (a filter that
    returns new objects is matched by text)."""

    def __init__(self, generated: list[list[Candidate]]):
        self._rows = [[TraceEntry(c.method, c.text, c.scores) for c in row] for row in generated]
        self._entry_of = [{id(c): entry for c, entry in zip(row, entries)} for row, entries in zip(generated, self._rows)]
        self._alive: list[list[Candidate]] = [*generated]  # ids stay unique while their objects live

    def dropped(self, before: list[list[Candidate]], after: list[list[Candidate]], step: str) -> None:
        """Mark what ``step`` dropped: the candidates of ``before`` missing from ``after``."""
        for entry_of, old, new in zip(self._entry_of, before, after):
            if len(old) == len(new) and all(a is b for a, b in zip(old, new)):
                continue
            self._alive.append(new)
            unclaimed = [c for c in old if id(c) in entry_of]
            claimed = {id(c) for c in new if id(c) in entry_of}
            for candidate in new:
                if id(candidate) not in entry_of:  # rebuilt by the filter: the same text it got
                    twin = next((c for c in unclaimed if c.text == candidate.text and id(c) not in claimed), None)
                    if twin is not None:
                        claimed.add(id(twin))
                        entry_of[id(candidate)] = entry_of[id(twin)]
                        entry_of[id(candidate)].scores = candidate.scores
            for candidate in unclaimed:
                if id(candidate) not in claimed:
                    entry = entry_of[id(candidate)]
                    entry.dropped_by = step
                    entry.reason = candidate.drop_reason

    def entries(self) -> list[list[TraceEntry]]:
        return self._rows


class _Leaf:
    """One augmenter in a pipeline, with its seed key and label."""

    def __init__(self, augmenter: Augmenter, key: str):
        self.augmenter = augmenter
        self.key = key
        self.label = augmenter.name or type(augmenter).__name__
        self.spec = format_step(self.label, augmenter.changed_params())
        self.required = tuple(dict.fromkeys((*augmenter.context_columns, *augmenter.rewrites_columns)))
        self.rewritable = tuple(dict.fromkeys((*augmenter.rewrites_columns, *augmenter.optional_rewrites_columns)))
        self.optional = tuple(dict.fromkeys(
            name for name in (*augmenter.optional_context_columns, *augmenter.optional_rewrites_columns)
            if name not in self.required
        ))
        self.names = (*self.required, *self.optional)
        self.takes_context = "context" in inspect.signature(type(augmenter).augment_batch).parameters
        if self.names and not self.takes_context:
            raise UsageError(
                f"augmenter {self.label!r} declares context columns ({', '.join(self.names)}) but its augment_batch "
                "takes no 'context' keyword: define augment_batch(self, texts, n, rngs, context)"
            )

    def generate(self, texts: list[str], n: int, seed: int, context: BatchContext) -> list[list[Candidate]]:
        seeder = RowSeeder(seed, self.key)
        make_rng = seeder.seed if self.augmenter.row_seeds else seeder.rng
        rngs = [make_rng(text) for text in texts]
        if self.takes_context:
            columns = own_columns(self.label, self.required, context, len(texts), optional=self.optional)
            own = BatchContext(labels=context.labels, columns=columns, protected=context.protected)
            output = self.augmenter.augment_batch(list(texts), n, rngs, context=own)
        else:
            output = self.augmenter.augment_batch(list(texts), n, rngs)
        method = self.label
        noted = isinstance(output, (list, tuple)) and any(isinstance(row, GeneratedRow) for row in output)
        notes = [notes_of(row) for row in output] if noted else []
        rows = [
            [Candidate(item, method) if type(item) is str else self._candidate(item) for item in row]
            for row in _checked_output(method, texts, output, n)
        ]
        if any(note.reason or note.usage or note.failed for note in notes):
            usage_names = set(self.augmenter.usage)
            for note in notes:
                undeclared = sorted(set(note.usage) - usage_names)
                if undeclared:
                    raise AugmenterOutputError(
                        f"augmenter {method!r} reported usage {', '.join(undeclared)} it does not declare in usage = (...)",
                        kind=f"augmenter {method!r} reported undeclared usage",
                    )
            rows = [with_notes(row, *note) for row, note in zip(rows, notes, strict=True)]
        return rows

    def _candidate(self, item: Candidate) -> Candidate:
        """A copy of an augmenter's Candidate, labelled with this step, its rewritten fields and
        label checked against what the augmenter declares."""
        if item.fields:
            check_fields(self.label, self.rewritable, item.fields)
        if item.label is not None and not self.augmenter.sets_label:
            raise AugmenterOutputError(
                f"augmenter {self.label!r} set a candidate's label to {item.label!r} but does not declare sets_label = True",
                kind=f"augmenter {self.label!r} set a label it does not declare",
            )
        method = self.label if item.method in ("", self.label) else f"{self.label}:{item.method}"
        return Candidate(item.text, method, dict(item.scores), dict(item.fields), item.label)

    def leaves(self) -> list[_Leaf]:
        return [self]


class _UnionNode:
    def __init__(self, members: list):
        self.members = members
        self.label = "+".join(m.label for m in members)
        self.spec = "+".join(m.spec for m in members)

    def generate(self, texts: list[str], n: int, seed: int, context: BatchContext) -> list[list[Candidate]]:
        per_member = [member.generate(texts, n, seed, context) for member in self.members]
        return [with_notes(_interleave([rows[i] for rows in per_member]), *merged_notes(rows[i] for rows in per_member))
                for i in range(len(texts))]

    def leaves(self) -> list[_Leaf]:
        return [leaf for member in self.members for leaf in member.leaves()]


class _ChainNode:
    def __init__(self, steps: list):
        self.steps = steps
        self.label = ">".join(s.label for s in steps)
        self.spec = ">".join(f"({s.spec})" if isinstance(s, _UnionNode) else s.spec for s in steps)

    def generate(self, texts: list[str], n: int, seed: int, context: BatchContext) -> list[list[Candidate]]:
        rows = self.steps[0].generate(texts, n, seed, context)
        for step in self.steps[1:]:
            flat = [c.text for row in rows for c in row]
            rewritten = iter(step.generate(flat, 1, seed, candidates_context(rows, context)))
            outputs = [[next(rewritten) for _ in row] for row in rows]
            rows = [with_notes([merged(c, out[0]) for c, out in zip(row, outs) if out], *merged_notes([row, *outs]))
                    for row, outs in zip(rows, outputs)]
        return [with_notes([Candidate(c.text, self.label, c.scores, c.fields, c.label) for c in row], *notes_of(row))
                for row in rows]

    def leaves(self) -> list[_Leaf]:
        return [leaf for step in self.steps for leaf in step.leaves()]


def _stop_on_failures(texts: list[str], failures: list[str | None] | None) -> None:
    """``strict``: stop at a batch in which a step could not produce for some rows, naming the
    first and counting the batch's failures by reason."""
    if not failures:
        return
    first = next(i for i, failure in enumerate(failures) if failure)
    counted = Counter(failure for failure in failures if failure)
    listing = ", ".join(f"{count} {reason}" for reason, count in counted.most_common())
    raise AugmentationFailedError(
        f"augmenting {texts[first][:80]!r} failed: {failures[first]} (strict); "
        f"{sum(counted.values())} of {_count(len(texts), 'row')} of its batch failed: {listing}"
    )


def _follow_up_steps(generator: Any, registry: Registry) -> list[Filter]:
    """The filters a method declares its candidates always go through (:meth:`Augmenter.follow_up`),
    resolved; such a method must be the pipeline's only generator."""
    leaves = generator.leaves()
    declaring = [leaf for leaf in leaves if leaf.augmenter.follow_up()]
    if not declaring:
        return []
    if len(leaves) > 1:
        names = ", ".join(repr(leaf.label) for leaf in declaring)
        raise UsageError(
            f"method {names} ranks its candidates with its own steps and must be a pipeline's only generator, "
            f"not part of {generator.label!r}: run it alone, or augment with it and the others separately"
        )
    return [_resolve_filter(step, registry) for step in declaring[0].augmenter.follow_up()]


def _overrides_prepare(step: Augmenter | Filter) -> bool:
    """Whether a step does something in ``prepare`` (the base classes' does nothing)."""
    base = Augmenter if isinstance(step, Augmenter) else Filter
    return type(step).prepare is not base.prepare


def _interleave(lists: list[list[Candidate]]) -> list[Candidate]:
    merged = []
    for position in range(max((len(items) for items in lists), default=0)):
        merged.extend(items[position] for items in lists if position < len(items))
    return merged


def _build_generator(obj: Any, seen: Counter, registry: Registry):
    if isinstance(obj, Interleave):
        return _UnionNode([_build_generator(m, seen, registry) for m in obj.members])
    if isinstance(obj, Chain):
        return _ChainNode([_build_generator(s, seen, registry) for s in obj.steps])
    if isinstance(obj, str):
        obj = registry.create_augmenter(obj)
    if isinstance(obj, type) and issubclass(obj, Augmenter):
        obj = obj()
    if not isinstance(obj, Augmenter):
        raise UsageError(
            f"a pipeline generator must be a method name, an Augmenter, an Interleave or a Chain; got {type(obj).__name__}"
        )
    label = obj.name or type(obj).__name__
    seen[label] += 1
    key = label if seen[label] == 1 else f"{label}#{seen[label]}"
    return _Leaf(obj, key)


def _resolve_filter(obj: Any, registry: Registry) -> Filter:
    if isinstance(obj, str):
        return registry.create_filter(obj)
    if isinstance(obj, type) and issubclass(obj, Filter):
        return obj()
    if not isinstance(obj, Filter):
        raise UsageError(f"a pipeline filter must be a filter name or a Filter; got {type(obj).__name__}")
    return obj


def _check_scores_read(leaves: list[_Leaf], filters: Sequence[Filter], registry: Registry) -> None:
    """Fail when a step reads a score (:meth:`Filter.reads_scores`, a ranker's weights) that
    no step before it declares, naming the score and the steps that add scores before it."""
    given: dict[str, list[str]] = {}  # step name -> scores it declares, in pipeline order
    for leaf in leaves:
        given.setdefault(leaf.label, []).extend(leaf.augmenter.scores)
    for step in filters:
        available = {score for scores in given.values() for score in scores}
        missing = [score for score in step.reads_scores() if score not in available]
        if missing:
            adders = "; ".join(f"{name!r} adds {', '.join(dict.fromkeys(scores))}" for name, scores in given.items() if scores)
            before = f"before {step.name!r}: {adders}" if adders else f"no step before {step.name!r} adds a score"
            hint = did_you_mean(missing[0], [*sorted(available), *(p.name for p in step.parameters())])
            raise InvalidParameterError(
                f"{step.name!r} uses the score {missing[0]!r}, which no earlier step adds{hint} ({before}); "
                + _where_score_comes_from(missing[0], step.name, registry)
            )
        given.setdefault(step.name, []).extend(step.scores)


def _where_score_comes_from(score: str, reader: str, registry: Registry) -> str:
    """Advice for a pipeline lacking ``score``: the registered steps that declare it."""
    adders = sorted(name for table in (registry.filters, registry.methods)
                    for name, entry in table.items() if score in entry.cls.scores)
    if adders:
        return f"{' or '.join(repr(name) for name in adders)} adds it: put it before {reader!r}"
    return f"put the step that adds {score!r} before {reader!r}, or declare it in that step's scores"


def spec_uses_model(spec: str) -> bool:
    """Whether any step a pipeline string names declares that it runs a model
    (``uses_model``), read from the registered classes: nothing is built or loaded."""
    parsed = parse_pipeline_spec(spec)
    registry = _registry()
    augmenters = [registry.method(step.name).cls for step in parsed.generator_steps()]
    filters = [registry.filter(step.name).cls for step in parsed.filters]
    return any(cls.uses_model for cls in augmenters + filters)


def _generator_from_spec(generator: list[list[StepSpec | GroupSpec]], registry: Registry) -> Augmenter | Interleave | Chain:
    members = [_chain_from_spec(chain, registry) for chain in generator]
    return members[0] if len(members) == 1 else Interleave(*members)


def _chain_from_spec(chain: list[StepSpec | GroupSpec], registry: Registry) -> Augmenter | Interleave | Chain:
    links = [_generator_from_spec(link.generator, registry) if isinstance(link, GroupSpec)
             else registry.create_augmenter(link.name, link.args) for link in chain]
    return links[0] if len(links) == 1 else Chain(*links)


def _apply_params(leaves: list[StepSpec], filters: list[StepSpec], params: dict[str, Any], registry: Registry) -> None:
    """Route caller parameters into the parsed steps (see :meth:`Pipeline.from_string`)."""
    for key, value in params.items():
        if "." in key:  # "step.param"; a step's own name may hold dots (nlpaug.synonym.aug_p)
            step_name, _, param = key.rpartition(".")
            targets = [s for s in leaves + filters if s.name == step_name]
            if not targets:
                names = sorted({s.name for s in leaves + filters})
                raise PipelineSpecError(f"parameter {key!r} names step {step_name!r}, which is not in the pipeline ({', '.join(names)})")
        elif len(leaves) == 1:
            targets, param = leaves, key
        else:
            raise PipelineSpecError(_ambiguous_parameter_message(key, leaves + filters, registry))
        for step in targets:
            if param in step.args:
                raise PipelineSpecError(f"parameter {param!r} of {step.name!r} is given twice")
            step.args[param] = value


def _ambiguous_parameter_message(key: str, steps: list[StepSpec], registry: Registry) -> str:
    """Why an unqualified ``key`` cannot be routed in a pipeline of several methods, naming
    the steps that take it (or, when none does, what each step takes)."""
    takes: dict[str, list[str]] = {}
    for step in steps:
        table = registry.methods if step.name in registry.methods else registry.filters
        entry = table.get(step.name)
        if entry is not None:
            takes[step.name] = [p.name for p in entry.cls.parameters()]
    owners = [name for name, names in takes.items() if key in names]
    prefix = f"parameter {key!r} is ambiguous in a pipeline of several methods; "
    if len(owners) == 1:
        return prefix + f"qualify it with the step that takes it: '{owners[0]}.{key}' (or inline: '{owners[0]}({key}=...)')"
    if owners:
        return prefix + "several steps take it; qualify it for each one you mean: " + ", ".join(f"'{o}.{key}'" for o in owners)
    listing = "; ".join(f"{name}: {', '.join(names) or 'no parameters'}" for name, names in takes.items())
    return f"no step of this pipeline takes a parameter {key!r} ({listing})"


def _checked_output(label: str, texts: list[str], output: Any, n: int) -> list[list[str]]:
    """Validate ``augment_batch`` output: one list of str per text, never None. Blank
    candidates are dropped and at most ``n`` kept per text."""
    if not isinstance(output, (list, tuple)):
        raise AugmenterOutputError(
            f"augmenter {label!r}: augment_batch() returned {_shown(output)}, expected a list of lists of str",
            kind=f"augmenter {label!r} returned {type(output).__name__}",
        )
    if len(output) != len(texts):
        # A whole batch's mistake, or one row's (a model call that lost a row): Pipeline.run
        # runs the batch again row by row, which decides.
        counts = f"{len(output)} rows for {_count(len(texts), 'text')}"
        raise AugmenterOutputError(f"augmenter {label!r}: augment_batch() returned {counts}",
                                   kind=f"augmenter {label!r} returned {counts}")
    rows = []
    for row in output:
        if type(row) is not list:
            if not isinstance(row, (list, tuple)):
                raise AugmenterOutputError(
                    f"augmenter {label!r} returned {_shown(row)} for a text; "
                    "augment() must return a list of strings (possibly empty), never None",
                    kind=f"augmenter {label!r} returned {type(row).__name__}",
                )
            row = list(row)
        if all(type(text) is str for text in row):
            if not all(map(str.strip, row)):
                row = [text for text in row if text.strip()]
        else:
            for text in row:
                if not isinstance(text, (str, Candidate)) or not isinstance(getattr(text, "text", text), str):
                    raise AugmenterOutputError(
                        f"augmenter {label!r} returned the candidate {_shown(text)}; "
                        "candidates must be str (or augkit.Candidate, to attach scores)",
                        kind=f"augmenter {label!r} returned {_bad_candidate(text)}",
                    )
            if not all(_candidate_text(item).strip() for item in row):
                row = [item for item in row if _candidate_text(item).strip()]
        rows.append(row[:n] if len(row) > n else row)
    return rows


def _candidate_text(item: str | Candidate) -> str:
    return item if type(item) is str else item.text


def _checked_filter_output(step: Filter, output: Any, before: list[list[Candidate]]) -> list[list[Candidate]]:
    """Validate ``filter_batch`` output: one list of Candidate per source."""
    contract = "filter_batch() must return one list of Candidate objects per source"
    if not isinstance(output, (list, tuple)):
        raise AugmenterOutputError(f"filter {step.name!r}: filter_batch() returned {_shown(output)}; {contract}",
                                   kind=f"filter {step.name!r} returned {type(output).__name__}")
    if len(output) != len(before):
        counts = f"{len(output)} rows for {_count(len(before), 'source')}"
        raise AugmenterOutputError(f"filter {step.name!r}: filter_batch() returned {counts}; {contract}",
                                   kind=f"filter {step.name!r} returned {counts}")
    for row in output:
        if not isinstance(row, (list, tuple)):
            raise AugmenterOutputError(f"filter {step.name!r} returned {_shown(row)} for a source; {contract}",
                                       kind=f"filter {step.name!r} returned {type(row).__name__}")
        for candidate in row:
            if not isinstance(candidate, Candidate):
                raise AugmenterOutputError(f"filter {step.name!r} returned the candidate {_shown(candidate)}; {contract}",
                                           kind=f"filter {step.name!r} returned a {type(candidate).__name__} candidate")
    return [row if type(row) is list else list(row) for row in output]


def _shown(value: Any) -> str:
    """A returned value as an error message shows it: short repr and type."""
    return f"{reprlib.repr(value)} ({type(value).__name__})" if value is not None else "None"


def _bad_candidate(item: Any) -> str:
    """What was wrong with a candidate, in the words of a reason: its type, or its text's."""
    if isinstance(item, Candidate):
        return f"a Candidate whose text is {type(item.text).__name__}"
    return f"a {type(item).__name__} candidate"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _registry():
    from augkit.plugins import get_registry

    return get_registry()
