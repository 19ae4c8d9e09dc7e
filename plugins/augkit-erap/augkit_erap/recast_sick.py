"""Recast SICK (Marelli et al. 2014) into paraphrase pairs labelled with an entailment relation,
as in ERAP (Sancheti et al. 2022, section 3 and Table 1).

SICK gives each pair (A, B) a human NLI label in both directions (``entailment_AB``,
``entailment_BA``); equation 7 (:func:`augkit.plugin.relation_of`) turns the two labels into
a relation of B to A: ``equivalence``, ``forward`` (A entails B), ``reverse``,
``contradiction``, ``neutral`` or ``invalid``.

ERAP keeps "only the sentence pairs which were created by combining meaning-preserving
transformations" (its appendix, which says how, is not available). SICK was built from
original captions S0: each was normalised to S1, and S1 was expanded into a meaning-preserving
rewrite (S2) and a meaning-altering one (S3, mostly a negation or an antonym); S1 was then
paired with its own expansions and with the S1 and expansions of a caption of the same scene.
The file does not say which sentence is S1, S2 or S3, so :data:`MEANING_PRESERVING` reads it
from the pairs that share an original (``sentence_A_original == sentence_B_original``; in
the other rows the two original columns are not reliably in A, B order):

1. a family is the pairs of one original; its S1 is the sentence in most of them (the
   normalised sentence every expansion was paired with; a tie goes to the one seen first);
2. another sentence of the family is a meaning-preserving rewrite (S2) when its pair with S1
   has a paraphrase relation (equivalence, forward or reverse: the meaning survived), and a
   meaning-altering one otherwise;
3. a pair is kept when both its sentences are an S1 or an S2, in one family or across two.

:data:`SAME_ORIGINAL` (the pairs made within one original's family, S3 included) and
:data:`ALL_PAIRS` are the other rules tried; docs/methods/erap-recast-sick.md compares
their counts with Table 1. Every kept pair with ``equivalence`` also gives (B, A) with
``equivalence``, with ``forward`` gives (B, A) with ``reverse`` and with ``reverse`` gives
(B, A) with ``forward`` (SICK has no pair labelled B-entails-A only, so the last never
happens); those rows have ``reversed`` True and the pair_ID of the row they mirror.

>>> recast = recast_sick("SICK.txt")                              # doctest: +SKIP
>>> relation_counts(recast).loc["test"].to_dict()                 # doctest: +SKIP
{'equivalence': 1186, 'forward': 750, 'reverse': 750, 'others': 1067, 'contradiction': 1}
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from typing import Any

from augkit.plugin import (
    InputError,
    InvalidParameterError,
    relation_of,
    unknown_name_message,
)

#: The columns of SICK.txt (the full SICK release) that recasting reads.
REQUIRED_COLUMNS = (
    "pair_ID", "sentence_A", "sentence_B", "entailment_AB", "entailment_BA",
    "sentence_A_original", "sentence_B_original", "SemEval_set",
)
#: SICK's SemEval 2014 sets and the splits ERAP kept them as (its footnote 6: "we retained
#: the train, test, development sets of SICK").
SPLITS = {"TRAIN": "train", "TRIAL": "dev", "TEST": "test"}
#: The NLI label inside SICK's direction labels: ``A_entails_B``, ``B_neutral_A``, ...
_LABEL_WORDS = {"entails": "entailment", "neutral": "neutral", "contradicts": "contradiction"}

#: The rules of which SICK pairs are recast (see the module's docstring).
MEANING_PRESERVING = "meaning-preserving"
SAME_ORIGINAL = "same-original"
ALL_PAIRS = "all"
PAIR_RULES = (MEANING_PRESERVING, SAME_ORIGINAL, ALL_PAIRS)
DEFAULT_PAIR_RULE = MEANING_PRESERVING

#: The columns of a recast table, in order.
RECAST_COLUMNS = ("pair_ID", "split", "source", "paraphrase", "relation", "reversed")

#: What a relation becomes when its pair is read the other way round (ERAP: "for every
#: p ⊏ h we add h ⊐ p, and for every p ≡ h we add h ≡ p"); the others are not reversed.
_REVERSED = {"equivalence": "equivalence", "forward": "reverse", "reverse": "forward"}
#: Relations that show the meaning survived a rewrite (equation 7's paraphrase relations).
_MEANING_KEPT = frozenset(_REVERSED)

#: Table 1 of the paper: recast SICK per split (equivalence, forward, reverse, others), where
#: "others refers to neutral or invalid relation" (contradictions are in no column).
TABLE_1 = {
    "train": {"equivalence": 1344, "forward": 684, "reverse": 684, "others": 420},
    "dev": {"equivalence": 196, "forward": 63, "reverse": 63, "others": 43},
    "test": {"equivalence": 1386, "forward": 814, "reverse": 814, "others": 494},
}
#: The columns of :func:`relation_counts`: Table 1's four, then contradictions apart.
COUNT_COLUMNS = ("equivalence", "forward", "reverse", "others", "contradiction")
_OTHERS = frozenset({"neutral", "invalid"})


def read_sick(path: str | Path) -> Any:
    """SICK.txt (tab-separated, a header line) as a DataFrame of strings, or an
    :class:`~augkit.plugin.InputError` naming a missing file or the missing columns."""
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise InputError(f"SICK file {str(path)!r} does not exist (the full release's SICK.txt, tab-separated)")
    try:
        # QUOTE_NONE: SICK's sentences are plain text; a quote in one is a character, not quoting.
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, na_filter=False, quoting=csv.QUOTE_NONE)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {str(path)!r} as SICK.txt (tab-separated): {error}") from None
    missing = [name for name in REQUIRED_COLUMNS if name not in frame.columns]
    if missing:
        raise InputError(
            f"{str(path)!r} is missing the column{'s' if len(missing) > 1 else ''} {', '.join(missing)} that recasting "
            f"SICK needs (the full release's SICK.txt has them); its columns: {', '.join(map(str, frame.columns))}"
        )
    return frame


def direction_label(value: str, column: str, pair_id: str) -> str:
    """The NLI label (``entailment``, ``neutral``, ``contradiction``) of a SICK direction
    label such as ``A_entails_B`` or ``B_contradicts_A``.

    >>> direction_label("B_neutral_A", "entailment_BA", "1")
    'neutral'
    """
    parts = str(value).split("_")
    label = _LABEL_WORDS.get(parts[1]) if len(parts) == 3 else None
    if label is None:
        raise InputError(f"pair_ID {pair_id}: {column} is {value!r}; expected X_entails_Y, X_neutral_Y or X_contradicts_Y")
    return label


def sick_relations(frame: Any) -> list[str]:
    """Equation 7 on each row's two gold direction labels: the relation of sentence_B to
    sentence_A (``forward``: A entails B and B does not entail A)."""
    return [
        relation_of(direction_label(ab, "entailment_AB", pid), direction_label(ba, "entailment_BA", pid))
        for pid, ab, ba in zip(frame["pair_ID"], frame["entailment_AB"], frame["entailment_BA"], strict=True)
    ]


def sentence_roles(frame: Any, relations: list[str]) -> dict[str, str]:
    """Each sentence of a family (pairs sharing an original) as ``S1`` (the normalised
    sentence), ``S2`` (meaning kept: its pair with S1 has a paraphrase relation) or ``S3``
    (meaning altered); sentences in no family, or never paired with their S1, are absent."""
    family_rows: dict[str, list[int]] = {}
    for row, (first, second) in enumerate(zip(frame["sentence_A_original"], frame["sentence_B_original"], strict=True)):
        if first == second:
            family_rows.setdefault(first, []).append(row)
    sentences_a, sentences_b = frame["sentence_A"].tolist(), frame["sentence_B"].tolist()
    roles: dict[str, str] = {}
    for rows in family_rows.values():
        seen = Counter()
        for row in rows:
            seen.update((sentences_a[row], sentences_b[row]))
        s1 = max(seen, key=lambda sentence: seen[sentence])  # Counter keeps first-seen order: ties go to the first
        roles.setdefault(s1, "S1")
        for row in rows:
            a, b = sentences_a[row], sentences_b[row]
            if s1 in (a, b) and a != b:
                other = b if a == s1 else a
                # a sentence of two originals (same text) keeps the role its first family gave it
                roles.setdefault(other, "S2" if relations[row] in _MEANING_KEPT else "S3")
    return roles


def kept_rows(frame: Any, relations: list[str], rule: str = DEFAULT_PAIR_RULE) -> list[bool]:
    """Which rows of SICK ``rule`` recasts (one of :data:`PAIR_RULES`)."""
    if rule not in PAIR_RULES:
        raise InvalidParameterError(unknown_name_message("pair rule", rule, list(PAIR_RULES)))
    if rule == ALL_PAIRS:
        return [True] * len(frame)
    if rule == SAME_ORIGINAL:
        return [a == b for a, b in zip(frame["sentence_A_original"], frame["sentence_B_original"], strict=True)]
    roles = sentence_roles(frame, relations)
    meaning_kept = ("S1", "S2")
    return [roles.get(a) in meaning_kept and roles.get(b) in meaning_kept
            for a, b in zip(frame["sentence_A"], frame["sentence_B"], strict=True)]


def recast_frame(frame: Any, rule: str = DEFAULT_PAIR_RULE) -> Any:
    """Recast a SICK DataFrame (the columns of :data:`REQUIRED_COLUMNS`): one row per kept
    pair (source = sentence_A, paraphrase = sentence_B, its relation by equation 7), then one
    per reversed pair; columns :data:`RECAST_COLUMNS`."""
    import pandas as pd

    missing = [name for name in REQUIRED_COLUMNS if name not in frame.columns]
    if missing:
        raise InputError(f"the SICK table is missing the column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    unknown = sorted(set(frame["SemEval_set"]) - set(SPLITS))
    if unknown:
        raise InputError(f"SemEval_set has values {', '.join(map(repr, unknown))}; expected {', '.join(SPLITS)}")
    relations = sick_relations(frame)
    keep = kept_rows(frame, relations, rule)
    kept = pd.DataFrame({
        "pair_ID": frame["pair_ID"],
        "split": frame["SemEval_set"].map(SPLITS),
        "source": frame["sentence_A"],
        "paraphrase": frame["sentence_B"],
        "relation": relations,
        "reversed": False,
    })[keep]
    mirrored = kept[kept["relation"].isin(list(_REVERSED))]
    mirrored = mirrored.assign(
        source=mirrored["paraphrase"], paraphrase=mirrored["source"],
        relation=mirrored["relation"].map(_REVERSED), reversed=True,
    )
    return pd.concat([kept, mirrored], ignore_index=True)[list(RECAST_COLUMNS)]


def recast_sick(path: str | Path, rule: str = DEFAULT_PAIR_RULE) -> Any:
    """SICK.txt at ``path`` recast into relation-labelled paraphrase pairs (see the module's
    docstring); :func:`relation_counts` gives Table 1's view of it."""
    return recast_frame(read_sick(path), rule)


def relation_counts(recast: Any) -> Any:
    """Rows per split (train, dev, test) and relation as Table 1 counts them: equivalence,
    forward, reverse, ``others`` (neutral or invalid), and contradiction apart (Table 1 counts
    it nowhere)."""
    import pandas as pd

    grouped = recast["relation"].where(~recast["relation"].isin(list(_OTHERS)), "others")
    table = pd.crosstab(recast["split"], grouped)
    return table.reindex(index=list(SPLITS.values()), columns=list(COUNT_COLUMNS), fill_value=0).astype(int)


def comparison_table(counts: Any) -> Any:
    """:func:`relation_counts` beside Table 1: one row per split, ``ours`` and ``paper``
    columns for each of Table 1's four relations."""
    import pandas as pd

    rows = {}
    for split in SPLITS.values():
        row = {}
        for relation in TABLE_1[split]:
            row[(relation, "ours")] = int(counts.loc[split, relation])
            row[(relation, "paper")] = TABLE_1[split][relation]
        row[("contradiction", "ours")] = int(counts.loc[split, "contradiction"])
        rows[split] = row
    return pd.DataFrame.from_dict(rows, orient="index")
