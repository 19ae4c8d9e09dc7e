"""POINTER's progressive stages on BANKING77 training texts: each stage removes a non-adjacent
set of the least important words (about half the sentence), the labels grow every stage back
into the one before exactly, stages end at a few words, a multi-piece word is never split, and
nothing is random."""

from __future__ import annotations

import itertools
import random

import pytest
from augkit_pointer.importance import REPEAT_DIVISOR, ImportanceWeights, WordImportance
from augkit_pointer.stages import (
    NOI_TOKEN,
    apply_insertions,
    gaps_inside_words,
    progressive_stages,
    removal_plan,
    word_spans,
    words_of,
)

pytest.importorskip("tokenizers")
pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def banking_texts(shared_data) -> list[str]:
    return (shared_data / "banking77" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def whole_word_tokenizer(banking_texts):
    """A WordPiece vocabulary trained on all of BANKING77's training texts: every word one piece."""
    from augkit.plugin import bert_wordpiece_tokenizer

    return bert_wordpiece_tokenizer(banking_texts, 30522, max_length=128)


@pytest.fixture(scope="module")
def small_vocabulary_tokenizer(banking_texts):
    """800 entries (as the tiny test BERT's): rarer words split into several pieces."""
    from augkit.plugin import bert_wordpiece_tokenizer

    return bert_wordpiece_tokenizer(banking_texts, 800, max_length=128)


def staged(texts, tokenizer, **options):
    tokenized = [tokenizer.tokenize(text) for text in texts]
    importance = WordImportance([words_of(tokens) for tokens in tokenized])
    scores = importance([words_of(tokens) for tokens in tokenized])
    return [progressive_stages(tokens, score, unremovable=set(tokenizer.all_special_tokens), **options)
            for tokens, score in zip(tokenized, scores)]


def inserted_positions(example) -> list[int]:
    """Where the labels' tokens land in the grown sequence."""
    positions, length = [], 0
    if example.labels[0] != NOI_TOKEN:
        positions.append(0)
        length = 1
    for label in example.labels[1:]:
        length += 1
        if label != NOI_TOKEN:
            positions.append(length)
            length += 1
    return positions


def test_the_first_example_is_the_sentence_with_every_label_noi(banking_texts, whole_word_tokenizer):
    for text, examples in zip(banking_texts[:200], staged(banking_texts[:200], whole_word_tokenizer)):
        full = examples[0]
        assert list(full.tokens) == whole_word_tokenizer.tokenize(text)
        assert full.labels == (NOI_TOKEN,) * (len(full.tokens) + 1)


def test_labels_grow_each_stage_back_into_the_one_before(banking_texts, small_vocabulary_tokenizer):
    for examples in staged(banking_texts[:300], small_vocabulary_tokenizer):
        for before, after in itertools.pairwise(examples):
            assert len(after.labels) == len(after.tokens) + 1
            assert apply_insertions(after.tokens, after.labels) == list(before.tokens)


def test_words_removed_together_are_never_next_to_each_other(banking_texts, whole_word_tokenizer):
    for examples in staged(banking_texts[:300], whole_word_tokenizer):
        for example in examples[1:]:
            landed = inserted_positions(example)
            assert landed, "a stage removes at least one word"
            assert all(b - a > 1 for a, b in itertools.pairwise(landed))


def test_each_stage_roughly_halves_the_sentence_and_the_last_is_small(banking_texts, whole_word_tokenizer):
    ratios = []
    for examples in staged(banking_texts[:300], whole_word_tokenizer):
        sizes = [len(words_of(example.tokens)) for example in examples]
        for before, after in itertools.pairwise(sizes):
            # all words but the most important are removable: a maximal set without neighbours takes a third
            assert before - after >= -(-(before - 1) // 3)
            ratios.append(after / before)
        assert sizes[-1] <= 2
    assert 0.4 <= sum(ratios) / len(ratios) <= 0.6


@pytest.mark.parametrize("min_words", [1, 3, 5])
def test_stages_end_at_min_words(banking_texts, whole_word_tokenizer, min_words):
    for examples in staged(banking_texts[:100], whole_word_tokenizer, min_words=min_words):
        sizes = [len(words_of(example.tokens)) for example in examples]
        assert sizes[-1] <= min_words and all(size > min_words for size in sizes[:-1])


def test_a_multi_piece_word_is_never_split(banking_texts, small_vocabulary_tokenizer):
    checked = 0
    for examples in staged(banking_texts[:400], small_vocabulary_tokenizer):
        full = examples[0].tokens
        pieces = [tuple(full[start:end]) for start, end in word_spans(full) if end - start > 1]
        for example in examples:
            words = [tuple(example.tokens[start:end]) for start, end in word_spans(example.tokens)]
            for word in pieces:
                assert words.count(word) >= pieces.count(word)  # still there, whole, in every stage
            inside = gaps_inside_words(example.tokens)
            assert all(label == NOI_TOKEN for label, forced in zip(example.labels, inside) if forced)
            assert not any(label.startswith("##") for label in example.labels)
        checked += len(pieces)
    assert checked > 50  # the small vocabulary does split many words


def test_special_tokens_are_never_labels(banking_texts, small_vocabulary_tokenizer):
    texts = [text.replace("card", "card 💳") for text in banking_texts[:100]]  # no piece for the emoji: [UNK]
    stages = staged(texts, small_vocabulary_tokenizer)
    assert any("[UNK]" in examples[0].tokens for examples in stages)
    assert all("[UNK]" not in example.labels for examples in stages for example in examples)


def test_the_same_sentences_give_the_same_stages(banking_texts, small_vocabulary_tokenizer):
    first = staged(banking_texts[:200], small_vocabulary_tokenizer)
    assert staged(banking_texts[:200], small_vocabulary_tokenizer) == first
    # scoring sentences one at a time or all together gives the same stages
    tokenized = [small_vocabulary_tokenizer.tokenize(text) for text in banking_texts[:200]]
    importance = WordImportance([words_of(tokens) for tokens in tokenized])
    one_by_one = [importance([words_of(tokens)])[0] for tokens in tokenized]
    assert one_by_one == importance([words_of(tokens) for tokens in tokenized])


def test_the_removal_plan_is_the_best_set_without_neighbours():
    rng = random.Random(7)
    for size in range(0, 10):
        for _ in range(30):
            weights = [None if rng.random() < 0.2 else round(rng.uniform(0, 3), 2) for _ in range(size)]
            plan = removal_plan(weights)
            assert all(weights[i] is not None for i in plan) and all(b - a > 1 for a, b in itertools.pairwise(plan))
            best = max(
                sum(weights[i] for i in subset)
                for k in range(size + 1) for subset in itertools.combinations(range(size), k)
                if all(weights[i] is not None for i in subset) and all(b - a > 1 for a, b in itertools.pairwise(subset))
            )
            assert sum(weights[i] for i in plan) == pytest.approx(best)


def test_a_repeated_word_is_ten_times_less_important(banking_texts, whole_word_tokenizer):
    text = next(t for t in banking_texts if t.split().count("my") == 2)
    words = words_of(whole_word_tokenizer.tokenize(text))
    scores = WordImportance([words_of(whole_word_tokenizer.tokenize(t)) for t in banking_texts[:500]])([words])[0]
    first, second = [i for i, word in enumerate(words) if word == "my"]
    assert scores[second] == pytest.approx(scores[first] / REPEAT_DIVISOR)


def test_yake_keywords_score_higher(banking_texts, whole_word_tokenizer):
    corpus = [words_of(whole_word_tokenizer.tokenize(t)) for t in banking_texts[:500]]
    only_yake = WordImportance(corpus, weights=ImportanceWeights(tfidf=0, yake=1))
    for words in corpus[:50]:
        keywords = only_yake.keywords(words)
        assert keywords, words
        seen = set()
        for word, score in zip(words, only_yake([words])[0]):
            expected = (1.0 if word in keywords else 0.0) / (REPEAT_DIVISOR if word in seen else 1)
            assert score == pytest.approx(expected)
            seen.add(word)


def test_a_language_model_scorer_term_orders_the_stages(banking_texts, whole_word_tokenizer):
    class LongestWordFirst:
        """Stands in for a language model: the longer the word, the more it matters."""

        name = "longest-word"

        def __call__(self, sentences):
            return [[float(len(word)) for word in words] for words in sentences]

    corpus = [words_of(whole_word_tokenizer.tokenize(t)) for t in banking_texts[:200]]
    importance = WordImportance(corpus, weights=ImportanceWeights(tfidf=0, yake=0, scorer=1), scorer=LongestWordFirst())
    assert importance.describe()["scorer"] == "longest-word"
    for words, scores in zip(corpus, importance(corpus)):
        tokens = whole_word_tokenizer.tokenize(" ".join(words))
        longest = max(len(word) for word in words)
        last = words_of(progressive_stages(tokens, scores)[-1].tokens)
        assert any(len(word) == longest for word in last), (words, last)
