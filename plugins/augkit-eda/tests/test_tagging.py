"""The part-of-speech tagger: TextBlob's tags, contextual rules applied, without importing TextBlob."""

from __future__ import annotations

import subprocess
import sys

import pytest
from augkit_eda.tagging import PatternTagger

from augkit.plugin import split_words


@pytest.fixture(scope="module")
def tagger() -> PatternTagger:
    return PatternTagger.load()


def test_tags_equal_textblobs_lexicon_and_contextual_rules_on_banking77(tagger, shared_data):
    """Same tags as TextBlob's own code (textblob._text.find_tags with its contextual rules)
    for every sentence of 3,000 BANKING77 texts, tokens as EDA tags them."""
    import pandas as pd
    from textblob import _text
    from textblob.en import lexicon

    texts = pd.read_csv(shared_data / "banking77" / "polyai" / "train.csv")["text"].head(3000)
    sentences = []
    original = PatternTagger.tag_sentence

    def recording(self, tokens):
        sentences.append(list(tokens))
        return original(self, tokens)

    PatternTagger.tag_sentence = recording
    try:
        for text in texts:
            sequence = split_words(text)
            tagger.tag_words(sequence.words, sequence.glue)
    finally:
        PatternTagger.tag_sentence = original
    compared = [s for s in sentences if not any(token.lower() == "please" for token in s)]  # our one override
    differing = [
        tokens for tokens in compared
        if tagger.tag_sentence(tokens) != [tag for _, tag in _text.find_tags(
            tokens, lexicon=lexicon, context=lexicon.context, language="en", default=("NN", "NNP", "CD"))]
    ]
    assert len(compared) > 5000
    assert differing == []


@pytest.mark.parametrize("text, word, tag", [
    ("I want to book a flight", "book", "VB"),  # the contextual rules: a verb after "to"
    ("Please help me delete this account.", "help", "VB"),  # "please" is an interjection
    ("Please help me delete this account.", "Please", "UH"),
    ("My card was declined at the shop", "declined", "VBN"),
    ("I was charged twice for a transfer", "transfer", "NN"),
    ("My card doesn't work, why?", "doesn't", "VBZ"),
    ("Where is my Visa card?", "Visa", "NNP"),
])
def test_tags_in_context(tagger, text, word, tag):
    sequence = split_words(text)
    tags = dict(zip(sequence.words, tagger.tag_words(sequence.words, sequence.glue)))
    assert tags[word] == tag


def test_each_sentence_is_tagged_on_its_own(tagger):
    first, second = split_words("My card was declined at the shop."), split_words("Transfer money to my account!")
    together = split_words("My card was declined at the shop. Transfer money to my account!")
    tags = tagger.tag_words(together.words, together.glue)
    assert tags[:7] == tagger.tag_sentence([*first.words, "."])[:-1]
    assert tags[7:] == tagger.tag_sentence([*second.words, "!"])[:-1]


def test_tagging_imports_neither_textblob_nor_nltk():
    code = (
        "import sys; from augkit_eda.tagging import PatternTagger; "
        "assert PatternTagger.load().tag_sentence(['I', 'paid']) == ['PRP', 'VBD']; "
        "print(','.join(m for m in ('textblob', 'nltk', 'numpy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""
