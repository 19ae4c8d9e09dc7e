"""The default safe synonyms on real BANKING77 and CLINC150 texts: the meaning-changing
candidates of issue 13 never come back, part of speech and form are kept, and the options
and errors say what they do."""

from __future__ import annotations

import pickle
import random
import re

import pytest
from augkit_eda import EDA
from augkit_eda.inflection import UNCHANGED_PAST
from augkit_eda.stopwords import EDA_STOP_WORDS
from augkit_eda.synonyms import REPLACEABLE_TAGS, SafeSynonyms, WordNetAllSynonyms
from augkit_eda.tagging import PatternTagger
from augkit_eda.wordnet import default_lexicon

import augkit
from augkit.plugin import split_words

#: Issue 13's candidates that change the meaning, with the word they came from.
MEANING_CHANGERS = {
    "add": ["attention deficit disorder", "ADD"],
    "know": ["have sex", "experience"],
    "play": ["have sex", "child's play", "drama"],
    "book": ["Word", "Bible", "Koran", "volume"],
}
SYNONYMS_ONLY = dict(alpha_sr=0.3, alpha_ri=0.3, alpha_rs=0, p_rd=0)


@pytest.fixture(scope="module")
def banking77_texts(shared_data) -> list[str]:
    """3,000 BANKING77 training texts (original casing and punctuation)."""
    import pandas as pd

    return pd.read_csv(shared_data / "banking77" / "polyai" / "train.csv")["text"].iloc[300:3300].tolist()


@pytest.fixture(scope="module")
def texts_with(shared_data) -> dict[str, list[str]]:
    """For each of the issue's words, real texts that use it: BANKING77 (train and test) for
    "add", "know" and "play", CLINC150 for "book" (BANKING77 never books anything)."""
    import pandas as pd

    banking = pd.concat(
        pd.read_csv(shared_data / "banking77" / "polyai" / f"{split}.csv")["text"] for split in ("train", "test")
    ).tolist()
    clinc = (shared_data / "clinc150" / "jianguoz" / "train" / "seq.in").read_text(encoding="utf-8").splitlines()
    found = {}
    for word in MEANING_CHANGERS:
        pattern = re.compile(rf"\b{word}\b", re.IGNORECASE)
        found[word] = [text for text in (clinc if word == "book" else banking) if pattern.search(text)][:150]
        assert len(found[word]) >= 8, word
    return found


def candidates_by_word(source, texts: list[str]) -> dict[str, set[str]]:
    """Every synonym the source offers for each lower-case word of ``texts``."""
    offered: dict[str, set[str]] = {}
    for text in texts:
        sequence = split_words(text)
        lowered = [word.lower() for word in sequence.words]
        for low, synonyms in zip(lowered, source.for_words(sequence, lowered)[1]):
            offered.setdefault(low, set()).update(synonyms)
    return offered


@pytest.mark.parametrize("word", sorted(MEANING_CHANGERS))
def test_the_issues_meaning_changers_never_come_back(word, texts_with):
    texts = texts_with[word]
    safe = candidates_by_word(SafeSynonyms(EDA_STOP_WORDS), texts).get(word, set())
    assert not safe & set(MEANING_CHANGERS[word])
    outputs = augkit.augment(texts, EDA(**SYNONYMS_ONLY), n=4, seed=0)
    for text, row in zip(texts, outputs):
        for output in row:
            for bad in MEANING_CHANGERS[word]:
                assert re.search(rf"\b{re.escape(bad)}\b", output) is None or bad in text, (text, output)


def test_the_original_mode_still_offers_them(texts_with):
    """The same texts give the issue's candidates with synonyms="wordnet-all" (so the test
    above tests something)."""
    offered = {
        word: candidates_by_word(WordNetAllSynonyms(EDA_STOP_WORDS), texts_with[word]).get(word, set())
        for word in MEANING_CHANGERS
    }
    assert "attention deficit disorder" in offered["add"]
    assert "have sex" in offered["know"]
    assert "Word" in offered["book"]


def test_no_capitalised_multiword_or_rare_candidates_by_default(banking77_texts):
    lexicon = default_lexicon()
    offered = {c for found in candidates_by_word(SafeSynonyms(EDA_STOP_WORDS), banking77_texts).values() for c in found}
    assert len(offered) > 100
    assert [c for c in offered if c != c.lower() or " " in c or "_" in c] == []
    rare = [c for c in offered if max(lexicon.zipf(c), *(lexicon.zipf(b) for p in "nvar" for b in lexicon.base_forms(c, p))) < 3.5]
    assert rare == []


def test_multiword_and_proper_nouns_only_when_asked(texts_with, banking77_texts):
    texts = banking77_texts[:1500] + texts_with["book"]
    asked = SafeSynonyms(EDA_STOP_WORDS, multiword=True, proper_nouns=True, min_zipf=0)
    offered = {c for found in candidates_by_word(asked, texts).values() for c in found}
    assert any(" " in c for c in offered)
    assert any(c != c.lower() for c in offered)


def test_a_higher_frequency_floor_offers_a_subset(banking77_texts):
    texts = banking77_texts[:1000]
    default = candidates_by_word(SafeSynonyms(EDA_STOP_WORDS), texts)
    stricter = candidates_by_word(SafeSynonyms(EDA_STOP_WORDS, min_zipf=4.5), texts)
    assert all(stricter[word] <= default[word] for word in default)
    assert sum(map(len, stricter.values())) < sum(map(len, default.values()))


