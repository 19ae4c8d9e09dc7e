"""Drop candidates that lose a name, an @mention, a link, an e-mail address or a quoted
string of their source: "an image in Google Documents" -> "a non-Google Docs image"."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from augkit.errors import InvalidParameterError
from augkit.filters.label_safety import LabelSafetyFilter, Mismatch, describe_difference, word_set
from augkit.params import unknown_name_message
from augkit.text import split_words

#: What the filter can look for, all on by default.
KINDS = ("names", "mentions", "urls", "emails", "quotes")
#: Capitalised words that are not names: English closed-class words (articles, pronouns,
#: auxiliaries and modals, prepositions, conjunctions, question words) and the words that
#: open a message ("Hi", "Please", "Thanks"), which title casing or a sentence start
#: capitalises, and the pronoun "I". A word with an apostrophe is looked up by its first
#: part ("It's", "I'm", "Don't").
NOT_NAMES = frozenset("""
    a an the this that these those my your his her its our their some any no every each all
    both either neither another other such what which whose much many more most few several
    i you he she it we they me him us them mine yours ours theirs myself yourself itself
    ourselves themselves someone anyone everyone something anything everything nothing nobody
    there here be is am are was were been being do does did done have has had can could will
    would shall should may might must how why when where who whom whether in on at to from
    for of with without by about into onto over under after before between through during
    since until via per than as like up down out off within across against among around
    behind beyond near upon and or but if so because while although though unless then also
    yet nor not just only very too still already now please hi hello hey thanks thank yes
    yeah ok okay dear sorry well oh
