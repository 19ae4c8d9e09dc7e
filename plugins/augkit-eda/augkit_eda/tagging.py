"""Penn Treebank part-of-speech tags for EDA's words, from TextBlob's English tagger.

The safe synonym mode replaces a verb by a verb and a noun by a noun, so it tags each text
once. The tagger is TextBlob's pattern tagger (``textblob.en``, after Tom de Smedt's
pattern.en, MIT licence): Brill's lexicon of most likely tags (94,000 words), TextBlob's
suffix rules for unknown words, then Brill's contextual rules ("NN becomes VB after TO", so
"to book a flight" has a verb). TextBlob's own ``PatternTagger`` skips the contextual rules;
pattern.en applied them, and without them "I want to book a flight" keeps the noun "book".

This module reads TextBlob's two data files and applies them itself, for two reasons:
importing ``textblob`` imports NLTK and numpy (2.6 s here), and TextBlob's rule loop tries
all 290 rules on every word (600 us a sentence, longer than all of EDA). Applied here, a
rule is only tried on words whose tag it can change: the same tags (a test compares them
with TextBlob's on real sentences) at about 30 us a sentence. TextBlob must be installed
(``pip install textblob``): its files are found without importing it.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Callable, Sequence
from pathlib import Path

#: Tag of an unknown capitalised word (TextBlob's default for English).
PROPER_NOUN_TAG = "NNP"
#: Words that TextBlob's lexicon tags as verbs but that a request uses as politeness
#: markers ("Please help me"): tagged UH (interjection), as the Penn Treebank does, before
#: the contextual rules run, so that the word after them keeps its verb tag.
INTERJECTIONS = frozenset({"please"})
#: TextBlob's pattern for numbers and amounts (``textblob._text.CD``).
_NUMBER = re.compile(r"^[0-9\-,.:/%$]+$")
#: Clitics that pattern's tokenizer splits off ("doesn't" -> "does n't"), for words the
#: lexicon does not hold whole.
_CLITIC = re.compile(r"^(.+?)(n't|'s|'m|'re|'ve|'ll|'d)$", re.IGNORECASE)
#: Sentence-final marks: pattern tags each sentence on its own.
_SENTENCE_END = frozenset(".!?")
_OUTSIDE = ("STAART", "STAART")  # pattern's padding token around a sentence

Token = list  # [word, tag], as pattern's rules read them


def textblob_data_dir() -> Path:
    """TextBlob's ``en`` data folder, found without importing the package."""
    spec = importlib.util.find_spec("textblob")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            "synonyms='safe' tags parts of speech with TextBlob's English tagger, which is not "
            "installed: pip install textblob (or use synonyms='wordnet-all', the "
            "EDA paper's synonyms, which needs no tagger)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "en"


def tagger_available() -> bool:
    """True when TextBlob (the tagger's data) is installed."""
    return importlib.util.find_spec("textblob") is not None


def _data_lines(path: Path) -> list[str]:
    """Non-empty lines without pattern's ``;;;`` comments (as ``textblob._text._read``)."""
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith(";;;")]


def suffix_tag(token: str, tag: str = "NN") -> str:
    """TextBlob's suffix rules for an unknown lower-case word (``textblob._text._suffix_rules``)."""
    if token.endswith("ing"):
        tag = "VBG"
    if token.endswith("ly"):
        tag = "RB"
    if token.endswith("s") and not token.endswith(("is", "ous", "ss")):
        tag = "NNS"
    if token.endswith(("able", "al", "ful", "ible", "ient", "ish", "ive", "less", "tic", "ous")) or "-" in token:
        tag = "JJ"
    if token.endswith("ed"):
        tag = "VBN"
    if token.endswith(("ate", "ify", "ise", "ize")):
        tag = "VBP"
    return tag