def test_part_of_speech_and_form_are_kept(banking77_texts):
    """Each candidate is a WordNet lemma of the word's tagged part of speech, in the word's
    form: a verb by a verb, a past tense by a past tense, a plural noun by a plural noun."""
    lexicon = default_lexicon()
    tagger = PatternTagger.load()
    safe = SafeSynonyms(EDA_STOP_WORDS)

    def inflected(word: str, pos: str) -> bool:
        return any(base != word for base in lexicon.base_forms(word, pos)) or word in UNCHANGED_PAST

    checked = {"n": 0, "v": 0, "a": 0, "r": 0}
    for text in banking77_texts:
        sequence = split_words(text)
        lowered = [word.lower() for word in sequence.words]
        tags = tagger.tag_words(sequence.words, sequence.glue)
        for low, tag, synonyms in zip(lowered, tags, safe.for_words(sequence, lowered)[1]):
            pos = REPLACEABLE_TAGS[tag][0] if synonyms else None
            for synonym in synonyms:
                assert lexicon.base_forms(synonym, pos), (text, low, tag, synonym)
                if tag in ("VBZ", "VBD", "VBN", "VBG") or pos == "n" and inflected(low, "n"):
                    assert inflected(synonym, pos), (text, low, tag, synonym)
                if tag == "VBG":
                    assert synonym.endswith("ing")
                checked[pos] += 1
    assert checked["v"] > 200 and checked["n"] > 100 and checked["r"] > 10


@pytest.mark.parametrize("text, word, expected", [
    ("Why was I charged for a payment to this service?", "charged", {"billed"}),
    ("I bought a new phone but the payment is still pending", "bought", {"purchased"}),
    ("I used my card at the store yesterday", "used", {"utilized", "employed"}),
    ("Please help me find my card", "help", {"assist", "aid"}),  # a verb after "please"
    ("How do I add money to my account?", "add", set()),  # "ADD" is also an acronym in WordNet
    ("I need to top up my card", "top", set()),  # phrasal verb
    ("Where is my PIN?", "PIN", set()),
    ("What is the exchange rate?", "exchange", set()),  # modifies the next noun
    ("If someone sends me money, will I be charged?", "someone", set()),
])
def test_synonyms_in_context(text, word, expected):
    assert set(EDA().synonyms_of(word, text)) == expected


def test_outputs_do_not_depend_on_row_order_or_what_came_before(banking77_texts):
    """Caches hold only context-free facts: a fresh EDA on shuffled rows gives each row the
    same outputs, as augkit's per-row seeding promises."""
    texts = banking77_texts[:200]
    first = {text: EDA().augment(text, 3, random.Random(text)) for text in texts}
    shuffled = texts[:]
    random.Random(1).shuffle(shuffled)
    eda = EDA()
    assert {text: eda.augment(text, 3, random.Random(text)) for text in shuffled} == first


def test_pickled_eda_augments_the_same(banking77_texts):
    eda = EDA()
    text = banking77_texts[0]
    expected = eda.augment(text, 4, random.Random(0))
    restored = pickle.loads(pickle.dumps(eda))
    assert restored.augment(text, 4, random.Random(0)) == expected


@pytest.mark.parametrize("value", ["wordnet", "all", "", "SAFE"])
def test_an_unknown_synonyms_value_lists_the_valid_ones(value):
    with pytest.raises(ValueError, match=r"unknown synonyms .*; valid: 'safe', 'wordnet-all'"):
        EDA(synonyms=value)
    with pytest.raises(augkit.InvalidParameterError, match="valid: 'safe', 'wordnet-all'"):
        augkit.augment(["I lost my card"], "eda", synonyms=value)


def test_safe_only_options_are_refused_with_wordnet_all():
    with pytest.raises(ValueError, match="min_zipf, multiword only apply to synonyms='safe'"):
        EDA(synonyms="wordnet-all", min_zipf=4, multiword=True)
    with pytest.raises(ValueError, match="min_zipf must be a Zipf frequency"):
        EDA(min_zipf=-1)


def test_without_textblob_the_default_says_what_to_install(monkeypatch):
    import augkit_eda.eda

    monkeypatch.setattr(augkit_eda.eda, "tagger_available", lambda: False)
    with pytest.raises(ValueError, match=r"pip install textblob.*synonyms='wordnet-all'"):
        EDA()
    assert EDA(synonyms="wordnet-all").augment("I lost my card", 2, random.Random(0))


def test_info_and_the_command_line_know_the_synonym_modes(tmp_path, capsys):
    from augkit.testing import run_command

    assert run_command(["info", "eda"]) == 0
    info = capsys.readouterr().out
    assert "synonyms: str = 'safe'" in info and '"wordnet-all": every lemma' in " ".join(info.split())
    assert "min_zipf: float = 3.5" in info and "multiword: bool = False" in info
    source = tmp_path / "in.csv"
    source.write_text("text\nHow do I add money to my card?\nI want to know why my card was declined\n")
    for mode in ("safe", "wordnet-all"):
        assert run_command(["augment", str(source), "-m", "eda", "-n", "2", "--seed", "0",
                         "-p", f"synonyms={mode}", "-o", str(tmp_path / f"{mode}.csv")]) == 0
    assert run_command(["augment", str(source), "-m", "eda", "-p", "synonyms=all", "-o", str(tmp_path / "x.csv")]) != 0
    assert "valid: 'safe', 'wordnet-all'" in capsys.readouterr().err
