"""``augkit info METHOD``: a method's or filter's description, parameters, columns it reads,
own steps, scores, and the models it needs with where each loads from here."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from augkit.cli.exit_codes import EXIT_OK
from augkit.cli.listing import own_steps, scores_added
from augkit.errors import UsageError
from augkit.pipeline.param_options import parse_param_options
from augkit.steps.params import REQUIRED, Parameter, describe_any_keyword


def add_info_parser(commands) -> None:
    info = commands.add_parser("info", help="show a method's or filter's parameters and the models it needs")
    info.add_argument("method", metavar="METHOD")
    info.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                      help="a parameter, repeatable: the models listed are those it needs with these parameters")
    info.set_defaults(augkit_handler=show_info)


def show_info(args: argparse.Namespace) -> int:
    from augkit.errors import UnknownMethodError
    from augkit.registry.discovery import get_registry

    registry = get_registry()
    try:
        entry, kind = registry.method(args.method), "method"
    except UnknownMethodError:
        if args.method not in registry.filters:
            raise
        entry, kind = registry.filter(args.method), "filter"
    print(f"{entry.name} ({kind}) from plugin {entry.plugin.name!r}: {entry.plugin.distribution} {entry.plugin.version}")
    print(_docstring_body(entry.cls.__doc__))
    _print_row_context(entry.cls)
    any_keyword = describe_any_keyword(entry.cls)
    parameters = [*entry.cls.parameters(), *([any_keyword] if any_keyword else [])]
    print()
    print("Parameters:" if parameters else "Parameters: none")
    for parameter in parameters:
        print(f"  {_signature(parameter)}")
        if parameter.doc:
            print(textwrap.fill(parameter.doc, width=88, initial_indent="      ", subsequent_indent="      "))
    if kind == "method":
        print()
        print("Protected spans (protect=, --protect-column, codes): "
              + ("kept by the method itself" if getattr(entry.cls, "protects", False)
                 else "not seen by the method; a candidate that loses one is dropped by the pipeline's 'protected' step"))
    own = own_steps(entry.cls) if kind == "method" else []
    if own:
        print()
        print(f"Its own steps (with default parameters), run on its candidates before yours: {' | '.join(step.name for step in own)}")
    scores = scores_added(entry.cls, kind.upper())
    print()
    print(f"Scores added: {', '.join(scores)} (output columns {', '.join('augkit_' + s for s in scores)})"
          if scores else "Scores added: none")
    _print_models(entry, kind, parse_param_options(args.param, args.method))
    return EXIT_OK


def _print_models(entry, kind: str, params: dict[str, Any]) -> None:
    """The models the method or filter needs with ``params`` (its own steps' included), where
    each loads from here, and how to provide the missing ones."""
    from augkit.errors import ModelNotAvailableError
    from augkit.models.hub_access import forget_hub_answer
    from augkit.models.needs import how_to_provide, locate
    from augkit.steps.params import instantiate

    print()
    with_what = "these parameters" if params else "default parameters"
    try:
        step = instantiate(entry.cls, entry.name, params)
        if kind == "method":
            from augkit.pipeline.pipeline import Pipeline

            needs = Pipeline(step, dedup=False).required_models()
        else:
            needs = list(step.required_models())
    except ModelNotAvailableError as error:  # a step that loads its models when built checked them then
        print(f"Models (with {with_what}): {error}")
        return
    except UsageError:
        if params:
            raise
        print(f"Models: cannot tell without its required parameters (augkit info {entry.name} -p KEY=VALUE)")
        return
    if not needs:
        print(f"Models (with {with_what}): none to load")
        return
    print(f"Models (with {with_what}), and where each loads from here:")
    forget_hub_answer()
    located = [locate(need) for need in needs]
    for place in located:
        print(f"  {place.need.described()}")
        print(f"      {'found: ' + place.found if place.found else 'NOT AVAILABLE: ' + place.missing}")
    advice = how_to_provide([place for place in located if place.missing])
    if advice:
        text = "\n".join(line.removeprefix("  ") for line in advice)
        print(text[:1].upper() + text[1:])


def _print_row_context(cls: type) -> None:
    """What a method reads and writes beyond the text: the columns to map, labels it sets."""
    reads = tuple(getattr(cls, "context_columns", ()))
    rewrites = tuple(getattr(cls, "rewrites_columns", ()))
    names = tuple(dict.fromkeys((*reads, *rewrites)))
    if names:
        print()
        print(f"Reads the columns: {', '.join(names)} (map each: --context-column NAME=COLUMN)")
        if rewrites:
            print(f"Rewrites the columns: {', '.join(rewrites)} (named in augkit_changed)")
    optional = tuple(name for name in getattr(cls, "optional_context_columns", ()) if name not in names)
    if optional:
        print()
        print(f"Reads, when mapped: {', '.join(optional)} (--context-column NAME=COLUMN; used only if given)")
    optional_rewrites = tuple(name for name in getattr(cls, "optional_rewrites_columns", ()) if name not in names)
    if optional_rewrites:
        print()
        print(f"Reads and rewrites, when mapped: {', '.join(optional_rewrites)} (--context-column NAME=COLUMN; "
              "named in augkit_changed)")
    if getattr(cls, "sets_label", False):
        print("Sets the labels of the rows it writes (needs --label-column; the old label goes to augkit_label_from)")


def _signature(parameter: Parameter) -> str:
    text = parameter.name
    if parameter.annotation:
        text += f": {parameter.annotation}"
    if parameter.default is not REQUIRED:
        text += f" = {parameter.default!r}"
    return text


def _docstring_body(doc: str | None) -> str:
    """The docstring's paragraphs before its parameter section, as written (the first line
    is not indented like the others)."""
    first, _, rest = (doc or "").strip().partition("\n")
    lines = [first.strip(), *textwrap.dedent(rest).splitlines()]
    body = []
    for line in lines:
        if line.strip() in {"Parameters", "Args:", "Arguments:", "Example::", "Examples"}:
            break
        body.append(line)
    return "\n".join(body).strip()
