"""The nlpaug methods that run on what the user gives: nlpaug.reserved (token lists),
nlpaug.tfidf (a TF-IDF model trained with nlpaug) and nlpaug.word_embs (a word-vector file),
on BANKING77 texts, with the model and the vectors built from BANKING77 in fixtures."""

from __future__ import annotations

import csv
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from augkit_nlpaug import BRIDGED, SPECS

import augkit
from augkit.plugin import MissingDependencyError

RESERVED = [["card", "debit card"], ["transfer", "payment"]]
#: Three tokens a list, so that a replacement is a draw (with two it is the other token).
RESERVED_WIDE = [["card", "debit card", "bank card"], ["transfer", "payment", "bank transfer"]]
#: The texts the TF-IDF model and the vectors are built from, and the texts augmented.
TRAINING_TEXTS = 400
AUGMENTED_TEXTS = 24
#: Dimensions of the vectors made from BANKING77's word co-occurrence counts.
VECTOR_DIMENSIONS = 16
#: Words whose vector is (nearly) zero are left out: gensim's cosine divides by the norm, and
#: GloVe's text format keeps six decimals.
MIN_NORM = 1e-3


@pytest.fixture(scope="module")
def banking77(shared_data) -> list[str]:
    """BANKING77's training texts (PolyAI's train.csv, column ``text``), in file order."""
    with open(shared_data / "banking77" / "polyai" / "train.csv", encoding="utf-8", newline="") as file:
        return [row["text"] for row in csv.DictReader(file)]


@pytest.fixture(scope="module")
def texts(banking77) -> list[str]:
    """Texts of six words or more from further down the file than the training texts."""
    return [text for text in banking77[TRAINING_TEXTS:] if len(text.split()) >= 6][::50][:AUGMENTED_TEXTS]


def tokenize(text: str) -> list[str]:
    from nlpaug.util.text.tokenizer import Tokenizer

    return Tokenizer.tokenizer(text)


def train_tfidf(texts: list[str], folder) -> set[str]:
    """An nlpaug TF-IDF model of ``texts`` saved in ``folder``, as the docs tell a user; its words."""
    from nlpaug.model.word_stats import TfIdf

    model = TfIdf()
    model.train([tokenize(text) for text in texts])
    model.save(str(folder))
    return set(model.tokens)


@pytest.fixture(scope="module")
def tfidf_model(tmp_path_factory, banking77) -> tuple[str, set[str]]:
    folder = tmp_path_factory.mktemp("tfidf")
    return str(folder), train_tfidf(banking77[:TRAINING_TEXTS], folder)


@pytest.fixture(scope="module")
def vectors(banking77) -> tuple[list[str], np.ndarray]:
    """Word vectors of BANKING77's words: their co-occurrence counts (two words either side)
    reduced by an SVD, so that words of similar contexts are neighbours."""
    docs = [tokenize(text) for text in banking77[:TRAINING_TEXTS]]
    words = sorted({word for doc in docs for word in doc if re.fullmatch(r"[A-Za-z]+", word)})
    index = {word: i for i, word in enumerate(words)}
    counts = np.zeros((len(words), len(words)))
    for doc in docs:
        for i, word in enumerate(doc):
            for other in doc[max(0, i - 2):i]:
                if word in index and other in index:
                    counts[index[word], index[other]] += 1
                    counts[index[other], index[word]] += 1
    left, singular, _ = np.linalg.svd(np.log1p(counts))
    matrix = left[:, :VECTOR_DIMENSIONS] * singular[:VECTOR_DIMENSIONS]
    kept = np.linalg.norm(matrix, axis=1) > MIN_NORM
    return [w for w, keep in zip(words, kept) if keep], matrix[kept]


def write_vectors(words: list[str], matrix: np.ndarray, path, model_type: str) -> str:
    """The vectors in ``model_type``'s file format: GloVe's text by hand, word2vec's binary and
    fastText's .vec text by gensim."""
    if model_type == "glove":
        lines = (" ".join([word, *(f"{x:.6f}" for x in row)]) for word, row in zip(words, matrix))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        from gensim.models import KeyedVectors

        keyed = KeyedVectors(vector_size=matrix.shape[1])
        keyed.add_vectors(words, matrix.astype(np.float32))
        keyed.save_word2vec_format(str(path), binary=model_type == "word2vec")
    return str(path)


