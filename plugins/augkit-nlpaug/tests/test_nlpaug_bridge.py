"""The nlpaug bridge: every spec registered with nlpaug's own parameters, every offline method
run on real texts, bad parameters refused by name, the command line."""

from __future__ import annotations

import inspect
import random

import pandas as pd
import pytest
from augkit_nlpaug import BRIDGED, SPECS
from augkit_nlpaug.specs import OFFLINE, WORDNET

import augkit
from augkit.testing import run_command

#: nlpaug constructor parameters the bridge does not expose, and why (see specs.py).
NOT_EXPOSED = {"name", "verbose", "tokenizer", "reverse_tokenizer", "force_reload", "silence", "use_custom_api", "batch_size",
               "model"}
OFFLINE_SPECS = [spec for spec in SPECS if spec.needs in (OFFLINE, WORDNET)]


def nlpaug_class(spec):
    import importlib

    return getattr(importlib.import_module(spec.module), spec.class_name)


def test_every_spec_is_a_registered_method_of_the_nlpaug_plugin():
    registry = augkit.get_registry()
    for spec in SPECS:
        entry = registry.method(spec.name)
        assert entry.cls is BRIDGED[spec.name]
        assert entry.plugin.distribution == "augkit-nlpaug"
    assert not [p for p in registry.problems if "nlpaug" in p]


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_exposed_parameters_are_nlpaugs_own_with_its_defaults(spec):
    nlpaug_params = inspect.signature(nlpaug_class(spec).__init__).parameters
    # by nlpaug's own names (augkit's naming table renames some: max_new_tokens is max_length);
    # device is augkit's "auto" (resolved before nlpaug sees it), not nlpaug's "cpu"
    passed_as = {p.name: p.passed_as for p in spec.params}
    exposed = {passed_as.get(p.name, p.name): p.default for p in BRIDGED[spec.name].parameters()}
    for name, default in exposed.items():
        assert name in nlpaug_params, f"{spec.name}: {name} is not a parameter of {spec.nlpaug_class}"
        assert default == ("auto" if name == "device" else nlpaug_params[name].default), f"{spec.name}: {name}"
    left_out = set(nlpaug_params) - set(exposed) - {"self"}
    assert left_out <= NOT_EXPOSED, f"{spec.name}: nlpaug parameters neither exposed nor deliberately hidden: {left_out - NOT_EXPOSED}"


@pytest.mark.parametrize("spec", OFFLINE_SPECS, ids=lambda spec: spec.name)
def test_every_offline_method_augments_real_texts_through_augment(spec, banking77_texts, banking77_multi_sentence, wordnet_for_nltk):
    texts = banking77_multi_sentence if spec.name == "nlpaug.random_sentence" else banking77_texts
    frame = pd.DataFrame({"text": texts, "label": range(len(texts))})
    out = augkit.augment(frame, spec.name, n=2, seed=0, label_column="label")
    made = out[out["augkit_method"].notna()]  # originals have none
    assert len(made) > 0, f"{spec.name} changed none of {len(texts)} texts"
    for _, row in made.iterrows():
        source = frame.loc[row["augkit_source"]]
        assert row["text"] != source["text"]
        assert row["label"] == source["label"]  # labels ride along
    assert set(made["augkit_method"]) == {spec.name}


def test_pipeline_strings_take_inline_and_qualified_parameters(banking77_texts, wordnet_for_nltk):
    inline = augkit.augment(banking77_texts[:8], "nlpaug.synonym(aug_p=0.5)|dedup", n=2, seed=3)
    qualified = augkit.augment(banking77_texts[:8], "nlpaug.synonym|dedup", n=2, seed=3, **{"nlpaug.synonym.aug_p": 0.5})
    assert inline == qualified
    assert augkit.augment(banking77_texts[:8], "nlpaug.synonym+nlpaug.keyboard", n=2, seed=3) != inline


@pytest.mark.parametrize(
    "params, message",
    [
        ({"aug_pp": 0.2}, r"unknown parameter 'aug_pp' for 'nlpaug.synonym'; did you mean 'aug_p'"),
        ({"aug_p": "lots"}, r"aug_p must be a number"),
        ({"aug_p": 1.5}, r"aug_p is a share .* in \[0, 1\]"),
        ({"aug_src": "wordnett"}, r"unknown aug_src 'wordnett'; did you mean 'wordnet'"),
        ({"stopwords": "the"}, r"stopwords must be list\[str\] \| None, got 'the' \(a list: stopwords=\['the'\]\)"),
    ],
)
def test_bad_parameters_are_refused_naming_what_is_wrong(params, message, banking77_texts, wordnet_for_nltk):
    with pytest.raises(augkit.UsageError, match=message):
        augkit.augment(banking77_texts[:2], "nlpaug.synonym", n=1, seed=0, **params)


