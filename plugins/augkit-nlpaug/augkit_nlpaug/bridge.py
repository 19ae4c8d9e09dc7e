"""An augkit method for each nlpaug augmenter of :data:`augkit_nlpaug.specs.SPECS`.

:func:`bridge_class` turns a spec into an :class:`NlpaugAugmenter` subclass whose
constructor signature is the spec's parameters, so augkit's parameter checking, ``-p``
conversion and ``augkit info`` treat it like any hand-written method. The nlpaug object is
built when the method is constructed (so a wrong value or a missing model fails at once,
naming it), dropped when the method is pickled for a worker process and rebuilt there.

Each row is one nlpaug call, ``augment(text, n=n)``, inside :func:`global_randomness`: the
row's seed seeds nlpaug's global generators, so the same seed gives the same output
whatever the batching, workers or backend. Outputs equal to the text or to an earlier
output (words and punctuation compared: nlpaug re-spaces its outputs) are dropped (nlpaug
returns them when it finds nothing to change), so a row may get
fewer than ``n``; nothing is retried, so the bridge does exactly nlpaug's work. A row left
with nothing says why: nlpaug returned the text unchanged, or returned no text.
"""

from __future__ import annotations

import importlib
import inspect
import os
import random
from typing import Any, ClassVar

from augkit.plugin import (
    ROW_SEED_BITS,
    Augmenter,
    GeneratedRow,
    InvalidParameterError,
    MissingDependencyError,
    ModelNeed,
    ModelNotAvailableError,
    UnknownParameterError,
    check_models,
    did_you_mean,
    draw_seed,
    first_distinct,
    spacing_key,
    unknown_name_message,
)
from augkit_nlpaug.isolation import global_randomness
from augkit_nlpaug.offline import (
    model_not_available,
    offline_pos_tagger,
    require_wordnet,
)
from augkit_nlpaug.specs import ALWAYS, HUB_MODEL, SPECS, WORDNET, BridgeSpec, Param

#: ``isinstance(value, str)`` as one C call: what of nlpaug's outputs the bridge compares.
is_text = str.__instancecheck__
#: Why a row got nothing from nlpaug, in the words of the run's summary (``{method}``: the
#: method's name, ``{nlpaug_class}`` nlpaug's class, ``{why}`` what made nlpaug give the text
#: back: :data:`UNCHANGED_WHY`). nlpaug returns the text itself when it made nothing.
UNCHANGED = "{method}: nlpaug's {nlpaug_class} returned the text unchanged (up to spacing): {why}"
NO_TEXT = "{method}: nlpaug's {nlpaug_class} returned no text for it"
#: What makes nlpaug give the text back, by method (``{...}``: the method's parameter values);
#: the others found nothing they could change.
UNCHANGED_WHY = {
    "nlpaug.random_sentence": "a text of one sentence has no sentence to move",
    "nlpaug.summarize": ("the summary had no sentence end (nlpaug keeps a summary up to its last one); a larger "
                         "max_new_tokens= (now {max_new_tokens}) lets it finish a sentence"),
    "nlpaug.back_translation": "the round trip gave the text back",
    "nlpaug.contextual": "the masked language model predicted the words already there",
}
NOTHING_CHANGED = "it found nothing it could change"
#: ... and for a method with ``min_char``, what decides it for short words.
SHORT_WORDS = "; words shorter than min_char={min_char} are never changed (set min_char= lower for short words)"

