"""The entailment relation between a text and its rewrite, from an NLI classifier run both
ways: ERAP's oracle O(X, Y) (Sancheti et al. 2022, "Entailment Relation Aware Paraphrase
Generation", equation 7).

A 3-class NLI classifier o(l | premise, hypothesis) is run forwards on (X, Y) and backwards
on (Y, X); the two predicted labels give the relation:

==============  ==============  ===============
o(X, Y)         o(Y, X)         O(X, Y)
==============  ==============  ===============
entailment      entailment      equivalence
entailment      neutral         forward (Y is more general: X entails Y)
neutral         entailment      reverse (Y is more specific: Y entails X)
contradiction   contradiction   contradiction
neutral         neutral         neutral
anything else                   invalid
==============  ==============  ===============

The likelihood of a relation (ERAP's reward r_l = O(l = R | X, Y)) is the probability of
its label pair with the two directions taken as independent, e.g.
P(equivalence) = o(E | X, Y) * o(E | Y, X); ``invalid`` takes the rest, so the six sum to 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from augkit.errors import InputError, InvalidParameterError
from augkit.metrics._inputs import same_length
from augkit.steps.params import check_texts

#: ERAP's oracle classifier was RoBERTa trained on MNLI, SNLI, SICK and diagnostic sets; the
#: public MNLI RoBERTa-large is the nearest published model (labels in its config).
DEFAULT_NLI_MODEL = "FacebookAI/roberta-large-mnli"

#: The three NLI labels the oracle reads, by their canonical names.
ENTAILMENT, NEUTRAL, CONTRADICTION = "entailment", "neutral", "contradiction"
NLI_LABELS = (ENTAILMENT, NEUTRAL, CONTRADICTION)

EQUIVALENCE, FORWARD, REVERSE, INVALID = "equivalence", "forward", "reverse", "invalid"
#: Every value :func:`relation_of` returns, paraphrase relations first.
RELATIONS = (EQUIVALENCE, FORWARD, REVERSE, CONTRADICTION, NEUTRAL, INVALID)
#: The relations a paraphrase may be asked to hold (ERAP's controls); the others are
#: "semantically divergent" pairs.
PARAPHRASE_RELATIONS = (EQUIVALENCE, FORWARD, REVERSE)

#: Equation 7: (forward label, backward label) -> relation; pairs not listed are invalid.
_RELATION_OF_LABELS = {
    (ENTAILMENT, ENTAILMENT): EQUIVALENCE,
    (ENTAILMENT, NEUTRAL): FORWARD,
    (NEUTRAL, ENTAILMENT): REVERSE,
    (CONTRADICTION, CONTRADICTION): CONTRADICTION,
    (NEUTRAL, NEUTRAL): NEUTRAL,
}
#: How label names in models' configs begin ("ENTAILMENT", "entails", "contradiction", ...).
_LABEL_PREFIXES = {ENTAILMENT: ("entail",), NEUTRAL: ("neutral",), CONTRADICTION: ("contradict",)}


def relation_of(forward: str, backward: str) -> str:
    """Equation 7: the relation of (X, Y) given the NLI label of (X, Y) and of (Y, X).

    >>> relation_of("entailment", "neutral")
    'forward'
    >>> relation_of("entailment", "contradiction")
    'invalid'
    """
    for label in (forward, backward):
        if label not in NLI_LABELS:
            raise InvalidParameterError(f"NLI label must be one of {', '.join(NLI_LABELS)}; got {label!r}")
    return _RELATION_OF_LABELS.get((forward, backward), INVALID)


def relation_probabilities(forward: Mapping[str, float], backward: Mapping[str, float]) -> dict[str, float]:
    """The likelihood of every relation given the NLI class probabilities of (X, Y) and of
    (Y, X), the directions taken as independent; ``invalid`` is what the five others leave.

    >>> p = relation_probabilities({"entailment": 0.9, "neutral": 0.1, "contradiction": 0.0},
    ...                            {"entailment": 0.5, "neutral": 0.5, "contradiction": 0.0})
    >>> round(p["equivalence"], 2), round(p["forward"], 2), round(p["invalid"], 2)
    (0.45, 0.45, 0.0)
    """
    out = {relation: 0.0 for relation in RELATIONS}
    for (first, second), relation in _RELATION_OF_LABELS.items():
        out[relation] += float(forward[first]) * float(backward[second])
    out[INVALID] = max(0.0, 1.0 - sum(out[r] for r in RELATIONS if r != INVALID))
    return out


@dataclass(frozen=True)
class RelationJudgement:
    """What the oracle found for one (source, candidate) pair: the ``relation`` (equation 7
    on each direction's likeliest label), each relation's likelihood (``probabilities``), and
    the NLI class probabilities of each direction (``forward``: source as premise)."""

    relation: str
    probabilities: dict[str, float]
    forward: dict[str, float]
    backward: dict[str, float]


class EntailmentOracle:
    """ERAP's oracle O(X, Y) on a loaded NLI pair classifier: every pair is classified both
    ways in one batched call (pairs grouped by length under a token budget, so a pair's
    result does not depend on the others).

    >>> oracle = EntailmentOracle("FacebookAI/roberta-large-mnli")          # doctest: +SKIP
    >>> oracle.judge(["A man plays a guitar"], ["A man plays an instrument"])[0].relation  # doctest: +SKIP
    'forward'
    """

    def __init__(self, model: str | None = None, *, device: str = "auto", token_budget: int | None = None):
        self.model = model or DEFAULT_NLI_MODEL
        self.device = device
        self.token_budget = token_budget
        self._classifier: Any = None
        self._columns: tuple[int, int, int] | None = None

    @property
    def classifier(self) -> Any:
        """The shared :class:`augkit.models.PairClassifier`, loaded on first use."""
        if self._classifier is None:
            from augkit.models import load_pair_classifier

            self._classifier = load_pair_classifier(self.model, device=self.device)
            self._columns = nli_label_columns(self._classifier.labels, self.model)
        return self._classifier

    def nli(self, premises: Sequence[str], hypotheses: Sequence[str], *, progress: bool = False) -> list[dict[str, float]]:
        """The NLI class probabilities of each (premise, hypothesis) pair, under the canonical
        names ``entailment``, ``neutral`` and ``contradiction`` whatever the model calls them."""
        classifier = self.classifier
        options = {} if self.token_budget is None else {"token_budget": self.token_budget}
        rows = classifier.probabilities(list(zip(premises, hypotheses, strict=True)), progress=progress, **options)
        assert self._columns is not None
        return [dict(zip(NLI_LABELS, (row[i] for i in self._columns), strict=True)) for row in rows]

    def judge(self, sources: Sequence[str], candidates: Sequence[str], *, progress: bool = False) -> list[RelationJudgement]:
        """The :class:`RelationJudgement` of each ``(sources[i], candidates[i])``."""
        sources, candidates = check_texts("sources", sources), check_texts("candidates", candidates)
        same_length(sources, candidates, "sources", "candidates")
        if not sources:
            return []
        both = self.nli([*sources, *candidates], [*candidates, *sources], progress=progress)
        forward, backward = both[: len(sources)], both[len(sources):]
        return [
            RelationJudgement(relation_of(_likeliest(f), _likeliest(b)), relation_probabilities(f, b), f, b)
            for f, b in zip(forward, backward, strict=True)
        ]


def entailment_relation(
    sources: Sequence[str],
    candidates: Sequence[str],
    *,
    model: str | None = None,
    device: str = "auto",
    details: bool = False,
    progress: bool = False,
) -> list[str] | list[RelationJudgement]:
    """The entailment relation of each candidate to its source, ERAP's oracle (equation 7):
    ``equivalence``, ``forward`` (the candidate is more general: the source entails it),
    ``reverse`` (more specific: it entails the source), ``contradiction``, ``neutral`` or
    ``invalid`` (the directions disagree otherwise).

    ``model``: a 3-class NLI pair classifier (hub id, ``id@revision`` or folder; default
    :data:`DEFAULT_NLI_MODEL`); its label names are read from its config. ``details=True``
    returns :class:`RelationJudgement` objects with each relation's likelihood and both
    directions' NLI probabilities.

    >>> entailment_relation(["A man is playing a guitar"], ["A man is playing an instrument"])  # doctest: +SKIP
    ['forward']
    """
    judgements = EntailmentOracle(model, device=device).judge(sources, candidates, progress=progress)
    return judgements if details else [j.relation for j in judgements]


def nli_label_columns(labels: Sequence[str], model: str = "the model") -> tuple[int, int, int]:
    """Where entailment, neutral and contradiction sit among a classifier's outputs, read from
    its label names (``ENTAILMENT``, ``entails``, ``Contradiction``, ...); a clear error when
    the names do not say (``LABEL_0``: set ``id2label`` in the model's config.json)."""
    found: dict[str, int] = {}
    for index, name in enumerate(labels):
        lowered = str(name).strip().lower()
        for canonical, prefixes in _LABEL_PREFIXES.items():
            if lowered.startswith(prefixes):
                if canonical in found:
                    raise InputError(f"NLI model {model!r} has two labels for {canonical}: {list(labels)}")
                found[canonical] = index
    missing = [name for name in NLI_LABELS if name not in found]
    if missing or len(labels) != 3:
        raise InputError(
            f"NLI model {model!r} must be a 3-class classifier whose config names its labels entailment, neutral and "
            f"contradiction; its labels are {list(labels)} (missing: {', '.join(missing) or 'none'}). Set id2label in its "
            "config.json, e.g. {\"0\": \"entailment\", \"1\": \"neutral\", \"2\": \"contradiction\"}"
        )
    return found[ENTAILMENT], found[NEUTRAL], found[CONTRADICTION]


def _likeliest(probabilities: Mapping[str, float]) -> str:
    """The likeliest NLI label; ties go to the earlier of entailment, neutral, contradiction."""
    return max(NLI_LABELS, key=lambda label: (probabilities[label], -NLI_LABELS.index(label)))
