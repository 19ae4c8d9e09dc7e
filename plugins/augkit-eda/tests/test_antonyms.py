"""WordNet's antonyms, as ParaMac refuses them for a substitute: direct ones exactly as NLTK's
``Lemma.antonyms()`` gives them, indirect ones of adjectives through WordNet's clusters."""

from __future__ import annotations

import random

from augkit_eda.wordnet import PARTS_OF_SPEECH, default_lexicon

#: Lemmas per part of speech in the comparison with NLTK: adjectives weigh most, since they
#: carry the indirect antonyms; about one noun lemma in fifty has an antonym at all.
SAMPLE_SIZES = {"n": 100, "v": 100, "a": 200, "r": 50}
SAMPLE_SEED = 20240
#: Words whose antonyms take every path: inflections, satellites, a head synset's other
#: lemma ("uncomplete", "cognisant"), synonyms that are also antonyms ("blessed", "used",
#: "hungry"), multiword lemmas.
EXAMPLES = ["big", "larger", "tiny", "better", "best", "won", "lost", "increases", "uncomplete",
            "cognisant", "blessed", "used", "hungry", "maternal", "seaward", "later", "fall_asleep"]


def spelling(name: str) -> str:
    return name.lower().replace("_", " ")


def nltk_antonyms(wordnet, word: str) -> tuple[set[str], set[str]]:
    """(direct, all) antonyms of ``word`` by NLTK's WordNet reader, following the definition
    of ``WordNetLexicon.antonyms`` independently of the shipped lexicon."""
    direct: set[str] = set()
    indirect: set[str] = set()
    for pos in PARTS_OF_SPEECH:
        for form in wordnet._morphy(word.lower(), pos):
            for synset in wordnet.synsets(form, pos):
                direct |= {spelling(antonym.name()) for lemma in synset.lemmas()
                           if lemma.name().lower() == form for antonym in lemma.antonyms()}
                if pos != "a":
                    continue
                satellite = synset.pos() == "s"
                for head in synset.similar_tos() if satellite else [synset]:
                    for antonym in (antonym for lemma in head.lemmas() for antonym in lemma.antonyms()):
                        opposite = antonym.synset()
                        members = [opposite, *([] if satellite else opposite.similar_tos())]
                        indirect |= {spelling(name) for member in members for name in member.lemma_names()}
    synonyms = {spelling(name) for synset in wordnet.synsets(word) for name in synset.lemma_names()}
    return direct, direct | (indirect - synonyms)


def test_large_and_small_are_antonyms_both_ways():
    lexicon = default_lexicon()
    assert lexicon.direct_antonyms("large") == {"small"}
    assert {"small", "little"} <= lexicon.antonyms("large")
    assert {"large", "big"} <= lexicon.antonyms("small")
    assert lexicon.is_antonym("large", "small") and lexicon.is_antonym("small", "large")


def test_big_is_opposite_to_small_little_and_their_satellites_but_not_to_its_synonyms():
    lexicon = default_lexicon()
    antonyms = lexicon.antonyms("big")
    assert {"small", "little", "tiny", "minuscule", "wee"} <= antonyms
    assert not {"big", "large", "huge", "great", "bigger"} & antonyms
    assert lexicon.is_antonym("big", "small")
    assert not lexicon.is_antonym("big", "large")


def test_a_satellite_is_opposite_to_the_antonym_head_only():
    lexicon = default_lexicon()
    # "tiny" is similar to "small, little", whose antonym head is "large, big"; "huge" is a
    # satellite of that head, one step further than WordNet goes.
    assert lexicon.antonyms("tiny") == {"large", "big"}
    assert lexicon.is_antonym("tiny", "big") and lexicon.is_antonym("big", "tiny")
    assert not lexicon.is_antonym("tiny", "huge")


def test_good_and_bad():
    lexicon = default_lexicon()
    assert lexicon.direct_antonyms("good") == {"bad", "evil"}
    assert "good" in lexicon.antonyms("bad")
    assert lexicon.is_antonym("good", "bad")
    assert not lexicon.is_antonym("good", "great")


def test_verbs_increase_decrease_and_win_lose():
    lexicon = default_lexicon()
    assert "decrease" in lexicon.antonyms("increase")
    assert "increase" in lexicon.antonyms("decrease")
    assert lexicon.direct_antonyms("win") == {"lose"}
    assert "win" in lexicon.antonyms("lose")
    assert lexicon.is_antonym("win", "lose")


def test_inflected_forms_are_compared_by_their_base_forms():
    lexicon = default_lexicon()
    assert "small" in lexicon.antonyms("larger")
    assert lexicon.is_antonym("smaller", "large")
    assert lexicon.is_antonym("large", "smaller")
    assert lexicon.is_antonym("increases", "decreased")
    assert lexicon.is_antonym("won", "lost")
    assert lexicon.is_antonym("winning", "losing")
    assert "worse" in lexicon.antonyms("better")


def test_lookups_ignore_case_and_accept_either_spelling_of_multiword_lemmas():
    lexicon = default_lexicon()
    assert lexicon.antonyms("Large") == lexicon.antonyms("large")
    assert lexicon.antonyms("fall asleep") == lexicon.antonyms("fall_asleep") == {"wake up"}
    assert lexicon.is_antonym("fall asleep", "wake_up")


def test_words_without_antonyms_give_an_empty_set():
    lexicon = default_lexicon()
    for word in ("table", "the", "banking", "qwxzv", ""):
        assert lexicon.antonyms(word) == frozenset()
        assert not lexicon.is_antonym(word, "small")


def test_a_synonym_is_never_an_indirect_antonym():
    lexicon = default_lexicon()
    # "blessed" (vs. "cursed") also sits in a satellite of "cursed" ("every blessed minute"),
    # beside "damned": a word is not its own opposite, nor that of its synonyms.
    assert "cursed" in lexicon.antonyms("blessed")
    assert not {"blessed", "damned"} & lexicon.antonyms("blessed")
    for word in ("hard", "light", "fine", "open", "right", "used", "late", "fledgling"):
        synonyms = {name.lower().replace("_", " ") for name in lexicon.lemma_names(word)}
        assert lexicon.antonyms(word) & synonyms <= lexicon.direct_antonyms(word)


def test_antonyms_match_nltk_wordnet(nltk_wordnet, banking77_vocabulary):
    lexicon = default_lexicon()
    rng = random.Random(SAMPLE_SEED)
    words = [word for pos, size in SAMPLE_SIZES.items()
             for word in rng.sample(sorted(nltk_wordnet.all_lemma_names(pos)), size)]
    words += rng.sample(banking77_vocabulary, 100) + EXAMPLES
    # NLTK's own antonyms of the sample join it, so most of it has antonyms to compare.
    found = {antonym for word in words for antonym in nltk_antonyms(nltk_wordnet, word)[0]}
    words += sorted(antonym.replace(" ", "_") for antonym in found)
    direct_mismatches, mismatches = [], []
    for word in words:
        direct, everything = nltk_antonyms(nltk_wordnet, word)
        if lexicon.direct_antonyms(word) != direct:
            direct_mismatches.append(word)
        if lexicon.antonyms(word) != everything:
            mismatches.append(word)
    assert sum(bool(lexicon.direct_antonyms(word)) for word in words) > 150
    assert sum(bool(lexicon.antonyms(word) - lexicon.direct_antonyms(word)) for word in words) > 150
    assert direct_mismatches == []
    assert mismatches == []