@pytest.fixture(scope="module")
def glove_file(tmp_path_factory, vectors) -> str:
    return write_vectors(*vectors, tmp_path_factory.mktemp("glove") / "banking77.txt", "glove")


@pytest.fixture(scope="module")
def user_params(tfidf_model, glove_file) -> dict[str, dict]:
    return {
        "nlpaug.reserved": {"reserved_tokens": RESERVED_WIDE},
        "nlpaug.tfidf": {"model_path": tfidf_model[0]},
        "nlpaug.word_embs": {"model_type": "glove", "model_path": glove_file},
    }


def reserved_texts(banking77) -> list[str]:
    """BANKING77 texts holding a reserved token or phrase."""
    pattern = re.compile(r"\b(card|transfer|payment)\b")
    return [text for text in banking77 if pattern.search(text)][::20][:AUGMENTED_TEXTS]


def skeleton(text: str) -> list[str]:
    """The text's words, lower-cased, with each reserved token or phrase replaced by its list's
    number (phrases first): two texts of one skeleton differ only by tokens of the same list."""
    text = text.lower()
    for number, tokens in enumerate(RESERVED):
        for token in sorted(tokens, key=len, reverse=True):
            text = re.sub(rf"\b{re.escape(token)}\b", f" <{number}> ", text)
    return re.findall(r"<\d>|\w+", text)


def new_words(text: str, output: str) -> set[str]:
    return {w.lower() for w in re.findall(r"\w+", output)} - {w.lower() for w in re.findall(r"\w+", text)}


# --- nlpaug.reserved ------------------------------------------------------------------------


def test_reserved_puts_in_only_tokens_of_the_same_list(banking77):
    texts = reserved_texts(banking77)
    rows = augkit.augment(texts, "nlpaug.reserved", n=2, seed=0, reserved_tokens=RESERVED)
    assert sum(1 for row in rows if row) >= len(texts) // 2, rows
    for text, row in zip(texts, rows):
        for output in row:
            assert skeleton(output) == skeleton(text), (text, output)
            assert output.lower() != text.lower()


def test_a_reserved_phrase_left_unchanged_comes_back_as_its_words(banking77):
    """nlpaug joins a phrase's words into one token ("debitnnnnncard") and returned it so when
    it did not replace it: with one replacement a text, one of two reserved tokens stays."""
    texts = [t for t in banking77 if "debit card" in t and re.search(r"\b(transfer|payment)\b", t)]
    assert texts, "BANKING77 has texts with 'debit card' and 'transfer' or 'payment'"
    rows = augkit.augment(texts, "nlpaug.reserved", n=4, seed=0, reserved_tokens=RESERVED, aug_max=1)
    outputs = [output for row in rows for output in row]
    assert outputs
    for text, row in zip(texts, rows):
        for output in row:
            assert "nnnnn" not in output
            assert skeleton(output) == skeleton(text), (text, output)
    assert any("debit card" in output for output in outputs)  # the phrase kept, as words


def test_reserved_all_combinations_are_the_outputs(banking77):
    text = next(t for t in banking77 if "debit card" in t and "payment" in t)
    [row] = augkit.augment([text], "nlpaug.reserved", n=10, seed=0, reserved_tokens=RESERVED, aug_p=1,
                           generate_all_combinations=True)
    # one phrase of the first list and one token of the second: 2 x 2 combinations, less the text itself
    assert len(row) == len(RESERVED[0]) * len(RESERVED[1]) - 1
    assert len(set(row)) == len(row)
    assert all(skeleton(output) == skeleton(text) for output in row)


