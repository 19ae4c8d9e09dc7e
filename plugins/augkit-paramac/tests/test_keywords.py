"""ParaMac's keywords: RAKE phrases, negations, nouns and verbs, with exact spans (section 3.1
and appendix B of Liu et al. 2022), on the appendix's sentences and on real datasets."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from augkit_paramac.keywords import (
    BE_HAVE_DO,
    NEGATIONS,
    STOP_WORDS,
    Keyword,
    extract_keywords,
)
from augkit_paramac.rake import candidate_runs, phrase_scores, ranked_phrases

#: A keyword: words separated by white space; inside a word only hyphens and apostrophes
#: ("semi-fluidic", "friend's"), or a separator between digits ("10,000", "3.50").
_WORD = r"\w+(?:(?:[-'’]|(?<=\d)[.,:](?=\d))\w+)*"
KEYWORD_SHAPE = re.compile(rf"{_WORD}(?:\s+{_WORD})*")


def texts_of(keywords: list[Keyword]) -> list[str]:
    return [keyword.text for keyword in keywords]


@pytest.fixture(scope="module")
def real_sentences(shared_data) -> list[str]:
    """1,000 BANKING77 test texts, 1,000 Quora questions (tokenised: "do n't", "What 's")
    and 500 SICK sentences."""
    banking = pd.read_csv(shared_data / "banking77" / "polyai" / "test.csv")["text"].head(1000).tolist()
    quora = (shared_data / "quora_pairs" / "paragen" / "head_0a142eb" / "val.q1").read_text(encoding="utf-8")
    sick = pd.read_csv(shared_data / "sick" / "brmson" / "SICK_train.txt", sep="\t")["sentence_A"].head(500).tolist()
    return banking + quora.splitlines()[:1000] + sick


# --- the appendix's cases (Table 8) -------------------------------------------------------


def test_hyphenated_word_stays_whole_with_its_phrase():
    """Appendix B: RAKE on NLTK's tokens gives "semi" and "fluidic nature"; the authors'
    extra rule rejoins "semi-fluidic nature". The stray ".?" is no part of any keyword."""
    keywords = extract_keywords("Does the semi-fluidic nature of the crystals present a weakness in that regard.?")
    assert texts_of(keywords) == ["semi-fluidic nature", "crystals present", "weakness", "regard"]
    assert {keyword.source for keyword in keywords} == {"rake"}


def test_contracted_negation_is_a_keyword_of_its_own():
    """Appendix B: "n't" is a special keyword, or the model writes "had" for "hadn't"."""
    text = "Such a possibility hadn't even been discussed during the planning stages."
    keywords = extract_keywords(text)
    assert texts_of(keywords) == ["possibility", "n't", "even", "discussed", "planning stages"]
    negation = keywords[1]
    assert negation == Keyword("n't", 22, 25, "negation")
    assert text[negation.start - 3 : negation.end] == "hadn't"


def test_adjectives_stay_with_their_nouns():
    """Appendix B's antonym case ("large" became "small"): the adjectives are kept, inside
    their phrases, for the synonym step to work on."""
    keywords = extract_keywords("A large sofa was shoved against the wall, covered in a thin blanket.")
    assert texts_of(keywords) == ["large sofa", "shoved", "wall", "covered", "thin blanket"]


def test_no_keyword_is_missed_in_the_papers_missing_keyword_example():
    """Appendix B's third case lost "station"; punctuation and quotes end phrases here."""
    keywords = extract_keywords('"As you command, controller," grudy said, and returned to his station.')
    assert texts_of(keywords) == ["command", "controller", "grudy said", "returned", "station"]


# --- spans, punctuation, order, uniqueness on real data -----------------------------------


def test_spans_match_the_text_in_order_without_overlap_on_real_sentences(real_sentences):
    total = 0
    for text in real_sentences:
        keywords = extract_keywords(text)
        total += len(keywords)
        for keyword in keywords:
            assert text[keyword.start : keyword.end] == keyword.text, text
        for before, after in zip(keywords, keywords[1:]):
            assert before.end < after.start, text
        lowered = [keyword.text.lower() for keyword in keywords]
        assert len(set(lowered)) == len(lowered), text
    assert total > 6000


