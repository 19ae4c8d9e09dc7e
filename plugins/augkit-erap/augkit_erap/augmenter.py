"""The ``erap`` method: paraphrases that hold a chosen entailment relation to their source, and
label-projected augmentation of NLI pairs (Sancheti et al. 2022).

Two ways to get the paraphrases:

- ``generator=DIR``: a seq2seq paraphraser trained by ``augkit train erap``, told the relation
  by a control token (ERAP's generator);
- ``sample_from=METHOD``: ``num_return`` samples of any installed method or pipeline (back-translation,
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
    GeneratedRow,
    InputError,
    InvalidParameterError,
    ModelNeed,
    RowProtection,
    check_bool,
    check_int,
    draw_seed,
    low_bits,
    needs_within,
    renamed_module_names,
    repetition_loop,
    spans_kept_first,
)
from augkit_erap.projection import (
    EQUIVALENCE,
    checked_projection,
    checked_types,
    needed_relations,
    rules_for,
)
from augkit_erap.ranking import ErapRelationFilter, reward_ranking
from augkit_erap.relations import checked_relation
from augkit_erap.reward import ErapEvaluator, RewardWeights
from augkit_erap.sources import NO_GENERATOR, ControlledGenerator, MethodSamples

#: Section 4.1's re-ranking pool sizes; the paper's main results use 20.
RERANK_K = 20
PREMISE = "premise"
#: The width of a row's paraphrase seed (and of its premise's, the next int): 32 bits since
#: the first release. Another width would give other samples for the same run seed.
PARAPHRASE_SEED_BITS = 32
#: Why a text got no paraphrase, in the words of the run's summary (with those of
#: :mod:`augkit_erap.sources`: the generator's only copies, sample_from's nothing).
REPETITION_REASON = ("erap: every paraphrase fell into a repetition loop (a phrase said over and over); "
                     "refuse_loops=false keeps such candidates")


class ERAP(Augmenter):
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
        Re-ranking mode (RR): any installed method or pipeline string whose ``num_return`` samples per
        text are ranked by ERAP's reward (``"backtranslation"``, ``"backtranslation+eda"``).
        One of ``generator`` and ``sample_from`` is needed.
    num_return : int
        Samples per text to re-rank (the paper: 1, 5, 10, 20); ``k`` until augkit 0.3.
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
    do_sample : bool
        Nucleus sampling from ``generator`` instead of beam search, seeded per row.
    top_p : float
        Nucleus mass when sampling.
    max_new_tokens : int, optional
        Longest paraphrase from ``generator``, in tokens (default: the model's).
    refuse_loops : bool
        Refuse a paraphrase caught in a repetition loop its source is not in
        (:func:`augkit.plugin.repetition_loop`). Default true.
    device : str
        Where to run the models.

    Notes
    -----
    Protected spans of the text (``protect=``, ``protect_column=``, the codes protected by
    default) go to ``sample_from``'s method (back-translation carries them as placeholders);
    the paraphrases that kept every span are offered before the others, which the pipeline's
    ``protected`` step drops. A text left without a paraphrase says why.
    """

    name = "erap"
    #: augkit's one name per idea (docs/plugin-authors.md): the old names work until 0.3
    renamed_parameters = {"k": "num_return", "sample": "do_sample"}
    uses_model = True
    text_name = "hypothesis"
    optional_rewrites_columns = (PREMISE,)

    def __init__(
        self,
        relation: str = EQUIVALENCE,
        generator: str | None = None,
        sample_from: str | None = None,
        num_return: int = RERANK_K,
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
        do_sample: bool = False,
        top_p: float = 0.9,
        max_new_tokens: int | None = None,
        refuse_loops: bool = True,
        device: str = "auto",
    ):
        self.relation = checked_relation(relation)
        if generator is not None and sample_from is not None:
            raise InvalidParameterError("give generator (ERAP's own model) or sample_from (re-ranking another method), not both")
        for flag, value in (("require_relation", require_relation), ("aware", aware), ("do_sample", do_sample)):
            if not isinstance(value, bool):
                raise InvalidParameterError(f"{flag} must be True or False, got {value!r}")
        if not aware and sample_from is None:
            raise InvalidParameterError("aware=False is the entailment-unaware baseline of re-ranking mode: give sample_from too")
        self.generator = generator
        if generator is not None:
            from augkit.plugin import warn_if_trained_with_warnings

            warn_if_trained_with_warnings(generator, method=self.name)  # a folder of `augkit train erap`
        self.sample_from = sample_from
        self.num_return = check_int("num_return", num_return, minimum=1)
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
        self.do_sample = do_sample
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens
        self.refuse_loops = check_bool("refuse_loops", refuse_loops)
        self.device = device
        self._source: Any = None
        self._relation_step: ErapRelationFilter | None = None

    def __getstate__(self) -> dict:
        # The loaded generator, oracle and encoder are loaded again where unpickled (a worker).
        return {**self.__dict__, "_source": None, "_relation_step": None}

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
                self._source = ControlledGenerator(self.generator, num_beams=self.num_beams, sample=self.do_sample,
                                                   top_p=self.top_p, max_new_tokens=self.max_new_tokens, device=self.device)
            elif self.sample_from is not None:
                self._source = MethodSamples(self.sample_from, self.num_return)
            else:
                raise InputError(NO_GENERATOR)
        return self._source

    @property
    def relation_step(self) -> ErapRelationFilter:
        """The ``erap_relation`` step on this method's oracle, encoder, weights and
        ``require_relation``, which scores and screens its samples (created on first use)."""
        if self._relation_step is None:
            self._relation_step = ErapRelationFilter(
                self.relation, require_relation=self.require_relation, oracle=self.oracle,
                similarity_model=self.similarity_model, alpha=self.alpha, beta=self.beta, delta=self.delta,
                device=self.device)
        return self._relation_step

    @property
    def evaluator(self) -> ErapEvaluator:
        """Equation 5 on this method's oracle, encoder and weights (:attr:`relation_step`'s)."""
        return self.relation_step.evaluator

    def paraphrases(self, texts: list[str], relations: list[str], n: int, seeds: list[int],
                    protected: list[RowProtection] | None = None) -> list[list[str]]:
        """Up to ``n`` paraphrases of ``texts[i]`` under ``relations[i]``, best first (those
        that kept every protected span of ``protected[i]`` before the others); a text left
        with none is an empty :class:`augkit.GeneratedRow` saying why."""
        spans = protected if protected is not None else [()] * len(texts)
        if isinstance(self.source, ControlledGenerator):
            found = self.source.paraphrase(texts, relations, n, seeds)
            return [self._screened(text, row, row_spans)[:n] or _empty(row, REPETITION_REASON)
                    for text, row, row_spans in zip(texts, found, spans, strict=True)]
        samples = self.source.sample(texts, seeds, protected)
        screened = [self._screened(text, row, row_spans) or _empty(row, REPETITION_REASON)
                    for text, row, row_spans in zip(texts, samples, spans, strict=True)]
        if not self.aware:
            return [row[:n] if row else row for row in screened]
        return self.reranked(texts, screened, relations, n, spans)

    def _screened(self, text: str, row: list[str], spans: RowProtection) -> list[str]:
        """``row`` without its loops (``refuse_loops``), those that kept every protected span
        first (in their order, then the others in theirs)."""
        return spans_kept_first([candidate for candidate in row if not (self.refuse_loops and repetition_loop(text, candidate))],
                                spans)

    def reranked(self, texts: list[str], samples: list[list[str]], relations: list[str], n: int,
                 protected: list[RowProtection] | None = None) -> list[list[str]]:
        """Each text's samples ordered by equation 5's reward for its relation (ties: sample
        order), the best ``n`` kept; with ``require_relation``, only those the oracle finds
        holding it. Samples that lost a protected span of ``protected[i]`` come after the
        others. A text left with none says why.

        The scoring is the ``erap_relation`` step's (:attr:`relation_step`) and the ordering
        ``rank``'s (:func:`augkit_erap.ranking.reward_ranking`): the steps a pipeline runs
        after ``erap(aware=false)``, here inside generation because a pair's premise and
        hypothesis each need one paraphrase per relation before the pairs are composed, and
        each request of a batch has its own relation."""
        spans = protected if protected is not None else [()] * len(texts)
        rows = [[Candidate(sample) for sample in row] for row in samples]
        if not any(rows):
            return [_empty(row, "") for row in samples]
        kept = self.relation_step.scored(texts, rows, relations)
        ranking = reward_ranking()
        return [spans_kept_first([c.text for c in ranking.filter(text, row)], row_spans)[:n] if row
                else _empty(sampled, _no_relation(relation))
                for text, row, sampled, relation, row_spans in zip(texts, kept, samples, relations, spans, strict=True)]

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
        seeds = [draw_seed(rng, PARAPHRASE_SEED_BITS) for rng in rngs]
        if PREMISE not in context.columns:
            protected = list(context.protected) if context.protected is not None else None
            return self.paraphrases(list(texts), [self.relation] * len(texts), n, seeds, protected)
        if context.labels is None:
            raise InputError("erap augments (premise, hypothesis) pairs by their labels: name the label column (label_column=)")
        return self._pairs(list(texts), list(context.columns[PREMISE]), list(context.labels), n, rngs, seeds,
                           context.protected)

    def _pairs(self, hypotheses: list[str], premises: list[str], labels: list[Any], n: int,
               rngs: list[random.Random], seeds: list[int],
               protected: list[RowProtection] | None = None) -> list[list[Candidate]]:
        """Table 6 for each pair: paraphrase each side under the relations its determined
        rules need (all requests in one batch; the hypothesis with its protected spans), then
        emit the determined pairs.

        Pairs rank inside generation (:meth:`reranked`, through the ``erap_relation`` and
        ``rank`` steps' own code), not as later pipeline steps: a pair is composed from the one
        best paraphrase of each side under each relation, so the ranking must happen before the
        pairs exist, and the requests of one batch want different relations."""
        types = tuple(self.types.split(",")) if self.aware else (EQUIVALENCE,)
        rules = [rules_for(types, str(label) == self.entailment_label, self.projection) for label in labels]
        requests: list[tuple[int, str, str]] = []  # (row, side, relation)
        for row, row_rules in enumerate(rules):
            premise_relations, hypothesis_relations = needed_relations(row_rules)
            requests += [(row, PREMISE, r) for r in sorted(premise_relations)]
            requests += [(row, "hypothesis", r) for r in sorted(hypothesis_relations)]
        side_text = {PREMISE: premises, "hypothesis": hypotheses}
        spans = None if protected is None else [protected[row] if side == "hypothesis" else () for row, side, _ in requests]
        found = self.paraphrases([side_text[side][row] for row, side, _ in requests], [r for _, _, r in requests], 1,
                                 [low_bits(seeds[row] + (side == PREMISE), PARAPHRASE_SEED_BITS) for row, side, _ in requests], spans)
        rewrites = {(row, side, relation): out[0] for (row, side, relation), out in zip(requests, found, strict=True) if out}
        missing = {(row, side, relation): _reason_of(out) for (row, side, relation), out in zip(requests, found, strict=True)
                   if not out}
        rows = []
        for row, row_rules in enumerate(rules):
            made = []
            why = ""
            for rule in row_rules:
                premise = rewrites.get((row, PREMISE, rule.premise)) if rule.premise else premises[row]
                hypothesis = rewrites.get((row, "hypothesis", rule.hypothesis)) if rule.hypothesis else hypotheses[row]
                if premise is None or hypothesis is None:
                    side, relation = (PREMISE, rule.premise) if premise is None else ("hypothesis", rule.hypothesis)
                    why = why or f"the {side} got no {relation} paraphrase: {missing.get((row, side, relation), '')}"
                    continue
                fields = {PREMISE: premise} if rule.premise else {}
                made.append(Candidate(hypothesis, rule.name, fields=fields))
            rngs[row].shuffle(made)
            if made:
                rows.append(made[:n])
            elif not row_rules:
                rows.append(GeneratedRow([], reason=self._undetermined()))
            else:
                rows.append(GeneratedRow([], reason=f"erap: {why}"))
        return rows

    def _undetermined(self) -> str:
        """Why a pair got no rewrite when no rule of Table 6 determines its label."""
        types = self.types if self.aware else EQUIVALENCE
        return (f"erap: no rule of types={types} determines the label of a pair not labelled "
                f"{self.entailment_label!r} under projection={self.projection} (the forward type, and reverse under "
                f"strict, leave it unknown)")


def _empty(row: list[str], reason: str) -> list[str]:
    """An empty row: ``row`` itself when it says why (a source's reason), else one saying ``reason``."""
    return row if getattr(row, "reason", None) else GeneratedRow([], reason=reason or None)


def _reason_of(row: list[str]) -> str:
    """An empty row's reason without its ``erap: `` prefix (for a pair's reason, which has its own)."""
    return (getattr(row, "reason", None) or "no paraphrase").removeprefix("erap: ")


def _no_relation(relation: str) -> str:
    return (f"erap: no sample holds the relation {relation!r} by the oracle; require_relation=false keeps the best "
            "by reward whatever its relation")

#: Old class names, importable until augkit 0.3 (docs/plugin-authors.md, "One name per idea").
__getattr__ = renamed_module_names(__name__, {"Erap": "ERAP"}, globals())
