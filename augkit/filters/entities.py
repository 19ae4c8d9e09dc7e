"""Drop candidates that lose a name, an @mention, a link, an e-mail address or a quoted
string of their source: "an image in Google Documents" -> "a non-Google Docs image"."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from augkit.errors import InvalidParameterError
from augkit.filters.label_safety import LabelSafetyFilter, Mismatch, word_set
from augkit.filters.learnt_names import SOURCES, NameGazetteer, learn_names
from augkit.steps.context import DatasetContext
from augkit.steps.params import unknown_name_message
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
    #: Why a name found in lower case is one (how :meth:`EntitiesFilter.prepare` learnt it).
    why: str = ""


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
    acronyms. So a name that opens a sentence ("Facebook detects ...") is not found by its
    casing, and a lower-cased text (CLINC150) shows none.

    Names in lower-case rows are learnt from the data set being augmented (``learn``):
    :meth:`prepare` sees every original of the run and builds a gazetteer, applied to every
    row in any case, from ``capitalised`` (a word or phrase written capitalised mid-sentence
    in the data at least as often as in lower case: "Jules" in one row makes "jules" a name
    in all; "US" does not make "us" one), ``protected`` (the run's protected spans, such as
    slot values: "oath of swords" protected in one row is a name in every row; spans made
    only of numbers, single letters or ``not_names`` are left out) and ``rare`` (a word
    rare in English, Zipf frequency below 3 in ``wordfreq``, found in two rows or more, and
    not a plural or a one-letter slip of a common word: "amex", "xfinity"; on CLINC150 and
    BANKING77 about half of these are names, most of the rest the domain's own terms,
    "pto", "contactless"). What it cannot see: in lower-case data with no cased rows and
    no protected spans, any name whose words are all in common English use (Zipf 3 or
    more: "oath of swords", "olive garden", "judge jules", "philadelphia", "chipotle"),
    or rare but found in one row only; and no name at all when the filter runs without
    :meth:`prepare` (``explain()`` called by hand sees its two texts only).

    The candidate keeps a name when it contains each of its words, in any case and order,
    alone or in a hyphenated word ("non-Google" contains Google; "COVID 19" contains
    COVID-19), plural or not ("Google Doc" keeps "Google Docs"); an acronym of up to six
    letters is also kept when words of the candidate spell it ("ATM" -> "automated teller
    machine"; "equipment (PPE)" -> "equipment"); dots in acronyms are ignored ("U.S." =
    "US"). "Google Documents" -> "Google Docs" loses the name. Mentions, links (http://,
    www., or a bare domain such as google.com) and addresses must appear in the candidate
    as written (any case); a quoted string's words must appear in a row ("send from").
    A name is also kept written joined or apart ("timezone" -> "time zone", "jet blue" ->
    "jetblue"). Names the candidate adds are not checked. Known false alarms: a name said
    otherwise ("ATM" -> "cash machine", "Europe" -> "EU", a learnt "passcode" -> "access
    code"), a word capitalised for emphasis ("Top up").

    Adds the score ``entities_lost``: how many of the source's entities the candidate lost
    (0 for every kept candidate). ``explain(source, text)`` names them, and why a learnt
    one is a name: "entity lost: 'jules' (written 'Jules' in the data)".

    Parameters
    ----------
    kinds : list of str or str
        What to check, among names, mentions, urls, emails, quotes (a list, or
        comma-separated); default all.
    not_names : list of str or str, optional
        Capitalised words that are never names (a list, or comma-separated); None: English
        function words, greetings and "I" (``augkit.filters.entities.NOT_NAMES``).
    learn : list of str or str
        Where :meth:`prepare` learns lower-case names from, among capitalised, protected,
        rare (a list, or comma-separated); default all; an empty list: none. Learning makes
        every decision depend on all the originals of the run (``needs_all_texts``): a
        streamed file is read once more, its text column only, before the first chunk, and
        a streamed Hugging Face ``IterableDataset`` is refused; with ``learn=[]`` neither.
    """

    name = "entities"
    scores = ("entities_lost",)

    def __init__(self, kinds: Collection[str] | str = KINDS, not_names: Collection[str] | str | None = None,
                 learn: Collection[str] | str = SOURCES):
        self._kinds = _known(self.name, "kinds", "kind", kinds, KINDS)
        self._not_names = word_set(self.name, "not_names", not_names, NOT_NAMES)
        self._learn = _known(self.name, "learn", "source", learn, SOURCES)
        self.kinds = kinds
        self.not_names = not_names
        self.learn = learn
        #: Learning names makes every decision depend on all the originals of the run.
        self.needs_all_texts = bool(self._learn) and "names" in self._kinds
        self._gazetteer = NameGazetteer()

    def prepare(self, dataset: DatasetContext) -> None:
        """Learn the run's lower-case names from all its originals (see ``learn``): names
        written capitalised elsewhere in the data, the protected spans, rare words that recur."""
        if not self.needs_all_texts:
            return
        self._gazetteer = learn_names(
            dataset.texts, dataset.protected, self._learn,
            keyed_words=_keyed_words, capitalised_in=self._capitalised_in,
            is_name_word=lambda word: word not in self._not_names,
        )

    @property
    def learnt_names(self) -> dict[str, str]:
        """The names :meth:`prepare` learnt, in lower case, with why each is one.

        >>> step = EntitiesFilter()
        >>> step.prepare(augkit.DatasetContext(texts=["play jules", "a song by Jules please"]))
        >>> step.learnt_names
        {'jules': "written 'Jules' in the data"}
        """
        return {name.written.lower(): name.why for name in self._gazetteer.names.values()}

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
            entities += self._learnt(rest)
        # One entity per text: a quoted name ('Archive') counts once, as the quote found first.
        unique = {}
        for entity in entities:
            unique.setdefault((entity.words, entity.needle), entity)
        return EntityClues(tuple(unique.values()), _word_keys(text), text.lower())

    def _learnt(self, text: str) -> list[Entity]:
        """The names of the gazetteer :meth:`prepare` learnt, found in ``text`` in any case."""
        if not len(self._gazetteer):
            return []
        pairs = _keyed_words(text)
        return [
            Entity("names", " ".join(written for _, written in pairs[start:end]), words=name.words, why=name.why)
            for start, end, name in self._gazetteer.find([key for key, _ in pairs])
        ]

    def _capitalised_in(self, text: str) -> list[tuple[tuple[str, ...], str]] | None:
        """The names the casing of ``text`` shows, or None when its casing says nothing (no
        capital, all capitals, Title Case): what ``learn="capitalised"`` counts."""
        words = split_words(text).words
        if not any(letter.isupper() for letter in text) or _casing(words) != "mixed":
            return None
        return [(entity.words, entity.written) for entity in self._names(text)]

    def _names(self, text: str) -> list[Entity]:
        sequence = split_words(text)
        words, glue = sequence.words, sequence.glue
        casing = _casing(words)
        if casing == "capitals":
            return []  # written in capitals: casing tells nothing
        title_case = casing == "title"
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
        lost = [entity for entity in source_clues.entities if not _kept(entity, candidate_clues, self._not_names)]
        described = [repr(entity.written) + (f" ({entity.why})" if entity.why else "") for entity in lost]
        return Mismatch(len(lost), f"entity lost: {', '.join(described)}" if lost else "")


