"""Put a WordNet lemma in the grammatical form of the word it replaces ("charged" -> "billed").

WordNet lists lemmas in their base form, so the original EDA writes "I was bill twice". The
safe synonyms inflect each candidate like the word it replaces: a plural noun gets a plural
synonym, a past-tense verb a past-tense one. Irregular forms come from WordNet's own
exception lists (``noun.exc``, ``verb.exc``, which also list every doubled consonant such as
"stopped", since WordNet's morphology could not find their base otherwise); everything else
follows the regular English spelling rules. A form this cannot produce with confidence is
``None``, and the candidate is dropped.
"""

from __future__ import annotations

from augkit_eda.wordnet import WordNetLexicon

#: The grammatical forms a replaced word can have, with the Penn Treebank tags they answer.
FORMS = ("base", "plural", "third person", "past", "participle", "gerund")
#: English verbs whose past and past participle are the base form. WordNet's exception
#: list leaves them out (morphology needs no rule for "put" -> "put"), so the regular rule
#: would write "puted". From any English grammar's list of irregular verbs.
UNCHANGED_PAST = frozenset(
    """bet bid broadcast burst cast cost cut fit hit hurt let put quit read rid set shed shut
    slit split spread thrust upset wet""".split()
)
_VOWELS = frozenset("aeiou")
_SIBILANT_ENDINGS = ("s", "x", "z", "ch", "sh")


def _consonant_y(word: str) -> bool:
    return len(word) > 1 and word[-1] == "y" and word[-2] not in _VOWELS


def regular_form(base: str, form: str) -> str:
    """The regular English spelling of ``form`` of ``base`` (no irregular or doubled forms).

    >>> [regular_form("charge", f) for f in ("third person", "past", "gerund")]
    ['charges', 'charged', 'charging']
    >>> regular_form("fee", "plural"), regular_form("copy", "past"), regular_form("tie", "gerund")
    ('fees', 'copied', 'tying')
    """
    if form in ("plural", "third person"):
        if base.endswith(_SIBILANT_ENDINGS):
            return base + "es"
        return base[:-1] + "ies" if _consonant_y(base) else base + "s"
    if form in ("past", "participle"):
        if base.endswith("e"):
            return base + "d"
        return base[:-1] + "ied" if _consonant_y(base) else base + "ed"
    if form == "gerund":
        if base.endswith("ie"):
            return base[:-2] + "ying"
        if base.endswith("e") and not base.endswith(("ee", "ye", "oe")) and len(base) > 2:
            return base[:-1] + "ing"
        return base + "ing"
    return base


class Inflector:
    """Inflects lemmas of a :class:`WordNetLexicon` with its exception lists."""

    def __init__(self, lexicon: WordNetLexicon):
        self._lexicon = lexicon
        self._irregular: dict[str, dict[str, list[str]]] = {}

    def _irregular_forms(self, base: str, pos: str) -> list[str]:
        """The exception-list forms whose base forms include ``base`` ("go" -> went, gone)."""
        if pos not in self._irregular:
            inverse: dict[str, list[str]] = {}
            for form, bases in self._lexicon.inflected_forms(pos).items():
                for lemma in bases.split(" "):
                    inverse.setdefault(lemma, []).append(form)
            self._irregular[pos] = inverse
        return self._irregular[pos].get(base, [])

    def _is_plural(self, noun: str) -> bool:
        """Whether a noun lemma is itself the plural of another ("papers" of "paper")."""
        return noun.endswith("s") and any(base != noun for base in self._lexicon.base_forms(noun, "n"))

    def inflect(self, lemma: str, form: str, pos: str) -> str | None:
        """``lemma`` (WordNet spelling, ``_`` for spaces) in ``form``, or None when the form
        is uncertain. A multiword noun inflects its last word ("credit_cards"), a multiword
        verb its first ("paid_up"). A noun lemma that is a plural ("papers") stays as it is
        in the plural and is no singular.

        >>> from augkit_eda.wordnet import default_lexicon
        >>> inflector = Inflector(default_lexicon())
        >>> [inflector.inflect("go", f, "v") for f in ("past", "participle", "gerund")]
        ['went', 'gone', 'going']
        >>> inflector.inflect("stop", "past", "v"), inflector.inflect("child", "plural", "n")
        ('stopped', 'children')
        """
        if form == "base":
            return None if pos == "n" and self._is_plural(lemma.split("_")[-1]) else lemma
        parts = lemma.split("_")
        head = len(parts) - 1 if pos == "n" else 0
        inflected = self._inflect_word(parts[head], form, pos)
        if inflected is None:
            return None
        parts[head] = inflected
        return "_".join(parts)

    def _inflect_word(self, base: str, form: str, pos: str) -> str | None:
        if pos == "n" and form != "plural" or pos == "v" and form == "plural" or pos in ("a", "r"):
            return None
        irregular = [f for f in self._irregular_forms(base, pos) if f != base]
        if pos == "n":
            if self._is_plural(base):
                return base  # "papers", "terms": already plural
            return irregular[0] if irregular else regular_form(base, form)
        if form in ("past", "participle") and base in UNCHANGED_PAST:
            return base
        if form == "gerund":
            wanted = [f for f in irregular if f.endswith("ing")]
        elif form == "third person":
            wanted = [f for f in irregular if f.endswith("s") and not f.endswith("ss")]
        else:
            pasts = [f for f in irregular if not f.endswith(("ing", "s"))]
            if len(pasts) <= 1:
                wanted = pasts
            else:  # "went"/"gone": participles end in -n or -ne ("taken", "seen", "gone", "done")
                participles = [f for f in pasts if f.endswith(("n", "ne"))]
                wanted = participles if form == "participle" else [f for f in pasts if f not in participles]
                if len(wanted) != 1:
                    return None
        return wanted[0] if wanted else regular_form(base, form)
