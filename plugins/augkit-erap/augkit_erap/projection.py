"""Label projection for paraphrased NLI pairs: ERAP's Table 6 (Sancheti et al. 2022, section 5),
after the entailment composition rules of MacCartney (2009).

A pair (p, h) labelled E (p entails h) or NE (it does not) is rewritten by replacing p, h or
both with a paraphrase holding a known relation to it: p' / h' equivalent, pr / hr more
specific (reverse: pr entails p), pf / hf more general (forward: p entails pf). Whether the
new pair's label is determined depends on the relations:

======  ====================================  ===========================
Type    Pairs                                 Label of the new pair
======  ====================================  ===========================
≡       <p',h>  <p,h'>  <p',h'>               E stays E, NE stays NE
⊐       <pr,h>  <pr,h'>                       E stays E, NE stays NE (*)
⊏       <p,hf>  <p',hf>  <pr,hf>              E stays E, NE unknown
other   any pair with pf or hr                unknown
======  ====================================  ===========================

Only pairs whose label is determined are emitted, with the source row's label: no rule turns
E into NE or back, so a projected label is always the source's own.

(*) Table 6 keeps NE for <pr,h>: if p does not entail h, a more specific pr might still
(adding the missing fact). That holds for contradictions (pr entails p, which contradicts h)
but not for neutral pairs. ``projection="strict"`` follows the logic and leaves NE unknown
under ⊐; the default, ``"paper"``, follows Table 6.
"""

from __future__ import annotations

from dataclasses import dataclass

from augkit.plugin import InvalidParameterError

EQUIVALENCE, FORWARD, REVERSE = "equivalence", "forward", "reverse"
#: Table 6's augmentation types, in its order.
AUGMENTATION_TYPES = (EQUIVALENCE, REVERSE, FORWARD)
PROJECTIONS = ("paper", "strict")
_MARK = {EQUIVALENCE: "'", REVERSE: "r", FORWARD: "f"}


@dataclass(frozen=True)
class PairRule:
    """One row of Table 6: the relation of the premise's rewrite and of the hypothesis'
    rewrite (None: kept as is), the augmentation type it belongs to, and whether an NE
    pair's label stays determined under the paper's table and under strict logic."""

    premise: str | None
    hypothesis: str | None
    type: str
    keeps_not_entailed: bool
    keeps_not_entailed_strictly: bool

    @property
    def name(self) -> str:
        """Table 6's notation: ``<p',h>``, ``<pr,hf>``..."""
        premise = "p" + (_MARK[self.premise] if self.premise else "")
        hypothesis = "h" + (_MARK[self.hypothesis] if self.hypothesis else "")
        return f"<{premise},{hypothesis}>"

    def determined(self, entailed: bool, projection: str = "paper") -> bool:
        """Whether the rewritten pair's label is known: always for an E pair, for an NE pair
        as the table (``"paper"``) or the logic (``"strict"``) says."""
        if entailed:
            return True
        return self.keeps_not_entailed if projection == "paper" else self.keeps_not_entailed_strictly


#: Table 6's determined rules, in its order.
TABLE_6 = (
    PairRule(EQUIVALENCE, None, EQUIVALENCE, True, True),
    PairRule(None, EQUIVALENCE, EQUIVALENCE, True, True),
    PairRule(EQUIVALENCE, EQUIVALENCE, EQUIVALENCE, True, True),
    PairRule(REVERSE, None, REVERSE, True, False),
    PairRule(REVERSE, EQUIVALENCE, REVERSE, True, False),
    PairRule(None, FORWARD, FORWARD, False, False),
    PairRule(EQUIVALENCE, FORWARD, FORWARD, False, False),
    PairRule(REVERSE, FORWARD, FORWARD, False, False),
)


def checked_types(types: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Augmentation types from ``"equivalence,reverse"`` or a list, each checked."""
    names = types.split(",") if isinstance(types, str) else list(types) if isinstance(types, (list, tuple)) else None
    if names is None:
        raise InvalidParameterError(f"types must name augmentation types, got {types!r}")
    chosen = tuple(dict.fromkeys(str(name).strip().lower() for name in names if str(name).strip()))
    if not chosen or any(name not in AUGMENTATION_TYPES for name in chosen):
        raise InvalidParameterError(
            f"types must be among {', '.join(AUGMENTATION_TYPES)} (Table 6's rows: equivalence <p',h> <p,h'> <p',h'>; "
            f"reverse <pr,h> <pr,h'>; forward <p,hf> <p',hf> <pr,hf>); got {types!r}"
        )
    return chosen


def checked_projection(projection: str) -> str:
    if projection not in PROJECTIONS:
        raise InvalidParameterError(f"projection must be one of {', '.join(PROJECTIONS)}, got {projection!r}")
    return projection


def rules_for(types: tuple[str, ...], entailed: bool, projection: str = "paper") -> list[PairRule]:
    """The Table 6 rules of the chosen types that determine the label of a pair that is
    ``entailed`` (E) or not (NE)."""
    return [rule for rule in TABLE_6 if rule.type in types and rule.determined(entailed, projection)]


def needed_relations(rules: list[PairRule]) -> tuple[set[str], set[str]]:
    """The relations the premise and the hypothesis must be paraphrased under for ``rules``."""
    return ({r.premise for r in rules if r.premise}, {r.hypothesis for r in rules if r.hypothesis})
