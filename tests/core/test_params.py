"""Constructor parameters: described from signature and docstring, checked, typed from CLI."""

from __future__ import annotations

import re

import pytest

import augkit
from augkit.errors import InvalidParameterError, UnknownParameterError
from augkit.steps.params import (
    REQUIRED,
    check_parameters,
    describe_parameters,
    parse_cli_value,
    parse_docstring_parameters,
)


class NumpyDoc:
    """Does a thing.

    Parameters
    ----------
    ratio : float
        Share of words
        changed.
    name : str
        A label.

    Examples
    --------
    >>> NumpyDoc()
    """

    def __init__(self, ratio: float = 0.3, name: str = "x", flag: bool = False, *, count: int):
        pass


class GoogleDoc:
    """Does a thing.

    Args:
        ratio (float): Share of words.
        marks: The marks to use,
            several of them.
    """

    def __init__(self, ratio=0.3, marks=(".", ","), **extra):
        pass


def test_numpy_docstring_and_signature_are_described():
    params = {p.name: p for p in describe_parameters(NumpyDoc)}
    assert list(params) == ["ratio", "name", "flag", "count"]
    assert params["ratio"].default == 0.3 and params["ratio"].annotation == "float"
    assert params["ratio"].doc == "Share of words changed."
    assert params["name"].doc == "A label."
    assert params["flag"].doc == ""
    assert params["count"].required and params["count"].default is REQUIRED


def test_google_docstring_is_parsed():
    docs = parse_docstring_parameters(GoogleDoc.__doc__)
    assert docs == {"ratio": "Share of words.", "marks": "The marks to use, several of them."}


def test_unknown_parameter_lists_the_valid_ones():
    with pytest.raises(UnknownParameterError) as caught:
        check_parameters(NumpyDoc, "numpydoc", {"rato": 1})
    assert str(caught.value) == (
        "unknown parameter 'rato' for 'numpydoc'; did you mean 'ratio'? valid parameters: count, flag, name, ratio"
    )


def test_kwargs_constructor_accepts_any_parameter():
    check_parameters(GoogleDoc, "googledoc", {"anything": 1})


@pytest.mark.parametrize(
    "name, raw, expected",
    [("ratio", "0.5", 0.5), ("name", "0.5", "0.5"), ("flag", "yes", True), ("flag", "False", False), ("count", "7", 7)],
)
def test_cli_values_take_the_declared_type(name, raw, expected):
    parameter = {p.name: p for p in describe_parameters(NumpyDoc)}[name]
    value = parse_cli_value(parameter, raw)
    assert value == expected and type(value) is type(expected)


def test_cli_values_without_a_type_are_literals_or_strings():
    assert parse_cli_value(None, "[1, 2]") == [1, 2]
    assert parse_cli_value(None, "hello") == "hello"


def test_cli_value_of_the_wrong_type_is_a_clear_error():
    parameter = {p.name: p for p in describe_parameters(NumpyDoc)}["ratio"]
    with pytest.raises(InvalidParameterError, match="'ratio' expects float, got 'lots'"):
        parse_cli_value(parameter, "lots")


@pytest.mark.parametrize(("spec", "message"), [
    ("eda|numbers(words_as_numbers=maybe)", "numbers: words_as_numbers must be True or False, got 'maybe'"),
    ("eda|dedup(ignore_case=1)", "dedup: ignore_case must be True or False, got 1"),
    ("eda(alpha_sr=lots)", "eda: alpha_sr must be a number (float), got 'lots'"),
    ("eda(alpha_sr=True)", "eda: alpha_sr must be a number (float), got True"),
])
def test_a_value_of_the_wrong_kind_is_refused_not_coerced(spec, message):
    with pytest.raises(augkit.InvalidParameterError, match=re.escape(message)):
        augkit.Pipeline.from_string(spec)


@pytest.mark.parametrize(("word", "value"), [("no", False), ("false", False), ("Off", False), ("true", True), ("yes", True)])
def test_bool_words_in_a_pipeline_string_mean_what_they_say(word, value):
    # bool("no") is True: a bare word once switched a filter option on when it meant off
    pipeline = augkit.Pipeline.from_string(f"eda|numbers(words_as_numbers={word})")
    assert pipeline.filters[-1].words_as_numbers is value


def test_a_class_is_described_again_when_its_init_or_docstring_changes():
    """describe_parameters remembers what it read of a class, but not past a change to it."""

    class Shout:
        """Parameters
        ----------
        marks : int
            How many exclamation marks.
        """

        def __init__(self, marks: int = 1): ...

    first = describe_parameters(Shout)
    assert describe_parameters(Shout) is first  # read once
    Shout.__doc__ = "Parameters\n----------\nmarks : int\n    How loud.\n"
    assert describe_parameters(Shout)[0].doc == "How loud."

    def louder(self, marks: int = 3, times: int = 2): ...

    Shout.__init__ = louder
    assert [(p.name, p.default) for p in describe_parameters(Shout)] == [("marks", 3), ("times", 2)]