@pytest.mark.parametrize(
    "params, message",
    [
        ({}, r"nlpaug.reserved: reserved_tokens is required"),
        ({"reserved_tokens": ["card", "debit card"]}, r"reserved_tokens must be list\[list\[str\]\].*a list of lists"),
        ({"reserved_tokens": [["card", "card"]]}, r"reserved_tokens: the list \['card', 'card'\] has no alternative"),
        ({"reserved_tokens": []}, r"reserved_tokens is empty"),
        ({"reserved_tokens": RESERVED, "generate_all_combinations": True}, r"generate_all_combinations=True .* aug_p=1"),
        ({"reserved_tokens": RESERVED, "action": "insert"}, r"unknown action 'insert'.* choose from substitute"),
    ],
)
def test_reserved_refuses_bad_token_lists_naming_the_parameter(params, message, banking77):
    with pytest.raises(augkit.UsageError, match=message):
        augkit.augment(reserved_texts(banking77)[:2], "nlpaug.reserved", n=1, seed=0, **params)


# --- nlpaug.tfidf ---------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["substitute", "insert"])
def test_tfidf_puts_in_words_of_the_users_model(action, texts, tfidf_model):
    folder, vocabulary = tfidf_model
    rows = augkit.augment(texts, "nlpaug.tfidf", n=2, seed=0, model_path=folder, action=action)
    assert sum(1 for row in rows if row) >= len(texts) // 2, rows
    lower_vocabulary = {word.lower() for word in vocabulary}
    for text, row in zip(texts, rows):
        for output in row:
            assert new_words(text, output) <= lower_vocabulary, (text, output)
            if action == "insert":
                assert len(tokenize(output)) > len(tokenize(text))


def test_each_tfidf_method_reads_its_own_model(tmp_path, banking77, texts, tfidf_model):
    """nlpaug keeps one TF-IDF model a process whatever the path: a second folder ran on the first's."""
    first = BRIDGED["nlpaug.tfidf"](model_path=tfidf_model[0])
    small = [t for t in banking77 if "exchange rate" in t][:40]  # another, smaller vocabulary
    vocabulary = {word.lower() for word in train_tfidf(small, tmp_path)}
    second = BRIDGED["nlpaug.tfidf"](model_path=str(tmp_path), top_k=1, aug_p=0.5)
    outputs = [(text, output) for text in texts for output in second.augment(text, 2, random.Random(3))]
    assert outputs
    assert all(new_words(text, output) <= vocabulary for text, output in outputs), outputs
    assert first.augment(texts[0], 2, random.Random(3)) != second.augment(texts[0], 2, random.Random(3))


def test_a_missing_tfidf_model_is_refused_saying_how_to_train_one(tmp_path):
    with pytest.raises(augkit.UsageError, match=r"model_path='.*nowhere' is not a folder.*TfIdf\(\).*train.*save\(DIR\)"):
        BRIDGED["nlpaug.tfidf"](model_path=str(tmp_path / "nowhere"))
    with pytest.raises(augkit.UsageError, match=r"model_path='.*' has no tfidfaug_w2idf.txt or tfidfaug_w2tfidf.txt"):
        BRIDGED["nlpaug.tfidf"](model_path=str(tmp_path))


def test_a_damaged_tfidf_model_is_refused_when_built_not_on_the_first_row(tmp_path, tfidf_model):
    from nlpaug.model.word_stats import TfIdf

    folder = tfidf_model[0]
    for name in (TfIdf.WORD_2_IDF_FILE_NAME, TfIdf.WORD_2_TFIDF_FILE_NAME):
        # a copy with half of each file's lines: the word scores no longer sum to 1
        lines = (Path(folder) / name).read_text(encoding="utf-8").splitlines()
        (tmp_path / name).write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    with pytest.raises(augkit.UsageError, match=r"model_path=.*no word scores that sum to 1"):
        BRIDGED["nlpaug.tfidf"](model_path=str(tmp_path))


# --- nlpaug.word_embs -----------------------------------------------------------------------