def test_no_keyword_holds_punctuation_other_than_inner_hyphens_apostrophes_or_number_separators(real_sentences):
    shapes = [keyword.text for text in real_sentences for keyword in extract_keywords(text)]
    assert [text for text in shapes if not KEYWORD_SHAPE.fullmatch(text)] == []
    assert any("-" in text for text in shapes) and any("'" in text for text in shapes)


@pytest.mark.parametrize("text, expected", [
    ("I sent €10,000 to my friend's account", ["sent", "10,000", "friend's account"]),
    ("What's the rate for 3.50 USD at 10:30?", ["rate", "3.50 USD", "10:30"]),
    ("Is my top-up pending?", ["top-up pending"]),
    ("I was charged - twice.", ["charged", "twice"]),  # a free-standing dash ends a phrase
    ("It's not linked yet--how do I do that?", ["not", "linked yet"]),
])
def test_hyphens_apostrophes_and_numbers_stay_inside_words_other_punctuation_splits(text, expected):
    assert texts_of(extract_keywords(text)) == expected


def test_case_is_kept_as_written():
    assert texts_of(extract_keywords("Where is my Visa card? VISA CARD declined.")) == [
        "Visa card", "VISA CARD declined",
    ]


def test_a_keyword_repeated_later_is_kept_once_first_occurrence():
    """The authors keep a set of keyword strings."""
    text = "My card is lost. Card lost again, I can't and won't wait."
    keywords = extract_keywords(text)
    assert texts_of(keywords) == ["card", "lost", "Card lost", "n't", "wait"]
    assert keywords[3].start == text.index("n't")  # the one of "can't", not of "won't"


def test_empty_and_punctuation_only_texts_have_no_keywords():
    assert extract_keywords("") == []
    assert extract_keywords(" ?! ... ") == []


# --- negation, auxiliaries, nouns and verbs -----------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("I can't see the payment", [("n't", "negation"), ("see", "rake"), ("payment", "rake")]),
    ("Why do n't I get a refund ?", [("n't", "negation"), ("get", "rake"), ("refund", "rake")]),  # Treebank tokens
    ("It isn’t there", [("n’t", "negation")]),  # typographic apostrophe, kept as written
    ("The card is not working", [("card", "rake"), ("not", "negation"), ("working", "rake")]),
    ("No, I never got it", [("No", "negation"), ("never got", "rake")]),  # "never": not a stop word
    ("I cannot top up", [("cannot top", "rake")]),
    ("neither cash nor card", [("neither cash", "rake"), ("nor", "negation"), ("card", "rake")]),
])
def test_negations_are_kept(text, expected):
    assert [(k.text, k.source) for k in extract_keywords(text)] == expected


def test_negative_stop_words_of_any_list_become_negation_keywords():
    """With a list that also holds "never" and "cannot" (scikit-learn's does), they do not vanish."""
    keywords = extract_keywords("I never got it and cannot wait", stop_words=STOP_WORDS | {"never", "cannot"})
    assert [(k.text, k.source) for k in keywords] == [
        ("never", "negation"), ("got", "rake"), ("cannot", "negation"), ("wait", "rake"),
    ]


def test_the_stop_list_is_the_authors_with_negations_and_auxiliaries():
    assert NEGATIONS & STOP_WORDS == {"not", "no", "nor"}
    assert BE_HAVE_DO <= STOP_WORDS
    assert {"hadn", "t", "m", "re", "ve", "ca", "wo"} <= STOP_WORDS
    assert "won" not in STOP_WORDS and "never" not in STOP_WORDS


def test_be_have_do_forms_are_never_keywords_even_as_main_verbs():
    text = "I have a card but do I need to be verified? Does it say what it is doing?"
    for stop_words in (STOP_WORDS, frozenset({"a", "i"})):
        found = {keyword.text.lower() for keyword in extract_keywords(text, stop_words=stop_words)}
        assert not found & BE_HAVE_DO


def test_with_the_authors_list_every_noun_and_verb_is_already_in_a_rake_phrase(real_sentences):
    """All RAKE phrases are kept, so the words outside them are stop words, which the
    authors also drop from the nouns and verbs: the step adds nothing on real sentences."""
    sources = {keyword.source for text in real_sentences for keyword in extract_keywords(text)}
    assert sources == {"rake", "negation"}


