"""Building a pipeline's steps: methods and filters by name from the registry, a spec string's
steps with the caller's parameters routed to them, a method's own follow-up steps, and the
check that every score a step reads is added by a step before it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from augkit.errors import InvalidParameterError, PipelineSpecError, UsageError
from augkit.pipeline.compose import Chain, Interleave
from augkit.pipeline.spec import GroupSpec, StepSpec, parse_pipeline_spec
from augkit.steps.augmenter import Augmenter
from augkit.steps.filter import Filter
from augkit.steps.params import did_you_mean

if TYPE_CHECKING:
    from augkit.pipeline.generation import GeneratorLeaf
    from augkit.registry.registered import Registry


def follow_up_steps(generator: Any, registry: Registry) -> list[Filter]:
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
    return [resolve_filter(step, registry) for step in declaring[0].augmenter.follow_up()]


def resolve_filter(obj: Any, registry: Registry) -> Filter:
    if isinstance(obj, str):
        return registry.create_filter(obj)
    if isinstance(obj, type) and issubclass(obj, Filter):
        return obj()
    if not isinstance(obj, Filter):
        raise UsageError(f"a pipeline filter must be a filter name or a Filter; got {type(obj).__name__}")
    return obj


def check_scores_read(leaves: list[GeneratorLeaf], filters: Sequence[Filter], registry: Registry) -> None:
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
    registry = default_registry()
    augmenters = [registry.method(step.name).cls for step in parsed.generator_steps()]
    filters = [registry.filter(step.name).cls for step in parsed.filters]
    return any(cls.uses_model for cls in augmenters + filters)


def generator_from_spec(generator: list[list[StepSpec | GroupSpec]], registry: Registry) -> Augmenter | Interleave | Chain:
    members = [_chain_from_spec(chain, registry) for chain in generator]
    return members[0] if len(members) == 1 else Interleave(*members)


def _chain_from_spec(chain: list[StepSpec | GroupSpec], registry: Registry) -> Augmenter | Interleave | Chain:
    links = [generator_from_spec(link.generator, registry) if isinstance(link, GroupSpec)
             else registry.create_augmenter(link.name, link.args) for link in chain]
    return links[0] if len(links) == 1 else Chain(*links)


def apply_params(leaves: list[StepSpec], filters: list[StepSpec], params: dict[str, Any], registry: Registry) -> None:
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


def default_registry():
    from augkit.registry.discovery import get_registry

    return get_registry()