@pytest.mark.parametrize("model_type", ["glove", "word2vec", "fasttext"])
def test_word_embs_substitutes_neighbours_from_each_vector_format(model_type, tmp_path, vectors, texts):
    words, matrix = vectors
    path = write_vectors(words, matrix, tmp_path / f"vectors.{model_type}", model_type)
    rows = augkit.augment(texts, "nlpaug.word_embs", n=2, seed=0, model_type=model_type, model_path=path, top_k=5)
    assert sum(1 for row in rows if row) >= len(texts) // 2, rows
    vocabulary = {word.lower() for word in words}
    for text, row in zip(texts, rows):
        for output in row:
            assert new_words(text, output) <= vocabulary, (text, output)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"model_path": "GLOVE"}, r"nlpaug.word_embs: model_type is required"),
        ({"model_type": "glov", "model_path": "GLOVE"}, r"unknown model_type 'glov'; did you mean 'glove'"),
        ({"model_type": "glove", "model_path": "MISSING"}, r"model_path='.*missing.txt' is not a file: .*GloVe's text format"),
        ({"model_type": "word2vec", "model_path": "GLOVE"}, r"model_path='.*banking77.txt': gensim cannot read it .*word2vec's binary format"),
        ({"model_type": "glove", "model_path": "GLOVE", "action": "swap"}, r"unknown action 'swap'"),
    ],
)
def test_word_embs_refuses_missing_or_unreadable_vectors_naming_the_parameter(params, message, glove_file, tmp_path, texts):
    params = {key: {"GLOVE": glove_file, "MISSING": str(tmp_path / "missing.txt")}.get(value, value)
              for key, value in params.items()}
    with pytest.raises(augkit.UsageError, match=message):
        augkit.augment(texts[:2], "nlpaug.word_embs", n=1, seed=0, **params)


def test_word_embs_without_gensim_names_the_extra_to_install(monkeypatch, glove_file, texts):
    """gensim is the plugin's `vectors` extra: without it, nlpaug.word_embs says how to get it
    (the other methods do not need it)."""
    monkeypatch.setitem(sys.modules, "gensim", None)  # `import gensim` now fails as if not installed
    with pytest.raises(MissingDependencyError, match=r"gensim, which is not installed: pip install 'augkit-nlpaug\[vectors\]'"):
        augkit.augment(texts[:2], "nlpaug.word_embs", n=1, seed=0, model_type="glove", model_path=glove_file)
    assert augkit.augment(texts[:2], "nlpaug.random_word", n=1, seed=0, action="swap")


# --- seeds ----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["nlpaug.reserved", "nlpaug.tfidf", "nlpaug.word_embs"])
def test_same_seed_same_output_at_batch_sizes_1_and_4(method, user_params, texts, banking77):
    rows = reserved_texts(banking77) if method == "nlpaug.reserved" else texts
    params = user_params[method]
    whole = augkit.augment(rows, method, n=2, seed=0, batch_size=4, **params)
    assert any(whole)
    assert augkit.augment(rows, method, n=2, seed=0, batch_size=1, **params) == whole
    assert augkit.augment(rows, method, n=2, seed=1, batch_size=4, **params) != whole


@pytest.mark.parametrize("spec", [s for s in SPECS if s.name in ("nlpaug.reserved", "nlpaug.tfidf", "nlpaug.word_embs")],
                         ids=lambda spec: spec.name)
def test_draws_from_names_numpy_exactly_when_the_method_draws_from_it(spec, user_params, texts, banking77,
                                                                     outputs_under_numpy_seeds):
    """Through the bridge the output never moves with NumPy's global seed; nlpaug's own object
    under two NumPy seeds (Python's seeded alike) shows whether it draws from NumPy, which its
    spec must then name (and should not name otherwise: saving NumPy's state costs per row)."""
    method = BRIDGED[spec.name](**user_params[spec.name])
    rows = reserved_texts(banking77)[:8] if spec.name == "nlpaug.reserved" else texts[:8]
    bridged = outputs_under_numpy_seeds(method, rows)
    direct = []
    for numpy_seed in (1, 2):
        np.random.seed(numpy_seed)
        random.seed(7)
        direct.append([method._nlpaug.augment(text, n=2) for text in rows])
    assert bridged[0] == bridged[1] and any(bridged[0])
    assert (direct[0] != direct[1]) == ("numpy" in spec.draws_from)
