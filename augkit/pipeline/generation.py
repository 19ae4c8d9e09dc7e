"""The generator tree a pipeline runs: each augmenter as a :class:`GeneratorLeaf` with its seed
key (its name, or ``name#2`` for a second use), interleaved (:class:`InterleaveNode`) or chained
(:class:`ChainNode`), built from what the user composed (:func:`build_generator`).

Each leaf draws from its own per-row generator, keyed by the run's seed, its key and the text
it rewrites, so outputs never depend on batching."""

from __future__ import annotations

import inspect
from collections import Counter
from typing import TYPE_CHECKING, Any

from augkit.errors import AugmenterOutputError, UsageError
from augkit.pipeline.checks import checked_output
from augkit.pipeline.compose import Chain, Interleave
from augkit.pipeline.row_context import (
    candidates_context,
    check_fields,
    merged,
    own_columns,
)
from augkit.pipeline.spec import format_step
from augkit.seeding import RowSeeder
from augkit.steps.augmenter import Augmenter
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.feedback import RowFeedback
from augkit.steps.generated_row import GeneratedRow, merged_notes, notes_of, with_notes
from augkit.steps.params import check_int

if TYPE_CHECKING:
    from augkit.registry.registered import Registry


#: Between a step's seed key and a feedback round's number: ``llm_generate/feedback1``. A key
#: holds no "/" (a method name, ``name#2``), so no round's key is another step's.
FEEDBACK_ROUND = "/feedback"


class GeneratorLeaf:
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
        rngs = self._rngs(RowSeeder(seed, self.key), texts)
        if self.takes_context:
            output = self.augmenter.augment_batch(list(texts), n, rngs, context=self._own_context(texts, context))
        else:
            output = self.augmenter.augment_batch(list(texts), n, rngs)
        return self._candidates(texts, output, n)

    def generate_again(self, texts: list[str], n: int, seed: int, context: BatchContext, feedback: list[RowFeedback],
                       round_: int) -> list[list[Candidate]]:
        """A feedback round (:meth:`augkit.Augmenter.augment_again`): each row's generator is
        keyed by the round too, so no round repeats another's draws."""
        rngs = self._rngs(RowSeeder(seed, f"{self.key}{FEEDBACK_ROUND}{round_}"), texts)
        output = self.augmenter.augment_again(list(texts), n, rngs, self._own_context(texts, context), feedback)
        return self._candidates(texts, output, n)

    def _rngs(self, seeder: RowSeeder, texts: list[str]) -> list:
        make_rng = seeder.seed if self.augmenter.row_seeds else seeder.rng
        return [make_rng(text) for text in texts]

    def _own_context(self, texts: list[str], context: BatchContext) -> BatchContext:
        """The context this augmenter sees: the labels, spans and the columns it declares."""
        columns = own_columns(self.label, self.required, context, len(texts), optional=self.optional)
        return BatchContext(labels=context.labels, columns=columns, protected=context.protected)

    def _candidates(self, texts: list[str], output: object, n: int) -> list[list[Candidate]]:
        """The augmenter's output checked, as Candidates labelled with this step, with its rows' notes."""
        method = self.label
        noted = isinstance(output, (list, tuple)) and any(isinstance(row, GeneratedRow) for row in output)
        notes = [notes_of(row) for row in output] if noted else []
        rows = [
            [Candidate(item, method) if type(item) is str else self._candidate(item) for item in row]
            for row in checked_output(method, texts, output, n)
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

    def leaves(self) -> list[GeneratorLeaf]:
        return [self]


class InterleaveNode:
    """Members' candidates for each text, interleaved round-robin (:class:`~augkit.pipeline.compose.Interleave`)."""

    def __init__(self, members: list):
        self.members = members
        self.label = "+".join(m.label for m in members)
        self.spec = "+".join(m.spec for m in members)

    def generate(self, texts: list[str], n: int, seed: int, context: BatchContext) -> list[list[Candidate]]:
        per_member = [member.generate(texts, n, seed, context) for member in self.members]
        return [with_notes(_interleave([rows[i] for rows in per_member]), *merged_notes(rows[i] for rows in per_member))
                for i in range(len(texts))]

    def leaves(self) -> list[GeneratorLeaf]:
        return [leaf for member in self.members for leaf in member.leaves()]


class ChainNode:
    """Steps applied in sequence, each later one rewriting every candidate once (:class:`~augkit.pipeline.compose.Chain`)."""

    def __init__(self, steps: list):
        self.steps = steps
        self.label = ">".join(s.label for s in steps)
        self.spec = ">".join(f"({s.spec})" if isinstance(s, InterleaveNode) else s.spec for s in steps)

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

    def leaves(self) -> list[GeneratorLeaf]:
        return [leaf for step in self.steps for leaf in step.leaves()]


def _interleave(lists: list[list[Candidate]]) -> list[Candidate]:
    merged = []
    for position in range(max((len(items) for items in lists), default=0)):
        merged.extend(items[position] for items in lists if position < len(items))
    return merged


def feedback_rounds_of(generator: Any) -> int:
    """The feedback rounds a pipeline's generator asks for (:meth:`augkit.Augmenter.feedback_rounds`):
    its lone augmenter's; a union or chain holding one that asks for rounds is refused, since a
    round asks one method again for its own rejected candidates."""
    if isinstance(generator, GeneratorLeaf):
        return check_int("feedback rounds", generator.augmenter.feedback_rounds(), minimum=0)
    asking = [leaf.label for leaf in generator.leaves() if leaf.augmenter.feedback_rounds()]
    if asking:
        raise UsageError(f"{', '.join(repr(label) for label in asking)} asks for feedback rounds, which only a pipeline's "
                         f"lone generator may do; {generator.spec!r} composes several: run it alone, or without feedback")
    return 0


def build_generator(obj: Any, seen: Counter, registry: Registry):
    if isinstance(obj, Interleave):
        return InterleaveNode([build_generator(m, seen, registry) for m in obj.members])
    if isinstance(obj, Chain):
        return ChainNode([build_generator(s, seen, registry) for s in obj.steps])
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
    return GeneratorLeaf(obj, key)