class NlpaugAugmenter(Augmenter):
    """Base of the bridged nlpaug augmenters; each subclass carries its :class:`BridgeSpec`."""

    spec: ClassVar[BridgeSpec]
    #: nlpaug draws from global generators, which the bridge seeds with each row's seed
    row_seeds = True

    def _configure(self, given: dict[str, Any]) -> None:
        spec = self.spec
        declared = {p.name: p for p in spec.params}
        for name in given:
            if name not in declared:
                raise UnknownParameterError(unknown_name_message("parameter", name, list(declared), owner=spec.name))
        for param in spec.params:
            value = given.get(param.name, param.default)
            check_value(spec.name, param, value)
            setattr(self, param.name, value)
        self._nlpaug = self._build()

    def required_models(self) -> list[ModelNeed]:
        """The Hugging Face models nlpaug's class loads (none for the other methods)."""
        spec = self.spec
        return [ModelNeed(str(getattr(self, name)), spec.model_kind, name, f"nlpaug's {spec.class_name}")
                for name in spec.model_params]

    def _build(self) -> Any:
        """The nlpaug augmenter with this method's parameters, POS-tagged offline. Its models
        are checked first, all at once: nlpaug loads them here, and would spend a minute in
        the hub's retries on the first one missing."""
        spec = self.spec
        if spec.model_params:
            check_models(self.required_models(), spec.name)
        if spec.needs == WORDNET and getattr(self, "aug_src", "wordnet") == "wordnet":
            require_wordnet(spec.name)
        check_model_type(spec, getattr(self, "model_path", ""), getattr(self, "model_type", ""))
        try:
            nlpaug_class = getattr(importlib.import_module(spec.module), spec.class_name)
        except ImportError as error:
            raise MissingDependencyError(
                f"{spec.name} runs nlpaug's {spec.class_name}, and importing it failed ({error}): pip install augkit-nlpaug"
            ) from error
        accepted = inspect.signature(nlpaug_class.__init__).parameters
        kwargs = {p.passed_as: self._nlpaug_value(p) for p in spec.params}
        kwargs.update({k: v for k, v in {**ALWAYS, **spec.fixed}.items() if k in accepted})
        try:
            augmenter = nlpaug_class(**kwargs)
        except ModelNotAvailableError as error:  # a user-supplied model file (augkit_nlpaug.user_models)
            raise ModelNotAvailableError(f"{spec.name}: {error}") from error
        except MissingDependencyError:  # an extra the method needs (augkit_nlpaug.user_models): says which
            raise
        except Exception as error:  # nlpaug raises bare exceptions of any kind for bad input
            if spec.model_params:
                parameter = _missing_model_parameter(self, spec)
                raise model_not_available(spec.name, parameter, getattr(self, parameter), error) from error
            raise InvalidParameterError(f"{spec.name}: nlpaug's {spec.class_name} refused the parameters: {error}") from error
        if spec.needs == WORDNET and hasattr(augmenter.model, "pos_tag"):
            augmenter.model.pos_tag = offline_pos_tagger()  # this instance only, not nlpaug's class
        if spec.needs == HUB_MODEL:
            apply_model_settings(augmenter.model, {p.passed_as: self._nlpaug_value(p) for p in spec.params})
        if spec.name == "nlpaug.spelling":
            sort_misspellings(augmenter.model)
        self._reasons = _empty_row_reasons(spec, {p.name: getattr(self, p.name) for p in spec.params})
        return augmenter

    def _nlpaug_value(self, param: Param) -> Any:
        """The parameter's value as nlpaug takes it: ``device="auto"`` resolved to the device
        augkit's models would use, since nlpaug hands the string to torch as it is."""
        value = getattr(self, param.name)
        if param.name == "device" and value == "auto":
            from augkit.plugin import resolve_device

            return resolve_device(value)
        return value

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        """One text, nlpaug's generators seeded with a seed drawn from ``rng``."""
        return self.augment_batch([text], n, [draw_seed(rng, ROW_SEED_BITS)])[0]

    def augment_batch(self, texts: list[str], n: int, seeds: list[int]) -> list[list[str]]:
        """One nlpaug call per row, nlpaug's global generators seeded with the row's seed
        (:attr:`row_seeds`); they are saved and restored once per batch (a row's outputs are
        the same as alone)."""
        if self._nlpaug is None:
            self._nlpaug = self._build()
        rows = []
        with global_randomness(self.spec.draws_from) as seed_row:
            for text, seed in zip(texts, seeds, strict=True):
                seed_row(seed)
                outputs = self._nlpaug.augment(text, n=n)
                # nlpaug re-spaces what it returns ("Aspen ?" comes back "Aspen?"): an output
                # that differs from the text or an earlier output only in spacing is no change
                found = first_distinct(text, filter(is_text, outputs), n, key=spacing_key)
                if not found and n > 0:
                    unchanged, no_text = self._reasons
                    found = GeneratedRow([], reason=unchanged if any(map(is_text, outputs or ())) else no_text)
                rows.append(found)
        return rows

    def __getstate__(self) -> dict[str, Any]:
        # nlpaug's objects hold NLTK corpus readers and models: rebuilt in the worker instead
        return {**self.__dict__, "_nlpaug": None}


