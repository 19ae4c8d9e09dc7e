"""Keywords of a sentence as Chevasson et al. (2023, section 3.2) extract them: segtok words,
YAKE's k + 2 best without stop words, k drawn by the row's generator, the k longest words
when there are too few, and the final punctuation kept. On real BANKING77 and CLINC150 text."""

from __future__ import annotations

import random

import pytest
import yake
from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_pointer.keywords import (
    CANDIDATE_SURPLUS,
    DEFAULT_KEYWORDS,
    NEGATIONS,
    Keyword,
    extract_keywords,
    word_spans,
)

from augkit.plugin import InvalidParameterError


@pytest.fixture(scope="module")
def clinc150_sentences(shared_data) -> list[str]:
    """Every 100th CLINC150 training text (150 lower-case, unpunctuated queries)."""
    lines = (shared_data / "clinc150" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    return lines[::100]


def words(keywords: list[Keyword]) -> list[str]:
    return [keyword.text for keyword in keywords]


def yake_stop_words() -> set[str]:
    return yake.KeywordExtractor(lan="en").stopword_set


def test_a_final_question_mark_exclamation_mark_or_dot_is_the_last_keyword():
    for text, mark in (("Why was my card declined?", "?"), ("My card was cancelled yesterday!", "!"),
                       ("I want to close my account.", "."), ("Is my transfer pending?  ", "?")):
        keywords = extract_keywords(text, random.Random(0))
        assert keywords[-1] == Keyword(mark, text.rstrip().rindex(mark), text.rstrip().rindex(mark) + 1)
        assert keywords[-1].is_punctuation
        assert len(keywords) == DEFAULT_KEYWORDS + 1


def test_a_text_without_final_punctuation_gets_none(clinc150_sentences):
    for text in clinc150_sentences:
        marks = [keyword for keyword in extract_keywords(text, random.Random(0)) if keyword.is_punctuation]
        if text.rstrip()[-1] in "?!.":  # "syonara, ai device!"
            assert marks == [Keyword(text.rstrip()[-1], len(text.rstrip()) - 1, len(text.rstrip()))]
        else:
            assert marks == [], text


def test_keywords_come_in_sentence_order_with_their_spans(banking77_sentences, clinc150_sentences):
    for row, text in enumerate(banking77_sentences + clinc150_sentences):
        keywords = extract_keywords(text, random.Random(row))
        assert keywords, text
        for keyword in keywords:
            assert text[keyword.start : keyword.end] == keyword.text
        for before, after in zip(keywords, keywords[1:]):
            assert before.end <= after.start, (text, keywords)


def test_k_words_per_sentence_plus_the_final_mark(banking77_sentences, clinc150_sentences):
    for row, text in enumerate(banking77_sentences + clinc150_sentences):
        keywords = [k for k in extract_keywords(text, random.Random(row)) if not k.is_punctuation]
        distinct_words = {  # clitics ("'s") are no words of their own
            text[s:e].lower() for s, e in word_spans(text) if text[s].isalnum() or text[s] in "$£€"
        }
        assert len(keywords) == min(DEFAULT_KEYWORDS, len(distinct_words)), (text, keywords)  # "yep": one
    assert len([k for k in extract_keywords("I need to change my PIN and my address", random.Random(0), k=5)]) == 5


def test_no_stop_word_is_a_keyword_while_other_words_remain(banking77_sentences, clinc150_sentences):
    """A stop word only comes in through the short-sentence fill, after every other word."""
    for row, text in enumerate(banking77_sentences + clinc150_sentences):
        keywords = {k.text.lower() for k in extract_keywords(text, random.Random(row)) if not k.is_punctuation}
        if keywords & EDA_STOP_WORDS:
            others = {text[s:e].lower() for s, e in word_spans(text) if text[s:e].isalpha()} - EDA_STOP_WORDS
            assert others <= keywords, (text, keywords)


def test_keywords_are_drawn_from_yakes_k_plus_2_best():
    text = "I tried to top up my account with my Mastercard but the payment was declined twice at the terminal"
    best = yake.KeywordExtractor(lan="en", n=1, top=DEFAULT_KEYWORDS + CANDIDATE_SURPLUS).extract_keywords(text)
    allowed = {phrase.lower() for phrase, _ in best}
    drawn = set()
    for seed in range(30):
        keywords = words(extract_keywords(text, random.Random(seed)))
        assert {word.lower() for word in keywords} <= allowed
        drawn.add(tuple(keywords))
    assert len(drawn) > 3  # a random choice among the best, not always the same three


def test_a_short_sentence_takes_its_longest_words():
    # YAKE finds only "card" and "waiting" ("still" is one of its stop words).
    assert words(extract_keywords("I am still waiting on my card?", random.Random(0))) == ["still", "waiting", "card", "?"]
    # Only "card" is no stop word; "Where" is the longest of the others, then "is" before "my".
    assert words(extract_keywords("Where is my card?", random.Random(0))) == ["Where", "is", "card", "?"]
    assert words(extract_keywords("Hi", random.Random(0))) == ["Hi"]


def test_a_negation_is_filled_in_before_other_stop_words():
    keywords = words(extract_keywords("Why has my withdrawal not posted?", random.Random(0)))
    assert keywords == ["withdrawal", "not", "posted", "?"]
    assert "not" in NEGATIONS


def test_the_same_seed_gives_the_same_keywords(banking77_sentences):
    for row, text in enumerate(banking77_sentences[:50]):
        assert extract_keywords(text, random.Random(row)) == extract_keywords(text, random.Random(row))


def test_only_the_rows_generator_is_used(banking77_sentences):
    random.seed(1234)
    state = random.getstate()
    for row, text in enumerate(banking77_sentences[:20]):
        extract_keywords(text, random.Random(row))
    assert random.getstate() == state


def test_words_keep_no_punctuation_at_their_ends():
    text = "i have been waiting over a week. is it lost? I can't see it in the U.S. app"
    assert [text[s:e] for s, e in word_spans(text)][:8] == ["i", "have", "been", "waiting", "over", "a", "week", "is"]  # segtok: "week."
    assert "week" in words(extract_keywords(text, random.Random(0), k=10))
    assert "U.S." in [text[s:e] for s, e in word_spans(text)]


def test_a_multi_word_keyword_is_one_keyword_with_one_span():
    text = "I need a new credit card because the exchange rate is bad"
    keywords = extract_keywords(text, random.Random(0), max_ngram_size=2)
    assert Keyword("exchange rate", 37, 50) in keywords
    for before, after in zip(keywords, keywords[1:]):
        assert before.end <= after.start


def test_texts_with_nothing_to_keep():
    assert extract_keywords("", random.Random(0)) == []
    assert extract_keywords("???", random.Random(0)) == [Keyword("?", 2, 3)]


def test_bad_arguments_are_rejected():
    with pytest.raises(InvalidParameterError, match="k must be an integer >= 1"):
        extract_keywords("lost card", random.Random(0), k=0)
    with pytest.raises(InvalidParameterError, match="max_ngram_size"):
        extract_keywords("lost card", random.Random(0), max_ngram_size=True)
    with pytest.raises(InvalidParameterError, match="random.Random"):
        extract_keywords("lost card", 0)
    with pytest.raises(InvalidParameterError, match="from a str"):
        extract_keywords(None, random.Random(0))