#: What each of pattern's contextual conditions looks at, as the keys it is compared with:
#: ``t`` is the sentence's [word, tag] list padded with three STAART tokens each side, ``i``
#: the word's position. A condition with several places ("one of the 2 preceding tags")
#: gives one key per place. Same 25 commands and meanings as ``textblob._text.Context.apply``
#: (pattern also names next1or2or3wd and prev1or2or3wd but never tests them).
CONDITION_KEYS: dict[str, Callable[[list[Token], int], tuple]] = {
    "prevtag": lambda t, i: (t[i - 1][1],),
    "nexttag": lambda t, i: (t[i + 1][1],),
    "prev2tag": lambda t, i: (t[i - 2][1],),
    "next2tag": lambda t, i: (t[i + 2][1],),
    "prev1or2tag": lambda t, i: (t[i - 1][1], t[i - 2][1]),
    "next1or2tag": lambda t, i: (t[i + 1][1], t[i + 2][1]),
    "prev1or2or3tag": lambda t, i: (t[i - 1][1], t[i - 2][1], t[i - 3][1]),
    "next1or2or3tag": lambda t, i: (t[i + 1][1], t[i + 2][1], t[i + 3][1]),
    "surroundtag": lambda t, i: ((t[i - 1][1], t[i + 1][1]),),
    "curwd": lambda t, i: (t[i][0],),
    "prevwd": lambda t, i: (t[i - 1][0],),
    "nextwd": lambda t, i: (t[i + 1][0],),
    "prev1or2wd": lambda t, i: (t[i - 1][0], t[i - 2][0]),
    "next1or2wd": lambda t, i: (t[i + 1][0], t[i + 2][0]),
    "prevwdtag": lambda t, i: ((t[i - 1][0], t[i - 1][1]),),
    "nextwdtag": lambda t, i: ((t[i + 1][0], t[i + 1][1]),),
    "wdprevtag": lambda t, i: ((t[i - 1][1], t[i][0]),),
    "wdnexttag": lambda t, i: ((t[i][0], t[i + 1][1]),),
    "wdand2aft": lambda t, i: ((t[i][0], t[i + 2][0]),),
    "wdand2tagbfr": lambda t, i: ((t[i - 2][1], t[i][0]),),
    "wdand2tagaft": lambda t, i: ((t[i][0], t[i + 2][1]),),
    "lbigram": lambda t, i: ((t[i - 1][0], t[i][0]),),
    "rbigram": lambda t, i: ((t[i][0], t[i + 1][0]),),
    "prevbigram": lambda t, i: ((t[i - 2][1], t[i - 1][1]),),
    "nextbigram": lambda t, i: ((t[i + 1][1], t[i + 2][1]),),
}
#: Commands whose rule compares one value, not a pair (x alone; y unused).
_SINGLE_VALUE = frozenset(
    {"prevtag", "nexttag", "prev2tag", "next2tag", "prev1or2tag", "next1or2tag", "prev1or2or3tag",
     "next1or2or3tag", "curwd", "prevwd", "nextwd", "prev1or2wd", "next1or2wd"}
)

#: For one source tag: command -> key -> (rule number, target tag) of the last such rule.
RuleIndex = dict[str, dict[object, tuple[int, str]]]