def _empty_row_reasons(spec: BridgeSpec, values: dict[str, Any]) -> tuple[str, str]:
    """Why a method's row got nothing when nlpaug returned the text unchanged, and when it
    returned no text, with the method's parameter ``values``."""
    why = UNCHANGED_WHY.get(spec.name, NOTHING_CHANGED)
    if "min_char" in values:
        why += SHORT_WORDS
    fields = {"method": spec.name, "nlpaug_class": spec.class_name}
    return UNCHANGED.format(why=why.format(**values), **fields), NO_TEXT.format(**fields)


#: The settings nlpaug copies onto a cached model when a new augmenter finds it in its cache.
MODEL_SETTINGS = ("min_length", "max_length", "temperature", "top_k", "top_p", "batch_size")


def sort_misspellings(model: Any) -> None:
    """Put each word's misspellings in a fixed order, in place: nlpaug's ``Spelling`` model
    de-duplicates them through a ``set``, whose order follows Python's string hashing, which
    changes with every process (``PYTHONHASHSEED``); the same seed then picked other
    misspellings in another process. Sorted is one of the orders nlpaug could have had."""
    for misspellings in model.dict.values():
        misspellings.sort()


def apply_model_settings(model: Any, values: dict[str, Any]) -> None:
    """Give an nlpaug model of its own the method's settings, as nlpaug's cache hit does:
    its fresh load leaves some out (the GPT-2 continuation's ``top_p``), so without this a
    process's first instance would sample differently from the later ones."""
    for name in MODEL_SETTINGS:
        if name in values and hasattr(model, name):
            setattr(model, name, values[name])


def check_model_type(spec: BridgeSpec, model_path: str, model_type: str) -> None:
    """Refuse a ``model_type`` nlpaug's class does not take, and an empty one nlpaug could not
    read from ``model_path``'s name: nlpaug would fail later with "Model name value is
    unexpected", where the fix is one parameter."""
    if not spec.model_types:
        return
    choices = " or ".join(f"model_type={value!r}" for value in spec.model_types)
    if model_type and model_type not in spec.model_types:
        raise InvalidParameterError(f"{spec.name}: model_type={model_type!r} is not one nlpaug runs here: pass {choices}")
    if not model_type and not any(marker in str(model_path).lower() for marker in spec.model_type_markers):
        raise InvalidParameterError(
            f"{spec.name}: model_type is empty and nlpaug reads the model family from model_path's name, "
            f"where {str(model_path)!r} names none of {', '.join(spec.model_type_markers)}: pass {choices}"
        )


