"""Keep candidates that hold a given entailment relation to their source (ERAP's oracle):
``backtranslation|entailment`` keeps only the back-translations that mean the same both ways,
the label-safe augmentation NLI data needs."""

from __future__ import annotations

from collections.abc import Sequence

from augkit.errors import InvalidParameterError
from augkit.metrics._entailment import DEFAULT_NLI_MODEL, RELATIONS, EntailmentOracle
from augkit.models.needs import ModelNeed
from augkit.steps.candidate import Candidate
from augkit.steps.context import BatchContext
from augkit.steps.filter import Filter, check_sources


class EntailmentFilter(Filter):
    """Keeps a candidate when the NLI oracle finds the relation ``keep`` between its source
    and it: an NLI classifier run both ways, each direction's likeliest label combined by
    equation 7 of ERAP (Sancheti et al. 2022; :func:`augkit.metrics.entailment_relation`).

    Adds the score ``entailment``: the likelihood of the kept relation(s) (the two
    directions' probabilities multiplied, summed over the relations in ``keep``), for a later
    ``rank`` or ``top_k``. Every candidate of a batch is judged in one batched call.

    Parameters
    ----------
    keep : str or list of str
        Relations to keep, one or several (``"equivalence,forward"``): ``equivalence`` (the
        candidate and its source entail each other), ``forward`` (the source entails the
        candidate: it is more general), ``reverse`` (the candidate entails the source: more
        specific), ``contradiction``, ``neutral``, ``invalid``.
    model : str, optional
        A 3-class NLI pair classifier (hub id, ``id@revision`` or folder); None is
        ``FacebookAI/roberta-large-mnli``. Label names are read from its config.
    device : str
        Where to run it: ``auto`` (default: CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``.
    drop : bool
        Drop candidates holding another relation (default); False keeps every candidate and
        only adds the score.
    """

    name = "entailment"
    scores = ("entailment",)
    uses_model = True  # an NLI pair classifier

    def __init__(self, keep: str | Sequence[str] = "equivalence", model: str | None = None, device: str = "auto",
                 drop: bool = True):
        self.keep = _relations(keep)
        if not isinstance(drop, bool):
            raise InvalidParameterError(f"entailment: drop must be True or False, got {drop!r}")
        self.model = model
        self.device = device
        self.drop = drop
        self._oracle: EntailmentOracle | None = None

    def get_params(self):
        params = super().get_params()
        params["keep"] = ",".join(self.keep)
        return params

    def required_models(self) -> list[ModelNeed]:
        return [ModelNeed(self.model or DEFAULT_NLI_MODEL, "pair", "model", "NLI oracle")]

    @property
    def oracle(self) -> EntailmentOracle:
        """The oracle on this filter's model, created on first use (the model loads then)."""
        if self._oracle is None:
            self._oracle = EntailmentOracle(self.model, device=self.device)
        return self._oracle

    def filter(self, source: str, candidates: list[Candidate]) -> list[Candidate]:
        return self.filter_batch([source], [candidates], BatchContext())[0]

    def filter_batch(self, sources, candidates, context):
        check_sources(self.name, sources, candidates)
        flat = [(sources[i], candidate) for i, row in enumerate(candidates) for candidate in row]
        if not flat:
            return [[] for _ in candidates]
        judgements = iter(self.oracle.judge([s for s, _ in flat], [c.text for _, c in flat]))
        kept = []
        for row in candidates:
            row_kept = []
            for candidate in row:
                judgement = next(judgements)
                candidate.scores[self.name] = sum(judgement.probabilities[r] for r in self.keep)
                if not self.drop or judgement.relation in self.keep:
                    row_kept.append(candidate)
                else:
                    candidate.drop_reason = f"NLI relation {judgement.relation!r} not in keep={','.join(self.keep)}"
            kept.append(row_kept)
        return kept


def _relations(keep: str | Sequence[str]) -> tuple[str, ...]:
    """``keep`` as a tuple of relation names, each checked."""
    names = keep.split(",") if isinstance(keep, str) else list(keep) if isinstance(keep, (list, tuple)) else None
    if names is None:
        raise InvalidParameterError(f"entailment: keep must be a relation name or a list of them, got {keep!r}")
    relations = tuple(dict.fromkeys(str(name).strip().lower() for name in names if str(name).strip()))
    unknown = [name for name in relations if name not in RELATIONS]
    if unknown or not relations:
        raise InvalidParameterError(
            f"entailment: keep must name relations among {', '.join(RELATIONS)}; got {keep!r}"
        )
    return relations
