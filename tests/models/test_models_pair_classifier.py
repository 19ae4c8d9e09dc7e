"""augkit.models.PairClassifier on a tiny random BERT NLI model: label names from the config,
probabilities checked against the model's logits, batch-independent, bad pairs refused."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from augkit.errors import InvalidParameterError  # noqa: E402
from augkit.models import PairClassifier, load_pair_classifier  # noqa: E402
from augkit.testing import build_pair_classifier  # noqa: E402


@pytest.fixture(scope="module")
def nli(tiny_pair_classifier) -> PairClassifier:
    return load_pair_classifier(str(tiny_pair_classifier), device="cpu")


@pytest.fixture(scope="module")
def pairs(banking77_sentences) -> list[tuple[str, str]]:
    return list(zip(banking77_sentences[:50], banking77_sentences[50:100]))


def test_labels_are_the_configs_names_in_output_order(nli):
    assert nli.labels == ("entailment", "neutral", "contradiction")


def test_probabilities_are_the_softmax_of_the_pairs_logits(nli, tiny_pair_classifier, pairs):
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_pair_classifier)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(tiny_pair_classifier).eval()
    first, second = pairs[0]
    with torch.no_grad():
        expected = torch.softmax(model(**tokenizer(first, second, return_tensors="pt")).logits[0].double(), -1).tolist()
    got = nli.predict([pairs[0]])[0]
    assert list(got) == list(nli.labels)
    assert list(got.values()) == pytest.approx(expected, abs=1e-5)
    assert sum(got.values()) == pytest.approx(1.0)
    swapped = nli.predict([(second, first)])[0]
    assert list(swapped.values()) != pytest.approx(list(got.values()), abs=1e-6)  # both texts, in their roles


def test_probabilities_do_not_depend_on_the_batch(nli, pairs):
    together = nli.probabilities(pairs)
    alone = [nli.probabilities([pair])[0] for pair in pairs]
    small = nli.probabilities(pairs, token_budget=40)
    for other in (alone, small, nli.probabilities(pairs[::-1])[::-1]):
        for a, b in zip(together, other):
            assert a == pytest.approx(b, abs=1e-6)


def test_label_names_come_from_the_config(tmp_path, banking77_sentences):
    folder = build_pair_classifier(tmp_path / "binary", banking77_sentences, labels=("paraphrase", "different"))
    classifier = load_pair_classifier(str(folder), device="cpu")
    assert classifier.labels == ("paraphrase", "different")
    assert set(classifier.predict([("a card", "my card")])[0]) == {"paraphrase", "different"}


@pytest.mark.parametrize(
    ("pairs", "message"),
    [("one text", "list of"), ([("only one",)], "pair 0"), ([("a", "b"), ("c", 3)], "pair 1")],
)
def test_bad_pairs_are_refused(nli, pairs, message):
    with pytest.raises(InvalidParameterError, match=message):
        nli.predict(pairs)


def test_no_pairs_no_predictions(nli):
    assert nli.predict([]) == []