def check_value(method: str, param: Param, value: Any) -> None:
    """Refuse a missing required value, a value of the wrong type or one outside the
    parameter's choices, naming both."""
    annotation = param.annotation
    if value is inspect.Parameter.empty:
        raise InvalidParameterError(f"{method}: {param.name} is required: {param.doc}")
    optional = isinstance(annotation, str) and annotation.endswith("| None")
    if value is None and optional:
        return
    if annotation is bool:
        ok = isinstance(value, bool)
    elif annotation is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif annotation is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif annotation is str or annotation == "str | None":
        ok = isinstance(value, str)
    elif annotation == "list[list[str]]":
        ok = isinstance(value, (list, tuple)) and all(
            isinstance(group, (list, tuple)) and all(isinstance(item, str) for item in group) for group in value)
    else:  # list[str] | None
        ok = isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value)
    if not ok:
        expected = annotation.__name__ if isinstance(annotation, type) else annotation
        hint = ""
        if annotation == "list[list[str]]" and isinstance(value, (str, list, tuple)):
            example = list(value) if isinstance(value, (list, tuple)) else [value, "..."]
            hint = f" (a list of lists of tokens that replace one another: {param.name}=[{example!r}])"
        elif isinstance(value, str) and "list" in str(annotation):
            hint = f" (a list: {param.name}=[{value!r}])"
        raise InvalidParameterError(f"{method}: {param.name} must be {expected}, got {value!r}{hint}")
    if param.choices and value not in param.choices:
        hint = did_you_mean(value, param.choices) or ";"
        raise InvalidParameterError(f"{method}: unknown {param.name} {value!r}{hint} choose from {', '.join(param.choices)}")
    if param.minimum is not None and value < param.minimum:
        raise InvalidParameterError(f"{method}: {param.name} must be at least {param.minimum}, got {value!r}: {param.doc}")
    if param.name.endswith("_p") and not 0 <= value <= 1:
        raise InvalidParameterError(f"{method}: {param.name} is a share of the words or characters, in [0, 1]; got {value!r}")


def _missing_model_parameter(method: NlpaugAugmenter, spec: BridgeSpec) -> str:
    """The first model parameter that is not a local folder (the one that failed, most likely)."""
    for name in spec.model_params:
        if not os.path.isdir(str(getattr(method, name))):
            return name
    return spec.model_params[0]


def bridge_class(spec: BridgeSpec) -> type[NlpaugAugmenter]:
    """An :class:`NlpaugAugmenter` subclass named after ``spec`` whose ``__init__`` takes
    exactly the spec's parameters as keywords, with their defaults and types."""

    def __init__(self: NlpaugAugmenter, **params: Any) -> None:
        self._configure(params)

    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default, annotation=p.annotation)
                   for p in spec.params]
    __init__.__signature__ = inspect.Signature(parameters)  # what augkit.steps.params reads
    __init__.__annotations__ = {p.name: p.annotation for p in spec.params}
    class_name = "Nlpaug" + "".join(part.capitalize() for part in spec.name.removeprefix("nlpaug.").split("_"))
    __init__.__qualname__ = f"{class_name}.__init__"
    return type(class_name, (NlpaugAugmenter,), {
        "__init__": __init__,
        "__doc__": _docstring(spec),
        "__module__": __name__,
        "__qualname__": class_name,
        "name": spec.name,
        "spec": spec,
        "uses_model": spec.needs == HUB_MODEL,
        # augkit's one name per idea (docs/plugin-authors.md): nlpaug's names work until 0.3
        "renamed_parameters": {p.nlpaug_name: p.name for p in spec.params if p.nlpaug_name},
    })


def _docstring(spec: BridgeSpec) -> str:
    """The class docstring: the spec's description, then its parameters in numpy style."""
    lines = [spec.description, "", f"Runs ``{spec.nlpaug_class}`` once per row, seeded by the row.", "",
             "Parameters", "----------"]
    for param in spec.params:
        kind = param.annotation.__name__ if isinstance(param.annotation, type) else param.annotation
        choices = f" One of: {', '.join(param.choices)}." if param.choices else ""
        lines += [f"{param.name} : {kind}", f"    {param.doc}{choices}"]
    return "\n".join(lines)


#: The bridged classes by augkit name; each is also an attribute of this module, so that a
#: method pickles for worker processes by reference like a hand-written one.
BRIDGED: dict[str, type[NlpaugAugmenter]] = {spec.name: bridge_class(spec) for spec in SPECS}
globals().update({cls.__name__: cls for cls in BRIDGED.values()})
