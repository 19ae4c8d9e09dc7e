"""The ``erap`` method: paraphrases that hold a chosen entailment relation to their source, and
label-projected augmentation of NLI pairs (Sancheti et al. 2022).

Two ways to get the paraphrases:

- ``generator=DIR``: a seq2seq paraphraser trained by ``augkit train erap``, told the relation
  by a control token (ERAP's generator);
- ``sample_from=METHOD``: ``k`` samples of any installed method or pipeline (back-translation,
  EDA, ...), re-ranked by ERAP's reward for the relation (equation 5: the NLI oracle's
  likelihood of the relation, similarity, diversity; the RR baselines of section 4.1).

With a premise column mapped (``premise_column=`` / ``--context-column premise=COLUMN``) and a
label column, each row is a (premise, hypothesis) pair: premise and hypothesis are paraphrased
under the relations Table 6 needs, and only the pairs whose label the composition rules
determine are written, each named by its rule in ``augkit_method`` (``erap:<pr,h'>``).
"""

from __future__ import annotations

import random
from typing import Any

from augkit.plugin import (
    Augmenter,
    Candidate,
    InputError,
    InvalidParameterError,
    ModelNeed,
    check_int,
    needs_within,
)

from augkit_erap.projection import (
    EQUIVALENCE,
    checked_projection,
    checked_types,
    needed_relations,
    rules_for,
)
from augkit_erap.relations import checked_relation
from augkit_erap.reward import ErapEvaluator, RewardWeights, minilm_similarity
from augkit_erap.sources import NO_GENERATOR, ControlledGenerator, MethodSamples

#: Section 4.1's re-ranking pool sizes; the paper's main results use 20.
RERANK_K = 20
PREMISE = "premise"