def _known(step: str, parameter: str, what: str, value: Collection[str] | str, known: tuple[str, ...]) -> frozenset[str]:
    """A list parameter whose words must be among ``known`` (an empty list: none)."""
    if isinstance(value, (list, tuple, set, frozenset)) and not value:
        return frozenset()
    words = word_set(step, parameter, value, known)
    for word in words:
        if word not in known:
            raise InvalidParameterError(unknown_name_message(what, word, list(known), owner=step))
    return words


def _casing(words: list[str]) -> str:
    """How a text's words are written: "capitals" (mostly), "title" (Title Case), or "mixed"."""
    lettered = [w for w in words if w[:1].isalpha() and len(w) > 1]
    if len(lettered) >= 3 and 2 * sum(w.isupper() for w in lettered) > len(lettered):
        return "capitals"
    long_words = [w for w in lettered if len(w) >= 4]
    return "title" if len(long_words) >= 3 and all(w[0].isupper() for w in long_words) else "mixed"


def _kept(entity: Entity, candidate: EntityClues, not_names: frozenset[str]) -> bool:
    if entity.needle:
        return entity.needle in candidate.lowered
    if entity.kind == "quotes":
        return _contains_run(candidate.words, entity.words)
    if set(entity.words) <= set(candidate.words) or _written_joined_or_apart(entity.words, candidate.words):
        return True
    return len(entity.words) == 1 and _spelled_out(entity.written, candidate.words, not_names)


def _written_joined_or_apart(name: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """"timezone" written "time zone", "jet blue" written "jetblue"."""
    if len(name) > 1:
        return _singular("".join(name)) in words
    return any(_singular(first + second) == name[0] for first, second in zip(words, words[1:]))


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
    return tuple(key for key, _ in _keyed_words(text))


def _keyed_words(text: str) -> list[tuple[str, str]]:
    """Each word of ``text`` (each part of a hyphenated one) as (its key, as written)."""
    pairs = []
    for word in split_words(text.translate(_APOSTROPHES)).words:
        if word.lower().endswith("'s"):
            word = word[:-2]
        parts = [part for part in re.split(r"[-']", word) if part] if "-" in word else [word]
        pairs += [(_singular(part.lower()), part) for part in parts]
    return pairs


def _singular(word: str) -> str:
    """``word`` without a plural "s" (not "ss", not in words of three letters or fewer)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _ends_sentence(glue: str) -> bool:
    """True when the text between two words ends a sentence (or a line, or a dash-separated part)."""
    if "\n" in glue:
        return True
    return glue.rstrip(_OPENERS).endswith(_SENTENCE_ENDS)