def test_direct_construction_checks_names_and_types_too(wordnet_for_nltk):
    with pytest.raises(augkit.UnknownParameterError, match="did you mean 'action'"):
        BRIDGED["nlpaug.random_word"](acton="swap")
    with pytest.raises(augkit.InvalidParameterError, match="unknown action 'swapp'"):
        BRIDGED["nlpaug.random_word"](action="swapp")
    with pytest.raises(augkit.InvalidParameterError, match="aug_min must be int"):
        BRIDGED["nlpaug.random_word"](aug_min=1.5)


def test_info_lists_the_nlpaug_parameters_with_defaults(capsys):
    assert run_command(["info", "nlpaug.random_word"]) == 0
    shown = capsys.readouterr().out
    for expected in ("action", "delete", "aug_p", "0.3", "swap, delete, crop, substitute", "RandomWordAug"):
        assert expected in shown


def test_the_command_line_augments_a_file_with_a_typed_parameter(tmp_path, banking77_texts, capsys, wordnet_for_nltk):
    source = tmp_path / "data.csv"
    pd.DataFrame({"text": banking77_texts[:10], "label": range(10)}).to_csv(source, index=False)
    out = tmp_path / "out.csv"
    code = run_command(["augment", str(source), "-m", "nlpaug.random_word", "-n", "2", "-p", "action=swap", "-p", "aug_p=0.5",
                 "--seed", "1", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    written = pd.read_csv(out)
    assert (written["augkit_method"] == "nlpaug.random_word").sum() > 0
    swapped = written[written["augkit_method"] == "nlpaug.random_word"]
    for _, row in swapped.iterrows():  # a swap keeps the characters (nlpaug re-cases and re-spaces)
        original = banking77_texts[int(row["augkit_source"])]
        assert sorted(row["text"].lower().replace(" ", "")) == sorted(original.lower().replace(" ", ""))
    assert run_command(["augment", str(source), "-m", "nlpaug.random_word", "-p", "action=shuffle", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "unknown action 'shuffle'" in err, err


def test_a_method_pickles_without_its_nlpaug_object_and_rebuilds_it(banking77_texts, wordnet_for_nltk):
    import pickle

    method = BRIDGED["nlpaug.synonym"](aug_p=0.4)
    copy = pickle.loads(pickle.dumps(method))
    assert copy.get_params() == method.get_params()
    text = banking77_texts[0]
    assert copy.augment(text, 3, random.Random(5)) == method.augment(text, 3, random.Random(5))


def test_registering_the_methods_imports_neither_nlpaug_nor_numpy(loaded_by_import):
    """Every augkit command loads the plugins: nlpaug (which imports torch) waits for a method."""
    assert loaded_by_import("augkit_nlpaug", ["nlpaug", "numpy", "torch", "nltk", "textblob"]) == []


def test_an_output_that_only_respaces_the_text_is_no_augmentation(shared_data):
    """nlpaug detokenizes what it returns ("Aspen ?" comes back "Aspen?"): on TREC questions,
    whose punctuation is spaced, such an output must not count as an augmentation."""
    from augkit.plugin import spacing_key

    lines = (shared_data / "trec" / "sent-conv-torch" / "TREC.test.all").read_text(encoding="latin-1").splitlines()
    texts = [line.split(" ", 1)[1] for line in lines[:40]]
    out = augkit.augment(pd.DataFrame({"text": texts}), "nlpaug.synonym", n=2, seed=1, aug_p=0.2)
    augmented = out[out["augkit_method"].notna()]
    assert len(augmented) > 0
    for source, candidate in zip(augmented["augkit_source"], augmented["text"]):
        assert spacing_key(candidate) != spacing_key(texts[int(source)]), candidate
    for _, group in augmented.groupby("augkit_source"):
        assert len({spacing_key(text) for text in group["text"]}) == len(group)
    assert spacing_key("What is an atom ?") == spacing_key("What is an atom?") != spacing_key("What be an atom?")