def test_nouns_and_verbs_outside_rake_phrases_come_back_with_a_larger_stop_list():
    """scikit-learn's list holds "get", "amount" and "top"; tagged as a verb and nouns here,
    they come back as keywords. "in" is a stop word the tagger retags as a verb after
    "me" (a Brill contextual rule); it is not a verb on its own, so it stays out."""
    stop_words = STOP_WORDS | {"get", "amount", "top", "sent"}
    keywords = extract_keywords("How do I get the right amount back?", stop_words=stop_words)
    assert [(k.text, k.source) for k in keywords] == [("get", "verb"), ("right", "rake"), ("amount", "noun"), ("back", "rake")]
    keywords = extract_keywords("Can I track the card that you sent me in the mail?", stop_words=stop_words)
    assert [(k.text, k.source) for k in keywords] == [("track", "rake"), ("card", "rake"), ("sent", "verb"), ("mail", "rake")]


# --- RAKE ---------------------------------------------------------------------------------


def test_rake_scores_of_rose_et_al_worked_example():
    """Rose et al. (2010), figures 1.2-1.4: the candidates of their abstract ("Compatibility
    of systems of linear constraints over the set of natural numbers...") and the scores of
    their table (degree / frequency, summed; "systems" occurs four times)."""
    candidates = [
        "compatibility", "systems", "linear constraints", "set", "natural numbers", "criteria",
        "compatibility", "system", "linear diophantine equations", "strict inequations",
        "nonstrict inequations", "upper bounds", "components", "minimal set", "solutions",
        "algorithms", "minimal generating sets", "solutions", "systems", "criteria",
        "corresponding algorithms", "constructing", "minimal supporting set", "solving",
        "systems", "systems",
    ]
    scores = dict(zip(candidates, phrase_scores([c.split() for c in candidates])))
    expected = {
        "minimal generating sets": 8.7, "linear diophantine equations": 8.5, "minimal supporting set": 7.7,
        "minimal set": 4.7, "linear constraints": 4.5, "natural numbers": 4.0, "strict inequations": 4.0,
        "nonstrict inequations": 4.0, "upper bounds": 4.0, "corresponding algorithms": 3.5, "set": 2.0,
        "algorithms": 1.5, "compatibility": 1.0, "systems": 1.0, "criteria": 1.0, "system": 1.0,
        "components": 1.0, "constructing": 1.0, "solving": 1.0,
    }
    assert {phrase: round(scores[phrase], 1) for phrase in expected} == expected
    ranked = ranked_phrases([c.split() for c in candidates])
    assert [phrase for _, phrase in ranked[:3]] == ["minimal generating sets", "linear diophantine equations",
                                                   "minimal supporting set"]
    assert len(ranked) == len(candidates)  # repeats kept, as rake-nltk's include_repeated_phrases=True


def test_rake_scores_of_a_banking77_sentence_by_hand(shared_data):
    """ "Is a copy of the police report necessary for completing the report process?"
    (BANKING77 test row 453). Candidates: copy | police report necessary | completing |
    report process. "report": frequency 2, degree 3 + 2 = 5, score 2.5; "police",
    "necessary": 3 / 1; "process": 2 / 1; the others 1. Phrases: 1, 3 + 2.5 + 3 = 8.5, 1,
    2.5 + 2 = 4.5."""
    text = pd.read_csv(shared_data / "banking77" / "polyai" / "test.csv")["text"][453]
    assert text == "Is a copy of the police report necessary for completing the report process?"
    phrases = [keyword.text.lower().split() for keyword in extract_keywords(text) if keyword.source == "rake"]
    assert phrases == [["copy"], ["police", "report", "necessary"], ["completing"], ["report", "process"]]
    assert phrase_scores(phrases) == [1.0, 8.5, 1.0, 4.5]


def test_rake_candidates_are_maximal_runs_cut_by_stop_words_and_punctuation():
    # words:  Red  apples  ,  fresh  apples  are  good
    content = [True, True, True, True, False, True]
    joined = [True, False, True, True, True]  # punctuation between words 1 and 2
    assert candidate_runs(content, joined) == [range(0, 2), range(2, 4), range(5, 6)]
    assert candidate_runs([], []) == []
    assert candidate_runs([False, False], [True]) == []
