"""Every built-in method says why a row got no augmentation (issue 35): run through
:func:`augkit.augment_with_report` on BANKING77 validation rows read by no other test, with the
tiny models of the conftest (or a scripted chat server, or nlpaug models built from BANKING77),
each method's rows without output are counted by reason, the counts add up to the rows without
augmentation, and no reason is the generic "augmenter returned nothing".

The rows include what leaves each method without output: a bare "?" (no words for EDA and AEDA,
no keyword for ParaMac), a reaction "👍" (no keyword for POINTER), a text of short words
(nothing for nlpaug's character methods), texts of one sentence (nothing for nlpaug's sentence
mover), and the models' own faults (loops, copies, an oracle that finds no relation, a reply
without a JSON list)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.pipeline.run import NOTHING_GENERATED
from augkit.testing.scripted_chat import reply

#: Lines of BANKING77's validation split (0-based): two sentences, twelve questions about
#: topping up and physical cards, and "fix my top up".
ROWS = [1215, *range(1231, 1243), 1331]
#: Inputs a method meets in real data that leave it nothing to work on.
EDGE_TEXTS = ["?", "👍"]


@pytest.fixture(scope="module")
def rows(shared_data) -> pd.DataFrame:
    folder = shared_data / "banking77" / "jianguoz" / "valid"
    texts = (folder / "seq.in").read_text(encoding="utf-8").splitlines()
    labels = (folder / "label").read_text(encoding="utf-8").splitlines()
    frame = pd.DataFrame({"text": [texts[i] for i in ROWS], "label": [labels[i] for i in ROWS]})
    edges = pd.DataFrame({"text": EDGE_TEXTS, "label": [labels[ROWS[-1]]] * len(EDGE_TEXTS)})
    return pd.concat([frame, edges], ignore_index=True)


def _scripted_replies(request):
    """A chat server's replies by the row asked about: repeats of it, a loop, no JSON list, or
    a paraphrase (the row's text is the first line after "Text: ", or its first example)."""
    content = request["messages"][-1]["content"]
    text = content.split("Text: ", 1)[1].split("\n", 1)[0] if "Text: " in content else content.split("\n- ", 1)[1].split("\n", 1)[0]
    words = text.split()
    kind = sum(map(ord, text)) % 4
    if kind == 0:
        return reply(json.dumps([text, text.upper()]))
    if kind == 1:
        return reply(json.dumps([" ".join(words[:1] * 4 + words[1:])]))
    if kind == 2:
        return reply("Sure, here they are.")
    return reply(json.dumps([f"could you tell me: {text}"]))


@pytest.fixture(scope="module")
def nlpaug_models(shared_data, tmp_path_factory) -> dict[str, dict]:
    """What nlpaug's user-supplied methods run on, built from BANKING77's training texts: a
    TF-IDF model, word vectors (a GloVe text file of seeded random vectors) and token lists."""
    from nlpaug.model.word_stats import TfIdf
    from nlpaug.util.text.tokenizer import Tokenizer

    texts = (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()[:400]
    documents = [Tokenizer.tokenizer(text) for text in texts]
    tfidf = tmp_path_factory.mktemp("tfidf")
    model = TfIdf()
    model.train(documents)
    model.save(str(tfidf))
    words = sorted({word for document in documents for word in document if word.isalpha()})
    vectors = np.random.default_rng(0).normal(size=(len(words), 8))
    glove = tmp_path_factory.mktemp("glove") / "banking77.txt"
    glove.write_text("".join(" ".join([word, *(f"{x:.6f}" for x in row)]) + "\n" for word, row in zip(words, vectors)),
                     encoding="utf-8")
    return {
        "nlpaug.tfidf": {"model_path": str(tfidf)},
        "nlpaug.word_embs": {"model_type": "glove", "model_path": str(glove)},
        "nlpaug.reserved": {"reserved_tokens": [["card", "debit card", "bank card"], ["cash", "money"]]},
    }


@pytest.fixture(scope="module")
def causal_lm_128(shared_data, tmp_path_factory):
    """The tiny GPT-2 with 128 positions: nlpaug's continuation runs past 64."""
    from augkit.testing import build_gpt2_causal_lm

    texts = (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    return build_gpt2_causal_lm(tmp_path_factory.mktemp("gpt2-128") / "tiny-gpt2", texts, max_positions=128)


#: Each built-in method's parameters for the run, from the fixtures it needs.
METHODS: dict[str, Callable[[Callable[[str], object]], dict]] = {
    "eda": lambda get: {},
    "aeda": lambda get: {},
    "backtranslation": lambda get: {},
    "faq": lambda get: {"generator": str(get("tiny_t5")), "max_length": 12, "device": "cpu"},
    "paramac": lambda get: dict(get("paramac_params")),
    "pointer": lambda get: {"insertion_model": str(get("tiny_insertion_model")), "max_stages": 2},
    "erap": lambda get: {"sample_from": "backtranslation", "k": 2, "oracle": str(get("tiny_pair_classifier")),
                         "similarity_model": get("tiny_encoder_dir"), "device": "cpu"},
    "llm_paraphrase": lambda get: get("llm_params"),
    "llm_generate": lambda get: get("llm_params"),
    "nlpaug.keyboard": lambda get: {},
    "nlpaug.ocr": lambda get: {},
    "nlpaug.random_char": lambda get: {},
    "nlpaug.spelling": lambda get: {},
    "nlpaug.synonym": lambda get: {},
    "nlpaug.antonym": lambda get: {},
    "nlpaug.random_word": lambda get: {},
    "nlpaug.split": lambda get: {},
    "nlpaug.random_sentence": lambda get: {},
    "nlpaug.reserved": lambda get: get("nlpaug_models")["nlpaug.reserved"],
    "nlpaug.tfidf": lambda get: get("nlpaug_models")["nlpaug.tfidf"],
    "nlpaug.word_embs": lambda get: get("nlpaug_models")["nlpaug.word_embs"],
    "nlpaug.contextual": lambda get: {"model_path": str(get("tiny_masked_lm")), "top_k": 20},
    "nlpaug.contextual_sentence": lambda get: {"model_path": str(get("causal_lm_128")), "min_length": 5, "max_length": 20},
    "nlpaug.summarize": lambda get: {"model_path": str(get("tiny_t5")), "tokenizer_path": str(get("tiny_t5")),
                                     "min_length": 3, "max_length": 10},
    "nlpaug.back_translation": lambda get: {"from_model_name": str(get("tiny_marian_pair")[0]),
                                            "to_model_name": str(get("tiny_marian_pair")[1]), "max_length": 20},
}
#: Methods that leave no row of these without output: a continuation always adds text, and the
#: random translation models never give the text back.
EVERY_ROW_CHANGED = {"nlpaug.contextual_sentence", "nlpaug.back_translation"}
#: Methods whose reasons do not start with their name: none.
UNPREFIXED: set[str] = set()
#: Reasons the pipeline gives, whatever the method.
PIPELINE_REASONS = ("all candidates removed by filter ", "augmentation failed (")


@pytest.fixture
def llm_params(scripted_llm_server, tmp_path) -> dict:
    server = scripted_llm_server(_scripted_replies)
    return {"base_url": server.base_url, "model": "scripted", "cache_dir": str(tmp_path / "cache"), "max_retries": 0}


def test_every_registered_built_in_method_is_checked_here():
    ours = {folder.name for folder in (Path(__file__).resolve().parents[2] / "plugins").iterdir() if folder.is_dir()}
    registry = augkit.get_registry()
    built_in = {name for name, entry in registry.methods.items() if entry.plugin.distribution in ours}
    assert built_in == set(METHODS)


@pytest.mark.parametrize("method", [
    pytest.param(name, marks=pytest.mark.slow) if name == "nlpaug.back_translation" else name for name in METHODS])
def test_the_reasons_a_method_gives_add_up_to_its_rows_without_augmentation(method, rows, request):
    params = METHODS[method](request.getfixturevalue)
    out, report = augkit.augment_with_report(rows, method, n=2, seed=0, label_column="label", **params)
    augmented = out[out["augkit_method"].notna()]["augkit_source"].nunique() if "augkit_method" in out else 0
    reasons = report.without_augmentation
    assert augmented == report.rows_augmented
    assert sum(reasons.values()) == len(rows) - augmented, reasons
    assert bool(reasons) != (method in EVERY_ROW_CHANGED), f"{method}: {dict(reasons)}"
    assert NOTHING_GENERATED not in reasons and "no candidate" not in reasons, reasons
    if method not in UNPREFIXED:
        for reason in reasons:
            assert reason.startswith((f"{method}: ", *PIPELINE_REASONS)), reason
            assert not reason.startswith("augmentation failed (") or f"({method}: " in reason, reason
    for reason, count in reasons.items():
        assert f"{count} {reason}" in report.summary()