class Erap(Augmenter):
    """Entailment-relation-aware paraphrasing (ERAP, Sancheti et al. 2022).

    Parameters
    ----------
    relation : str
        What each paraphrase must be to its source: ``equivalence`` (same meaning),
        ``forward`` (more general: the source entails it) or ``reverse`` (more specific: it
        entails the source). Ignored for NLI pairs, which use the relations Table 6 needs.
    generator : str, optional
        A relation-controlled seq2seq model (folder or hub id) made by ``augkit train erap``.
    sample_from : str, optional
        Re-ranking mode (RR): any installed method or pipeline string whose ``k`` samples per
        text are ranked by ERAP's reward (``"backtranslation"``, ``"backtranslation+eda"``).
        One of ``generator`` and ``sample_from`` is needed.
    k : int
        Samples per text to re-rank (the paper: 1, 5, 10, 20).
    require_relation : bool
        In re-ranking, keep only samples the oracle finds holding the relation (default; label
        safety for NLI pairs); False keeps the best by reward whatever their relation, as the
        paper's RR baselines do.
    aware : bool
        False: the paper's entailment-unaware baseline for NLI pairs: ``sample_from``'s
        samples are taken as equivalent without consulting the oracle.
    oracle : str, optional
        The 3-class NLI classifier of the oracle (default ``FacebookAI/roberta-large-mnli``).
    similarity_model : str, optional
        Sentence-transformers model of the similarity reward (default all-MiniLM-L6-v2;
        MoverScore in the paper).
    alpha : float
        Equation 5's weight of relation consistency (the oracle's likelihood of the relation).
    beta : float
        Equation 5's weight of similarity.
    delta : float
        Equation 5's weight of diversity (1 - BLEU to the source, no brevity penalty).
    types : str
        For NLI pairs, Table 6's augmentation types to use: any of ``equivalence``,
        ``reverse``, ``forward`` (comma-separated).
    projection : str
        ``paper`` (Table 6) or ``strict`` (NE pairs under a more specific premise left out).
    entailment_label : str
        The label value meaning "entails" (every other value is "does not entail").
    num_beams : int
        Beam width of ``generator`` (at least ``n``).
    sample : bool
        Nucleus sampling from ``generator`` instead of beam search, seeded per row.
    top_p : float
        Nucleus mass when sampling.
    max_new_tokens : int, optional
        Longest paraphrase from ``generator``, in tokens (default: the model's).
    device : str
        Where to run the models.
    """

    name = "erap"
    uses_model = True
    text_name = "hypothesis"
    optional_rewrites_columns = (PREMISE,)

    def __init__(
        self,
        relation: str = EQUIVALENCE,
        generator: str | None = None,
        sample_from: str | None = None,
        k: int = RERANK_K,
        require_relation: bool = True,
        aware: bool = True,
        oracle: str | None = None,
        similarity_model: str | None = None,
        alpha: float = 0.4,
        beta: float = 0.4,
        delta: float = 0.2,
        types: str = "equivalence,reverse,forward",
        projection: str = "paper",
        entailment_label: str = "ENTAILMENT",
        num_beams: int = 4,
        sample: bool = False,
        top_p: float = 0.9,
        max_new_tokens: int | None = None,
        device: str = "auto",
    ):
        self.relation = checked_relation(relation)
        if generator is not None and sample_from is not None:
            raise InvalidParameterError("give generator (ERAP's own model) or sample_from (re-ranking another method), not both")
        for flag, value in (("require_relation", require_relation), ("aware", aware), ("sample", sample)):
            if not isinstance(value, bool):
                raise InvalidParameterError(f"{flag} must be True or False, got {value!r}")
        if not aware and sample_from is None:
            raise InvalidParameterError("aware=False is the entailment-unaware baseline of re-ranking mode: give sample_from too")
        self.generator = generator
        if generator is not None:
            from augkit.plugin import warn_if_trained_with_warnings

            warn_if_trained_with_warnings(generator, method=self.name)  # a folder of `augkit train erap`
        self.sample_from = sample_from
        self.k = check_int("k", k, minimum=1)
        self.require_relation = require_relation
        self.aware = aware
        self.oracle = oracle
        self.similarity_model = similarity_model
        self.weights = RewardWeights(alpha=alpha, beta=beta, delta=delta)
        self.alpha, self.beta, self.delta = alpha, beta, delta
        self.types = ",".join(checked_types(types))
        self.projection = checked_projection(projection)
        self.entailment_label = str(entailment_label)
        self.num_beams = check_int("num_beams", num_beams, minimum=1)
        self.sample = sample
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens
        self.device = device
        self._source: Any = None
        self._evaluator: ErapEvaluator | None = None

    def __getstate__(self) -> dict:
        # The loaded generator, oracle and encoder are loaded again where unpickled (a worker).
        return {**self.__dict__, "_source": None, "_evaluator": None}

    def required_models(self) -> list[ModelNeed]:
        """The generator; or, in re-ranking mode, the sampled method's models and (unless
        ``aware=False``) the NLI oracle and the similarity encoder that rank its samples."""
        if self.generator is not None:
            return [ModelNeed(self.generator, "seq2seq", "generator", "relation-controlled paraphrasing")]
        if self.sample_from is None:
            return []  # the run says how to get a generator (NO_GENERATOR)
        needs = needs_within(self.source.pipeline.required_models(), "sample_from", self.sample_from)
        if self.aware:
            from augkit.plugin import DEFAULT_NLI_MODEL

            needs += [ModelNeed(self.oracle or DEFAULT_NLI_MODEL, "pair", "oracle", "NLI oracle",
                                "or take the samples without the oracle: aware=false (the paper's entailment-unaware "
                                "baseline: no relation is checked)"),
                      ModelNeed(self.similarity_model, "sentence-transformers", "similarity_model", "similarity reward")]
        return needs

    # -- the paraphrase sources ---------------------------------------------------------

    @property
    def source(self) -> ControlledGenerator | MethodSamples:
        if self._source is None:
            if self.generator is not None:
                self._source = ControlledGenerator(self.generator, num_beams=self.num_beams, sample=self.sample,
                                                   top_p=self.top_p, max_new_tokens=self.max_new_tokens, device=self.device)
            elif self.sample_from is not None:
                self._source = MethodSamples(self.sample_from, self.k)
            else:
                raise InputError(NO_GENERATOR)
        return self._source

    @property
    def evaluator(self) -> ErapEvaluator:
        if self._evaluator is None:
            from augkit.plugin import EntailmentOracle

            self._evaluator = ErapEvaluator(EntailmentOracle(self.oracle, device=self.device),
                                            similarity=minilm_similarity(self.similarity_model), weights=self.weights)
        return self._evaluator

    def paraphrases(self, texts: list[str], relations: list[str], n: int, seeds: list[int]) -> list[list[str]]:
        """Up to ``n`` paraphrases of ``texts[i]`` under ``relations[i]``, best first."""
        if isinstance(self.source, ControlledGenerator):
            return self.source.paraphrase(texts, relations, n, seeds)
        samples = self.source.sample(texts, seeds)
        if not self.aware:
            return [row[:n] for row in samples]
        return self.reranked(texts, samples, relations, n)

    def reranked(self, texts: list[str], samples: list[list[str]], relations: list[str], n: int) -> list[list[str]]:
        """Each text's samples ordered by equation 5's reward for its relation (ties: sample
        order), the best ``n`` kept; with ``require_relation``, only those the oracle finds
        holding it."""
        flat = [(i, s) for i, row in enumerate(samples) for s in row]
        if not flat:
            return [[] for _ in texts]
        sources = [texts[i] for i, _ in flat]
        candidates = [s for _, s in flat]
        wanted = [relations[i] for i, _ in flat]
        judged = self.evaluator.judge(sources, candidates, wanted)
        ranked: list[list[tuple[float, int, str]]] = [[] for _ in texts]
        for position, ((i, text), (part, judgement)) in enumerate(zip(flat, judged, strict=True)):
            if not self.require_relation or judgement.relation == relations[i]:
                ranked[i].append((-part.reward, position, text))
        return [[text for _, _, text in sorted(row)[:n]] for row in ranked]

    # -- augkit's contract ------------------------------------------------------------------

    def prepare(self, dataset) -> None:
        if PREMISE in dataset.columns and dataset.labels is not None:
            values = {str(label) for label in dataset.labels}
            if self.entailment_label not in values:
                raise InputError(
                    f"erap: no row has the label {self.entailment_label!r}, which entailment_label says means 'entails'; "
                    f"the labels are {', '.join(sorted(values)[:8])}: pass entailment_label=..."
                )

    def augment_batch(self, texts, n, rngs, context):
        seeds = [rng.getrandbits(32) for rng in rngs]
        if PREMISE not in context.columns:
            return self.paraphrases(list(texts), [self.relation] * len(texts), n, seeds)
        if context.labels is None:
            raise InputError("erap augments (premise, hypothesis) pairs by their labels: name the label column (label_column=)")
        return self._pairs(list(texts), list(context.columns[PREMISE]), list(context.labels), n, rngs, seeds)

    def _pairs(self, hypotheses: list[str], premises: list[str], labels: list[Any], n: int,
               rngs: list[random.Random], seeds: list[int]) -> list[list[Candidate]]:
        """Table 6 for each pair: paraphrase each side under the relations its determined
        rules need (all requests in one batch), then emit the determined pairs."""
        types = tuple(self.types.split(",")) if self.aware else (EQUIVALENCE,)
        rules = [rules_for(types, str(label) == self.entailment_label, self.projection) for label in labels]
        requests: list[tuple[int, str, str]] = []  # (row, side, relation)
        for row, row_rules in enumerate(rules):
            premise_relations, hypothesis_relations = needed_relations(row_rules)
            requests += [(row, PREMISE, r) for r in sorted(premise_relations)]
            requests += [(row, "hypothesis", r) for r in sorted(hypothesis_relations)]
        side_text = {PREMISE: premises, "hypothesis": hypotheses}
        found = self.paraphrases([side_text[side][row] for row, side, _ in requests], [r for _, _, r in requests], 1,
                                 [(seeds[row] + (side == PREMISE)) % 2**32 for row, side, _ in requests])
        rewrites = {(row, side, relation): out[0] for (row, side, relation), out in zip(requests, found, strict=True) if out}
        rows = []
        for row, row_rules in enumerate(rules):
            made = []
            for rule in row_rules:
                premise = rewrites.get((row, PREMISE, rule.premise)) if rule.premise else premises[row]
                hypothesis = rewrites.get((row, "hypothesis", rule.hypothesis)) if rule.hypothesis else hypotheses[row]
                if premise is None or hypothesis is None:
                    continue
                fields = {PREMISE: premise} if rule.premise else {}
                made.append(Candidate(hypothesis, rule.name, fields=fields))
            rngs[row].shuffle(made)
            rows.append(made[:n])
        return rows

