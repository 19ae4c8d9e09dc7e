"""Pipelines: union, chain, filters, the string form and parameter routing."""

from __future__ import annotations

import random

import pytest

import augkit
from augkit.pipeline.spec import parse_pipeline_spec


class Numbered(augkit.Augmenter):
    """Deterministic test generator: '<text> #<tag><i>' for i < n."""

    name = "numbered"

    def __init__(self, tag: str = "a"):
        self.tag = tag

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        return [f"{text} #{self.tag}{i}" for i in range(n)]


class Echo(augkit.Augmenter):
    """Returns the source and a duplicate candidate."""

    name = "echo"

    def augment(self, text, n, rng):
        return [text, text + " x", text + "  x", text + " y"][:n]


class KeepShort(augkit.Filter):
    """Keeps candidates no longer than the source plus ``extra`` characters."""

    name = "keep-short"
    scores = ("extra_chars",)

    def __init__(self, extra: int = 3):
        self.extra = extra

    def filter(self, source, candidates):
        for candidate in candidates:
            candidate.scores["extra_chars"] = float(len(candidate.text) - len(source))
        return [c for c in candidates if len(c.text) <= len(source) + self.extra]


def test_union_interleaves_members():
    pipeline = augkit.Pipeline(augkit.Interleave(Numbered("a"), Numbered("b")))
    rows, _ = pipeline.run(["t"], 3, seed=0)
    assert [c.text for c in rows[0]] == ["t #a0", "t #b0", "t #a1"]


def test_chain_rewrites_each_candidate_and_labels_it():
    pipeline = augkit.Pipeline(augkit.Chain(Numbered("a"), Numbered("b")))
    rows, _ = pipeline.run(["t"], 2, seed=0)
    assert [(c.text, c.method) for c in rows[0]] == [("t #a0 #b0", "numbered>numbered"), ("t #a1 #b0", "numbered>numbered")]


def test_dedup_runs_by_default_and_can_be_turned_off():
    rows, _ = augkit.Pipeline(Echo()).run(["s"], 4, seed=0)
    assert [c.text for c in rows[0]] == ["s x", "s y"]
    rows, _ = augkit.Pipeline(Echo(), dedup=False).run(["s"], 4, seed=0)
    assert len(rows[0]) == 4


def test_filter_scores_become_provenance_columns(banking77_10shot):
    frame = banking77_10shot.head(4)
    out = augkit.augment(frame, augkit.Pipeline(Numbered("z"), [KeepShort(extra=10)]), n=2, seed=0)
    augmented = out[out["augkit_method"].notna()]
    assert (augmented["augkit_extra_chars"] == 4.0).all()
    assert out.loc[out["augkit_method"].isna(), "augkit_extra_chars"].isna().all()


def test_reason_names_the_filter_that_removed_everything(banking77_10shot):
    frame = banking77_10shot.head(3)
    out = augkit.augment(frame, augkit.Pipeline(Numbered("long-tag"), [KeepShort(extra=1)]), n=2, seed=0)
    assert out.attrs["augkit_report"]["without_augmentation"] == {"all candidates removed by filter 'keep-short'": 3}


def test_oversample_asks_for_more_and_keeps_n():
    pipeline = augkit.Pipeline(Numbered(), oversample=2.5)
    rows, _ = pipeline.run(["t"], 2, seed=0)
    assert [c.text for c in rows[0]] == ["t #a0", "t #a1"]
    calls = []

    class Spy(Numbered):
        def augment(self, text, n, rng):
            calls.append(n)
            return super().augment(text, n, rng)

    augkit.Pipeline(Spy(), oversample=2.5).run(["t"], 2, seed=0)
    assert calls == [5]


def test_string_form_parses_and_round_trips():
    pipeline = augkit.Pipeline.from_string("eda(alpha_sr=0.2)+aeda|dedup(ignore_case=True)")
    assert pipeline.spec == "eda(alpha_sr=0.2)+aeda|dedup(ignore_case=True)"
    assert pipeline.name == "eda+aeda"
    assert augkit.Pipeline.from_string("eda>aeda").spec == "eda>aeda|dedup"


def test_parameters_route_to_the_single_method_or_by_qualified_name():
    assert augkit.Pipeline.from_string("eda", {"alpha_sr": 0.3}).spec == "eda(alpha_sr=0.3)|dedup"
    qualified = augkit.Pipeline.from_string("eda+aeda", {"aeda.punc_ratio": 0.5})
    assert qualified.spec == "eda+aeda(punc_ratio=0.5)|dedup"
    with pytest.raises(augkit.PipelineSpecError, match="ambiguous"):
        augkit.Pipeline.from_string("eda+aeda", {"alpha_sr": 0.3})
    with pytest.raises(augkit.PipelineSpecError, match="given twice"):
        augkit.Pipeline.from_string("eda(alpha_sr=0.1)", {"alpha_sr": 0.3})


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "empty pipeline"),
        ("eda+", "empty step"),
        ("eda(alpha_sr=0.2", "unclosed bracket"),
        ("eda(0.2)", "must be key=value"),
        ("eda(alpha_sr=open())", "not a literal"),
        ("e d a", "cannot parse pipeline step"),
    ],
)
def test_bad_strings_say_what_is_wrong(spec, message):
    with pytest.raises(augkit.PipelineSpecError, match=message):
        parse_pipeline_spec(spec)


