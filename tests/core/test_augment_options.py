"""augment()'s options are defined once (augkit.augment_options): augment_with_report, the
engine's RunOptions, the registry's reserved names and augment's own spelling follow it."""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import augkit
from augkit.augment_options import (
    DEFAULT_OPTIONS,
    OPTION_NAMES,
    RESERVED_PARAMETERS,
    AugmentOptions,
    options_signature,
    spells_augment_options,
)
from augkit.engine.run_options import RunOptions
from augkit.registry.registered import PluginInfo, Registry

PLUGIN = PluginInfo("p", "dist-p", "1")


class ProtectingAugmenter(augkit.Augmenter):
    """A plugin that names its parameter like augment's ``protect=``."""

    name = "protecting"

    def __init__(self, protect: str | None = None):
        self.protect = protect


def augmenter_taking(parameter: str) -> type:
    """A plugin augmenter class whose constructor takes one keyword, ``parameter``."""
    def __init__(self, **given: Any) -> None:
        self.given = given

    __init__.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter(parameter, inspect.Parameter.KEYWORD_ONLY, default=None),
    ])
    return type(f"Takes_{parameter}", (augkit.Augmenter,), {"name": f"takes-{parameter}", "__init__": __init__})


def test_a_plugin_parameter_named_protect_is_refused_at_registration_saying_why():
    registry = Registry()
    registry.add_augmenter(ProtectingAugmenter, plugin=PLUGIN)
    assert "protecting" not in registry.methods
    assert registry.problems == [
        "plugin 'p' (dist-p): augmenter 'protecting' uses reserved parameter name(s) protect: augkit.augment takes "
        "it itself, so no value could reach the augmenter; rename it (augkit.plugin.RESERVED_PARAMETERS lists "
        "every reserved name)"
    ]


@pytest.mark.parametrize("option", OPTION_NAMES)
def test_every_option_of_augment_is_a_reserved_name_a_plugin_cannot_take(option):
    registry = Registry()
    registry.add_augmenter(augmenter_taking(option), plugin=PLUGIN)
    registry.add_filter(type(f"Filter_{option}", (augkit.Filter,), {"name": f"f-{option}",
                                                                      "__init__": augmenter_taking(option).__init__}),
                        plugin=PLUGIN)
    assert not registry.methods and not registry.filters
    assert [f"uses reserved parameter name(s) {option}:" in problem for problem in registry.problems] == [True, True]


def test_reserved_names_are_exactly_augments_parameters_and_a_near_name_is_accepted():
    named = {p.name for p in inspect.signature(augkit.augment).parameters.values()
             if p.kind is not inspect.Parameter.VAR_KEYWORD}
    assert RESERVED_PARAMETERS == named
    registry = Registry()
    registry.add_augmenter(augmenter_taking("protected"), plugin=PLUGIN)
    assert "takes-protected" in registry.methods and not registry.problems


def test_augment_with_report_has_augments_signature_which_is_the_one_definition():
    face = inspect.signature(augkit.augment)
    report = inspect.signature(augkit.augment_with_report)
    assert list(report.parameters.values()) == list(face.parameters.values())
    assert report.return_annotation == "tuple[Any, AugmentationReport]"
    defined = options_signature()
    assert [p.name for p in face.parameters.values()] == [p.name for p in defined]
    assert [(p.kind, p.default) for p in face.parameters.values()] == [(p.kind, p.default) for p in defined]


def test_augment_with_report_binds_its_arguments_as_augment_does(shared_data):
    questions = [line.split(" ", 1)[1].strip()
                 for line in (shared_data / "trec" / "sent-conv-torch" / "TREC.test.all").read_text().splitlines()[:4]]
    by_position, report = augkit.augment_with_report(questions, "eda", 2, 3, protect="far", alpha_sr=0.3)
    assert by_position == augkit.augment(questions, "eda", n=2, seed=3, protect=["far"], alpha_sr=0.3)
    assert report.seed == 3
    with pytest.raises(TypeError, match="too many positional arguments"):
        augkit.augment_with_report(questions, "eda", 2, 3, "text")
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        augkit.augment_with_report(questions, "eda", 2, n=3)


def test_a_def_that_spells_augments_options_otherwise_is_refused_at_import():
    with pytest.raises(TypeError, match="batch_size: 'int' = 128"):
        @spells_augment_options
        def wrong_default(data: Any, method: Any, n: int = 1, seed: int | None = None, *, text_column: str | None = None,
                          label_column: str | None = None,
                          context_columns: Mapping[str, str] | Sequence[str] | None = None,
                          keep_original: bool = True, progress: bool | None = None, batch_size: int = 128,
                          **params: Any) -> None: ...
    with pytest.raises(TypeError, match="has 3 parameters"):
        @spells_augment_options
        def too_few(data: Any, method: Any, n: int = 1) -> None: ...


def test_the_engines_run_options_default_to_augments():
    unchecked = {name: value for name, value in vars(RunOptions()).items() if name != "protect"}  # held checked
    assert unchecked == {name: getattr(DEFAULT_OPTIONS, name) for name in unchecked}
    assert RunOptions().checked().replace(seed=0) == RunOptions.of(AugmentOptions(seed=0)).checked()
    given = AugmentOptions(n=3, seed=5, batch_size=7, workers=2, progress=False, coerce=True, strict=True,
                           row_timeout=4.0, trace=True, protect="fare code|ATM", protect_codes=False)
    assert RunOptions.of(given).checked() == RunOptions(n=3, seed=5, batch_size=7, workers=2, progress=False,
                                                        coerce=True, strict=True, row_timeout=4.0, trace=True,
                                                        protect=("fare code", "ATM"), protect_codes=False)


def test_the_plugin_authors_guide_lists_every_reserved_name():
    guide = (Path(__file__).parents[2] / "docs" / "plugin-authors.md").read_text()
    listing = guide[guide.index("(`augkit.augment_options`): today"):].split("\nA class that uses one")[0]
    assert set(re.findall(r"`(\w+)`", listing)) == RESERVED_PARAMETERS