class PatternTagger:
    """TextBlob's English lexicon, suffix rules and Brill contextual rules.

    >>> tagger = PatternTagger.load()
    >>> tagger.tag_sentence(["I", "want", "to", "book", "a", "flight"])
    ['PRP', 'VBP', 'TO', 'VB', 'DT', 'NN']
    """

    def __init__(self, lexicon: dict[str, str], rules: Sequence[Sequence[str]]):
        self._lexicon = lexicon
        # pattern tries every rule, in order, on a word whose tag *before* the rules equals
        # the rule's first field (or "*"); the last rule that matches sets the word's tag.
        # So a word needs only the rules of its tag, indexed by the values they compare,
        # and among those that match, the one listed last.
        wildcard: RuleIndex = {}
        by_tag: dict[str, RuleIndex] = {}
        for number, rule in enumerate(rules):
            source, target, command = rule[0], rule[1], rule[2].lower()
            if command not in CONDITION_KEYS:
                continue
            x = rule[3] if len(rule) > 3 else ""
            y = rule[4] if len(rule) > 4 else ""
            key = x if command in _SINGLE_VALUE else (x, y)
            index = wildcard if source == "*" else by_tag.setdefault(source, {})
            index.setdefault(command, {})[key] = (number, target)
        for index in by_tag.values():
            for command, keyed in wildcard.items():
                merged = index.setdefault(command, {})
                for key, rule in keyed.items():
                    merged[key] = max(merged.get(key, rule), rule)
        # Per tag: (what a command compares, its rules by compared value), ready to loop over.
        self._rules = {
            tag: [(CONDITION_KEYS[command], keyed) for command, keyed in index.items()] for tag, index in by_tag.items()
        }
        self._wildcard_rules = [(CONDITION_KEYS[command], keyed) for command, keyed in wildcard.items()]

    @classmethod
    @functools.lru_cache(maxsize=1)
    def load(cls) -> PatternTagger:
        """The tagger over TextBlob's installed data files, read once per process."""
        folder = textblob_data_dir()
        lexicon = dict(line.split(" ")[:2] for line in _data_lines(folder / "en-lexicon.txt"))
        rules = [line.split() for line in _data_lines(folder / "en-context.txt")]
        return cls(lexicon, rules)

    def tag_sentence(self, tokens: Sequence[str]) -> list[str]:
        """Tags of one sentence's tokens (words and punctuation marks), as pattern.en tags
        them: lexicon (a sentence's first word also lower-cased), then for unknown words
        NNP if capitalised, CD if a number, else the suffix rules; then the contextual rules."""
        lexicon = self._lexicon
        tagged: list[Token] = []
        for position, token in enumerate(tokens):
            tag = lexicon.get(token) or (position == 0 and lexicon.get(token.lower())) or None
            if tag is None:
                if token.istitle():
                    tag = PROPER_NOUN_TAG
                elif _NUMBER.match(token):
                    tag = "CD"
                else:
                    tag = suffix_tag(token)
            if token.lower() in INTERJECTIONS:
                tag = "UH"
            tagged.append([token, tag])
        padded = [_OUTSIDE] * 3 + tagged + [_OUTSIDE] * 3
        rules, wildcard = self._rules, self._wildcard_rules
        for i in range(3, len(padded) - 3):
            winner = (-1, "")
            for compared, keyed in rules.get(padded[i][1], wildcard):
                for key in compared(padded, i):
                    rule = keyed.get(key)
                    if rule is not None and rule[0] > winner[0]:
                        winner = rule
            if winner[1]:
                padded[i] = [padded[i][0], winner[1]]
        return [tag for _, tag in padded[3:-3]]

    def tag_words(
        self, words: Sequence[str], glue: Sequence[str], needed: Sequence[bool] | None = None
    ) -> list[str]:
        """One tag per word of a text split into ``words`` and ``glue`` (augkit.text).

        Punctuation marks in the glue take part as tokens, as in pattern (rules look at
        them), sentences are tagged one by one, and a word the lexicon does not hold whole
        that ends in a clitic is tagged as pattern's tokenizer splits it ("doesn't" -> "does
        n't"), taking its first part's tag. With ``needed`` (a flag per word), sentences
        without a needed word are not tagged: their words get "" (the others' tags do not
        change, since each sentence is tagged on its own).
        """
        tags: list[str] = [""] * len(words)
        sentence: list[str] = []
        owners: list[int | None] = []  # word index of each token, None for punctuation

        def flush() -> None:
            if needed is None or any(needed[owner] for owner in owners if owner is not None):
                for owner, tag in zip(owners, self.tag_sentence(sentence)):
                    if owner is not None and not tags[owner]:
                        tags[owner] = tag
            sentence.clear()
            owners.clear()

        for index in range(len(words) + 1):
            for mark in glue[index]:
                if mark.isspace() or mark not in self._lexicon:
                    continue
                sentence.append(mark)
                owners.append(None)
                if mark in _SENTENCE_END:
                    flush()
            if index == len(words):
                break
            word = words[index].replace("’", "'")
            clitic = None if word in self._lexicon else _CLITIC.match(word)
            if clitic:
                sentence.extend(clitic.groups())
                owners.extend((index, None))
            else:
                sentence.append(word)
                owners.append(index)
        flush()
        return tags