def test_quoted_separators_inside_arguments_do_not_split():
    spec = parse_pipeline_spec("aeda(punctuation=['|', '+'])|dedup")
    assert spec.generator[0][0].args == {"punctuation": ["|", "+"]}
    assert [f.name for f in spec.filters] == ["dedup"]


def test_repeated_method_in_a_union_draws_its_own_randomness(banking77_sentences):
    pairs, _ = augkit.Pipeline(augkit.Interleave("aeda", "aeda"), dedup=False).run(banking77_sentences[:20], 2, seed=0)
    different = sum(row[0].text != row[1].text for row in pairs)
    assert different >= 15  # the second aeda is not a copy of the first


@pytest.mark.parametrize("spec", [
    "[dedup=False] eda",
    "[oversample=2.5] eda(alpha_sr=0.2)+aeda|dedup",
    "[dedup=False, oversample=2.0] (eda+aeda)>aeda",
    "eda>(aeda+eda(alpha_rs=0.3))|dedup",
])
def test_a_pipelines_string_form_round_trips(spec, banking77_sentences):
    pipeline = augkit.Pipeline.from_string(spec)
    again = augkit.Pipeline.from_string(pipeline.spec)
    assert again.spec == pipeline.spec
    assert (again.dedup, again.oversample) == (pipeline.dedup, pipeline.oversample)
    texts = banking77_sentences[:15]
    assert again.run(texts, 3, seed=2) == pipeline.run(texts, 3, seed=2)


def test_a_python_pipelines_options_survive_its_string_form():
    pipeline = augkit.Pipeline(augkit.Chain(augkit.Interleave("eda", "aeda"), "aeda"), dedup=False, oversample=2.0)
    assert pipeline.spec == "[dedup=False, oversample=2.0] (eda+aeda)>aeda"
    assert augkit.Pipeline.from_string(pipeline.spec).spec == pipeline.spec


def test_bad_pipeline_options_in_the_string_are_refused():
    with pytest.raises(augkit.PipelineSpecError, match="unknown pipeline option"):
        augkit.Pipeline.from_string("[shuffle=True] eda")
    with pytest.raises(augkit.PipelineSpecError, match="both in the string"):
        augkit.Pipeline.from_string("[dedup=False] eda", dedup=True)
    with pytest.raises(augkit.PipelineSpecError, match="unclosed"):
        augkit.Pipeline.from_string("[dedup=False eda")


def test_a_pipeline_resolves_names_in_the_registry_it_is_given():
    from augkit.registry.registered import Registry

    empty = Registry()
    with pytest.raises(augkit.UnknownMethodError):
        augkit.Pipeline("eda", registry=empty)
    with pytest.raises(augkit.UnknownMethodError):
        augkit.Pipeline.from_string("eda|dedup", registry=empty)


def test_union_is_gone_after_its_release_of_deprecation():
    """``augkit.Union`` warned for one release that it is now ``augkit.Interleave``; it is
    removed, from the package and from the module that defined it."""
    from augkit.pipeline import compose

    assert not hasattr(augkit, "Union") and "Union" not in augkit.__all__
    assert not hasattr(compose, "Union")


class DottedShout(augkit.Augmenter):
    """A bridge-style method whose name has a namespace (``peer.shout``)."""

    name = "peer.shout"

    def __init__(self, marks: int = 1):
        self.marks = marks

    def augment(self, text, n, rng):
        return [text.upper() + "!" * (self.marks + i) for i in range(n)]


def _registry_with_dotted_method():
    from augkit.registry.discovery import get_registry
    from augkit.registry.registered import PluginInfo, Registry

    registry = Registry(methods=dict(get_registry().methods), filters=dict(get_registry().filters))
    registry.add_augmenter(DottedShout, plugin=PluginInfo("peer", "dist-peer", "1"))
    assert registry.problems == []
    return registry


def test_dotted_method_names_parse_take_inline_arguments_and_filters():
    spec = parse_pipeline_spec("peer.shout(marks=2)|dedup")
    assert spec.generator[0][0].name == "peer.shout"
    assert spec.generator[0][0].args == {"marks": 2}
    pipeline = augkit.Pipeline.from_string("peer.shout(marks=2)|dedup", registry=_registry_with_dotted_method())
    assert pipeline.spec == "peer.shout(marks=2)|dedup"
    with pytest.raises(augkit.PipelineSpecError, match="cannot parse pipeline step"):
        parse_pipeline_spec("peer.|dedup")


def test_qualified_parameters_of_a_dotted_method_route_by_its_full_name():
    registry = _registry_with_dotted_method()
    pipeline = augkit.Pipeline.from_string("peer.shout+aeda", {"peer.shout.marks": 3}, registry=registry)
    assert pipeline.spec == "peer.shout(marks=3)+aeda|dedup"
    with pytest.raises(augkit.PipelineSpecError, match="names step 'peer'"):
        augkit.Pipeline.from_string("peer.shout+aeda", {"peer.marks": 3}, registry=registry)
