"""The ``pointer`` method end to end on a tiny random insertion model: keywords kept in order
in every output, seeded and batch-independent outputs (batch sizes, workers), its parameters
and errors, and the command line."""

from __future__ import annotations

import random
import re

import pandas as pd
import pytest
from augkit_pointer import POINTER
from augkit_pointer.keywords import extract_keywords

import augkit
from augkit.plugin import InvalidParameterError
from augkit.testing import run_command

pytest.importorskip("torch")

#: A random model's insertions say the same words over and over, which pointer refuses as
#: repetition loops by default (test_pointer_reasons.py): these tests of the mechanics keep them.
KEEP_LOOPS = {"refuse_loops": False}
#: No synonyms or swaps: every output must hold the source's own keywords in source order.
PLAIN = {"p_syn": 0.0, "p_shuf": 0.0, "max_stages": 2, **KEEP_LOOPS}


@pytest.fixture(scope="module")
def queries(shared_data) -> list[str]:
    """CLINC150 test queries (not BANKING77, which the tiny model's tokenizer was trained on)."""
    return (shared_data / "clinc150" / "jianguoz" / "test" / "seq.in").read_text(encoding="utf-8").splitlines()[:16]


def _in_order(text: str, keywords: list[str]) -> bool:
    position = 0
    for keyword in keywords:
        found = text.find(keyword, position)
        if found < 0:
            return False
        position = found + len(keyword)
    return True


def test_every_output_holds_the_sources_keywords_in_order(tiny_insertion_model, queries):
    method = POINTER(insertion_model=str(tiny_insertion_model), **PLAIN)
    n = 3
    rngs = [random.Random(f"0:{text}") for text in queries]
    lists = method.keyword_lists(queries, n, rngs)
    rngs = [random.Random(f"0:{text}") for text in queries]
    candidates = method.augment_batch(queries, n, rngs, context=None)
    for text, row_lists, row in zip(queries, lists, candidates, strict=True):
        own = [k.text for k in extract_keywords(text, random.Random(f"0:{text}"))]
        assert all(keywords == own for keywords in row_lists)  # no synonym, no swap
        assert row, f"no output for {text!r}"
        for candidate in row:
            assert _in_order(candidate.text, own), (own, candidate.text)
            assert candidate.method == "pointer"


def test_augmented_keyword_lists_are_what_the_outputs_are_built_around(tiny_insertion_model, queries):
    method = POINTER(insertion_model=str(tiny_insertion_model), p_syn=1.0, p_shuf=0.5, max_stages=1, **KEEP_LOOPS)
    lists = method.keyword_lists(queries, 4, [random.Random(i) for i in range(len(queries))])
    rows = method.augment_batch(queries, 4, [random.Random(i) for i in range(len(queries))], context=None)
    for row_lists, row in zip(lists, rows, strict=True):
        for candidate in row:
            assert any(_in_order(candidate.text, keywords) for keywords in row_lists), (row_lists, candidate.text)
    assert any(keywords != row_lists[0] for row_lists in lists for keywords in row_lists), "p_shuf=0.5 swapped nothing"


def test_same_seed_same_output_across_batch_sizes_and_workers(tiny_insertion_model, queries):
    params = {"insertion_model": str(tiny_insertion_model), "max_stages": 2, "do_sample": True, **KEEP_LOOPS}
    frame = pd.DataFrame({"text": queries, "label": range(len(queries))})
    first = augkit.augment(frame, "pointer", n=2, seed=7, **params)
    assert first.equals(augkit.augment(frame, "pointer", n=2, seed=7, batch_size=3, **params))
    assert first.equals(augkit.augment(frame, "pointer", n=2, seed=7, batch_size=5, workers=2, **params))
    other = augkit.augment(frame, "pointer", n=2, seed=8, **params)
    assert not first.equals(other)
    originals = first[first["augkit_method"].isna()] if "augkit_method" in first else first.iloc[: len(queries)]
    assert originals["text"].tolist() == queries and originals["label"].tolist() == list(range(len(queries)))


@pytest.mark.parametrize("bad, message", [
    ({"keywords": 0}, "keywords must be an integer >= 1"),
    ({"p_syn": 1.5}, "p_syn must be a probability in"),
    ({"p_shuf": "often"}, "p_shuf must be a probability in"),
    ({"max_stages": 0}, "max_stages must be an integer >= 1"),
    ({"top_p": 0.0, "do_sample": True}, "top_p must be a number in"),
    ({"insertion_model": ""}, "insertion_model must be a model id or folder"),
])
def test_bad_parameters_are_refused_by_name(bad, message):
    with pytest.raises(InvalidParameterError, match=message):
        POINTER(**bad)


def test_a_masked_lm_that_is_no_insertion_model_says_how_to_train_one(tiny_masked_lm, queries):
    with pytest.raises(Exception, match=r"augkit train pointer"):
        augkit.augment(queries[:2], "pointer", n=1, seed=0, insertion_model=str(tiny_masked_lm), p_syn=0.0)


def test_the_command_line_augments_a_table(tiny_insertion_model, queries, tmp_path, capsys):
    source = tmp_path / "queries.csv"
    pd.DataFrame({"text": queries[:6], "label": ["x"] * 6}).to_csv(source, index=False)
    out = tmp_path / "out.csv"
    code = run_command(["augment", str(source), "-m", "pointer", "-n", "2", "--seed", "0", "-o", str(out),
                    "-p", f"insertion_model={tiny_insertion_model}", "-p", "max_stages=2", "-p", "p_syn=0",
                    "-p", "refuse_loops=false"])
    assert code == 0
    table = pd.read_csv(out)
    assert table["text"].tolist()[:6] == queries[:6] or set(queries[:6]) <= set(table["text"])
    assert len(table) > 6
    assert run_command(["augment", str(source), "-m", "pointer", "-o", str(tmp_path / "x.csv"), "-p", "p_syn=2"]) == 2
    assert re.search(r"p_syn must be a probability", capsys.readouterr().err)


def test_a_missing_insertion_model_says_how_to_train_one(tmp_path, queries):
    from augkit.plugin import ModelNotAvailableError

    with pytest.raises(ModelNotAvailableError) as raised:
        augkit.augment(queries[:1], "pointer", n=1, seed=0, insertion_model=str(tmp_path / "no-model"), p_syn=0.0)
    assert "no such directory" in str(raised.value)
    assert "train one with `augkit train pointer CORPUS -o FOLDER`" in str(raised.value)