""".split())

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(
    r"(?:https?://|www\.)[^\s<>\"']+"
    r"|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|io|co|uk|de|fr|info|me|ly)\b(?:/[^\s<>\"']*)?",
    re.IGNORECASE,
)
_MENTION = re.compile(r"(?<![\w@])@\w+")
#: Straight and typographic double quotes, typographic single quotes (the closing one read
#: as "'" like every apostrophe), and straight single quotes that are not apostrophes (no
#: letter before the opening one or after the closing one).
_QUOTE = re.compile(r"\"([^\"\n]{1,200})\"|\u201c([^\u201d\n]{1,200})\u201d|\u2018([^'\n]{1,200})'|(?<!\w)'([^'\n]{1,200}?)'(?!\w)")
_TRAILING_PUNCTUATION = ".,;:!?)]}'\""
#: Acronyms written with dots ("U.S.", "e.g."), read without them ("US") on both sides.
_DOTTED_ACRONYM = re.compile(r"\b(?:[A-Za-z]\.){1,}[A-Za-z]\b\.?")
#: Longest acronym whose words a candidate may spell out instead ("ATM" -> "automated teller
#: machine"); longer all-capital words are rarely acronyms of words in the same text.
_MAX_SPELLED_OUT = 6
#: What before a word makes it start a sentence (after spaces, quotes and brackets are set aside).
_SENTENCE_ENDS = (".", "!", "?", ":", ";", "-", "\u2013", "\u2014", "\u2026")
_OPENERS = " \t\"'\u201c\u2018([{*\u2022"
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})


@dataclass(frozen=True)
class Entity:
    """A name, mention, link, address or quote of a source: its ``kind``, the text as
    ``written``, and the lower-case ``words`` (names, quotes) or ``needle`` (the others) a
    candidate must contain to keep it."""

    kind: str
    written: str
    words: tuple[str, ...] = ()
    needle: str = ""


@dataclass(frozen=True)
class EntityClues:
    """A text's entities, plus what a candidate is searched in: its lower-case words (hyphen
    parts split, possessive "'s" removed) and its lower-cased text."""

    entities: tuple[Entity, ...]
    words: tuple[str, ...]
    lowered: str


class EntitiesFilter(LabelSafetyFilter):
    """Drops a candidate that loses a name, @mention, link, e-mail address or quoted string
    of its source.

    What counts as a name: a capitalised word that does not start a sentence (start of the
    text, or after . ! ? : ; or a spaced dash) and is not in ``not_names`` ("I", "How",
    "The", ...); and anywhere, a word with a capital after its first letter (acronyms and
    brand casing: PPE, CDC, COVID-19, YouTube, iPhone). Neighbouring name words make one
    name ("Google Documents"). A text in capitals gives no names; in Title Case, only the
    acronyms. So a name that opens a sentence ("Facebook detects ...") is not protected,
    and a lower-cased text (CLINC150) has none.

    The candidate keeps a name when it contains each of its words, in any case and order,
    alone or in a hyphenated word ("non-Google" contains Google; "COVID 19" contains
    COVID-19), plural or not ("Google Doc" keeps "Google Docs"); an acronym of up to six
    letters is also kept when words of the candidate spell it ("ATM" -> "automated teller
    machine"; "equipment (PPE)" -> "equipment"); dots in acronyms are ignored ("U.S." =
    "US"). "Google Documents" -> "Google Docs" loses the name. Mentions, links (http://,
    www., or a bare domain such as google.com) and addresses must appear in the candidate
    as written (any case); a quoted string's words must appear in a row ("send from").
    Names the candidate adds are not checked. Known false alarms: a name said otherwise
    ("ATM" -> "cash machine", "Europe" -> "EU"), a word capitalised for emphasis
    ("Top up").

    Adds the score ``entities_lost``: how many of the source's entities the candidate lost
    (0 for every kept candidate). ``explain(source, text)`` names them.

    Parameters
    ----------
    kinds : list of str or str
        What to check, among names, mentions, urls, emails, quotes (a list, or
        comma-separated); default all.
    not_names : list of str or str, optional
        Capitalised words that are never names (a list, or comma-separated); None: English
        function words, greetings and "I" (``augkit.filters.entities.NOT_NAMES``).
    """

    name = "entities"
    scores = ("entities_lost",)

    def __init__(self, kinds: Collection[str] | str = KINDS, not_names: Collection[str] | str | None = None):
        self._kinds = word_set(self.name, "kinds", kinds, KINDS)
        for kind in self._kinds:
            if kind not in KINDS:
                raise InvalidParameterError(unknown_name_message("kind", kind, list(KINDS), owner=self.name))
        self._not_names = word_set(self.name, "not_names", not_names, NOT_NAMES)
        self.kinds = kinds
        self.not_names = not_names

    def clues(self, text: str) -> EntityClues:
        """The entities of ``text`` and the words a candidate is searched in.

        >>> [e.written for e in EntitiesFilter().clues("Is the CDC on Twitter as @CDCgov? I saw it").entities]
        ['@CDCgov', 'CDC', 'Twitter']
        """
        text = _DOTTED_ACRONYM.sub(lambda m: m.group().replace(".", ""), text.translate(_APOSTROPHES))
        entities: list[Entity] = []
        rest = text
        for kind, pattern in (("emails", _EMAIL), ("urls", _URL), ("mentions", _MENTION)):
            for match in pattern.finditer(rest):
                written = match.group().rstrip(_TRAILING_PUNCTUATION)
                if kind in self._kinds and written:
                    entities.append(Entity(kind, written, needle=written.lower()))
            rest = pattern.sub(lambda m: " " * len(m.group()), rest)  # their words are not names
        if "quotes" in self._kinds:
            for match in _QUOTE.finditer(rest):
                quoted = next(group for group in match.groups() if group is not None)
                words = _word_keys(quoted)
                if words:
                    entities.append(Entity("quotes", quoted.strip(), words=words))
        if "names" in self._kinds:
            entities += self._names(rest)
        # One entity per text: a quoted name ('Archive') counts once, as the quote found first.
        unique = {}
        for entity in entities:
            unique.setdefault((entity.words, entity.needle), entity)
        return EntityClues(tuple(unique.values()), _word_keys(text), text.lower())

    def _names(self, text: str) -> list[Entity]:
        sequence = split_words(text)
        words, glue = sequence.words, sequence.glue
        lettered = [w for w in words if w[:1].isalpha() and len(w) > 1]
        if len(lettered) >= 3 and 2 * sum(w.isupper() for w in lettered) > len(lettered):
            return []  # written in capitals: casing tells nothing
        long_words = [w for w in lettered if len(w) >= 4]
        title_case = len(long_words) >= 3 and all(w[0].isupper() for w in long_words)
        names: list[list[str]] = []
        joinable = False
        for index, word in enumerate(words):
            starts_sentence = index == 0 or _ends_sentence(glue[index])
            if not self._is_name(word, starts_sentence, title_case):
                joinable = False
                continue
            if joinable and not glue[index].strip():
                names[-1].append(word)
            else:
                names.append([word])
            joinable = True
        return [Entity("names", " ".join(name), words=_word_keys(" ".join(name))) for name in names]

    def _is_name(self, word: str, starts_sentence: bool, title_case: bool) -> bool:
        if not word[:1].isalpha() or word.lower().split("'")[0] in self._not_names:
            return False
        if any(letter.isupper() for letter in word[1:]):
            return True  # PPE, COVID-19, YouTube, iPhone
        return word[0].isupper() and not starts_sentence and not title_case

    def compare(self, source_clues: EntityClues, candidate_clues: EntityClues) -> Mismatch:
        lost = [entity.written for entity in source_clues.entities if not _kept(entity, candidate_clues, self._not_names)]
        return Mismatch(len(lost), describe_difference("entity", lost, ()))


def _kept(entity: Entity, candidate: EntityClues, not_names: frozenset[str]) -> bool:
    if entity.needle:
        return entity.needle in candidate.lowered
    if entity.kind == "quotes":
        return _contains_run(candidate.words, entity.words)
    if set(entity.words) <= set(candidate.words):
        return True
    return len(entity.words) == 1 and _spelled_out(entity.written, candidate.words, not_names)


def _contains_run(words: tuple[str, ...], run: tuple[str, ...]) -> bool:
    return any(words[start : start + len(run)] == run for start in range(len(words) - len(run) + 1))


def _spelled_out(acronym: str, words: tuple[str, ...], not_names: frozenset[str]) -> bool:
    """"ATM" in "the automated teller machine": neighbouring words, none of them a function
    word (so that a long text does not spell it by chance), whose initials spell it."""
    stem = acronym.removesuffix("s")  # "ATMs"
    if not (2 <= len(stem) <= _MAX_SPELLED_OUT and stem.isalpha() and stem.isupper()):
        return False
    letters = stem.lower()
    initials = "".join(" " if word in not_names else word[0] for word in words)
    return letters in initials


def _word_keys(text: str) -> tuple[str, ...]:
    """The lower-case words of ``text``, hyphenated words split into their parts, a possessive
    "'s" removed and a plural "s" too ("Docs" = "Doc", "ATMs" = "ATM"): what names and
    quotes are matched on."""
    keys = []
    for word in split_words(text.translate(_APOSTROPHES).lower()).words:
        word = word.removesuffix("'s")
        parts = [part for part in re.split(r"[-']", word) if part] if "-" in word else [word]
        keys += [_singular(part) for part in parts]
    return tuple(keys)


def _singular(word: str) -> str:
    """``word`` without a plural "s" (not "ss", not in words of three letters or fewer)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _ends_sentence(glue: str) -> bool:
    """True when the text between two words ends a sentence (or a line, or a dash-separated part)."""
    if "\n" in glue:
        return True
    return glue.rstrip(_OPENERS).endswith(_SENTENCE_ENDS)
