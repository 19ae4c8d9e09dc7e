"""The thesis' whole procedure on a question/answer table: :func:`paraphrase_faq`, an
ordinary augkit pipeline (:func:`faq_pipeline`) run with a trace.

1. Abbreviation handling: "Expansion (ABBR)" -> "ABBR" before generation;
2. generation: ``num_return`` candidates per question from the generator;
3. post-processing: long forms restored (1-3: the ``faq`` augmenter); repeats of the
   question or of another candidate dropped (``dedup`` with the FAQ's duplicate rule);
4. screens (not in the thesis): ``repetition``, ``negation``, ``numbers``, ``entities``;
5. selection, step (a): cosine similarity to the question >= ``min_similarity`` (0.8, the
   thesis' 4.0 of 5) -- augkit's ``semantic`` filter; step (b): used as a query against all
   the FAQ's questions, the candidate must retrieve its own question first -- augkit's
   ``label_integrity(own_source=true)``;
6. ranking by similarity, at most ``n`` kept (``top_k``);
7. output: every original pair, each followed by its accepted paraphrases paired with its
   answer, with both scores and the rank as provenance; plus a table of every candidate with
   its fate, for review, read from the pipeline's trace (the step that dropped it).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from augkit.plugin import (
    METHOD_COLUMN,
    SOURCE_COLUMN,
    InvalidParameterError,
    renamed_keywords,
    resolve_seed,
)
from augkit_faq.augmenter import FAQParaphraser
from augkit_faq.faq_input import FaqQuestions, read_questions
from augkit_faq.generators import (
    DEFAULT_GENERATOR,
    DEFAULT_MAX_LENGTH,
    DEFAULT_NUM_RETURN,
    DEFAULT_TOP_K,
    DEFAULT_TOP_P,
    OFFLINE_GENERATOR,
    QuestionGenerator,
    resolve_generator,
)
from augkit_faq.postprocess import same_question_rule

__all__ = ["DEFAULT_GENERATOR", "OFFLINE_GENERATOR", "FaqResult", "faq_pipeline", "paraphrase_faq", "STATUSES"]

METHOD_NAME = "faq"
SEMANTIC_COLUMN = "augkit_semantic"
INTEGRITY_COLUMN = "augkit_label_integrity"
RANK_COLUMN = "augkit_rank"
#: The scores the candidates table shows, as the ``semantic`` and ``label_integrity`` steps name them.
SEMANTIC, INTEGRITY = "semantic", "label_integrity"
#: A candidate's fate, in the order of the steps that decide it.
STATUSES = ("duplicate", "meaning_changed", "low_similarity", "other_question_nearer", "beyond_n", "accepted")
CANDIDATE_COLUMNS = (
    "candidate_id", "source", "question", "candidate", "meaning_change", "semantic", "label_integrity",
    "nearest_question", "status", "rank",
)
DEFAULT_MIN_SIMILARITY = 0.8
#: Model-free screens run on the unique candidates before step (a): a paraphrase caught in a
#: repetition loop ("how do i pay pay pay"), or that adds or loses a negation, changes a
#: number, date or time, or loses a name, link or quoted string (augkit's label-safety
#: filters) answers another question, or none. Not in the thesis, whose step (a) accepted
#: "an image in Google Documents" -> "a non-Google Docs image" at similarity 0.92;
#: ``screens=()`` reproduces its selection exactly.
DEFAULT_SCREENS = ("repetition", "negation", "numbers", "entities")


@dataclass
class FaqResult:
    """What :func:`paraphrase_faq` found.

    ``table``: the augmented FAQ. ``candidates``: one row per generated candidate with its
    scores and ``status`` (see :data:`STATUSES`). ``summary``: counts per step.
    ``pipeline``: the string form of the pipeline that ran (:func:`faq_pipeline`).
    :meth:`table_for` rebuilds the augmented FAQ from a hand-picked set of candidates.
    """

    table: Any
    candidates: Any
    summary: dict[str, Any]
    _frame: Any = field(repr=False)
    _question_column: str = field(repr=False)
    pipeline: str = ""

    def table_for(self, candidate_ids: Iterable[int]) -> Any:
        """The augmented FAQ with exactly the candidates ``candidate_ids`` as paraphrases
        (any status), each after its source row, ordered by rank then candidate id."""
        wanted = set(int(i) for i in candidate_ids)
        unknown = wanted - set(self.candidates["candidate_id"].tolist())
        if unknown:
            raise InvalidParameterError(f"no candidates with ids {sorted(unknown)[:10]}")
        chosen = self.candidates[self.candidates["candidate_id"].isin(wanted)]
        return _augmented_table(self._frame, self._question_column, chosen)


@renamed_keywords({"max_length": "max_new_tokens"}, "paraphrase_faq")
def paraphrase_faq(
    frame: Any,
    question_column: str,
    answer_column: str,
    *,
    n: int | None = None,
    generator: str | QuestionGenerator = DEFAULT_GENERATOR,
    seed: int | None = 0,
    num_return: int = DEFAULT_NUM_RETURN,
    top_k: int = DEFAULT_TOP_K,
    top_p: float = DEFAULT_TOP_P,
    max_new_tokens: int = DEFAULT_MAX_LENGTH,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
    encoder: str | None = None,
    device: str = "auto",
    progress: bool = False,
    screens: Sequence[str] = DEFAULT_SCREENS,
    forbid_source_unigrams: float = 0.0,
    runtime: str = "transformers",
    compute_type: str = "auto",
) -> FaqResult:
    """Augment an FAQ with paraphrases of its questions that keep their answers.

    Parameters
    ----------
    frame : pandas.DataFrame
        The FAQ, one question/answer pair per row; other columns are carried along.
    question_column, answer_column : str
        Its question and answer columns.
    n : int, optional
        Most paraphrases kept per question, the most similar first; None keeps every
        accepted one (as the thesis does).
    generator : str or QuestionGenerator
        A seq2seq paraphrase model id or directory, or an augkit method such as
        ``"backtranslation"`` (:data:`OFFLINE_GENERATOR`, runs offline); see
        :func:`augkit_faq.generators.resolve_generator`.
    seed : int or None
        Same seed, same candidates; each question's candidates depend only on it and the seed.
    num_return, top_k, top_p, max_new_tokens
        Candidates asked per question, and the model's sampling (thesis: 40, 120, 0.98, 256);
        ``max_new_tokens`` was ``max_length`` (accepted until augkit 0.3).
    min_similarity : float
        Step (a): lowest cosine similarity to the question (thesis: 4.0 of 5, 0.8).
    screens : sequence of str
        Filters that drop, before step (a), a candidate whose meaning plainly changed
        (:data:`DEFAULT_SCREENS`: repetition, negation, numbers, entities); the candidates table says
        which and why (``meaning_change``). ``()`` gives the thesis' selection exactly.
    encoder : str, optional
        Sentence-transformers model for both steps; None is all-MiniLM-L6-v2 (offline).
    device : str
        Where the generator model and the encoder run (``auto``: CUDA when torch sees a GPU).
    forbid_source_unigrams : float
        Bart-uni (ProtAugment's diverse decoding) with a model generator: each token of the
        question is forbidden in its candidates with this probability, drawn from the seed
        (0, default: off; ProtAugment's value is 0.7, :data:`BART_UNI_PROBABILITY`).
    runtime, compute_type : str
        How a model generator runs: ``"transformers"`` (torch) or ``"ctranslate2"``
        (``compute_type`` ``auto``, ``int8``, ``float32``, ...); see
        :class:`~augkit_faq.generators.Seq2SeqParaphraser`.

    Notes
    -----
    Rows whose question is empty or missing are kept and not paraphrased; so are repeats of
    a question (its first row is paraphrased) -- a repeated question with different answers
    is not paraphrased at all. ``summary`` and a warning name those rows.
    """
    for name, value, low in (("num_return", num_return, 1), ("n", 1 if n is None else n, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    questions = read_questions(frame, question_column, answer_column)
    for note in questions.notes:
        warnings.warn(f"augkit faq: {note}", RuntimeWarning, stacklevel=2)
    if isinstance(forbid_source_unigrams, bool) or not isinstance(forbid_source_unigrams, (int, float)) or not 0 <= forbid_source_unigrams <= 1:
        raise InvalidParameterError(f"forbid_source_unigrams must be a probability between 0 and 1 (0: off), got {forbid_source_unigrams!r}")
    bart_uni = {"forbid_source_unigrams": True, "forbid_probability": float(forbid_source_unigrams)} if forbid_source_unigrams else {}
    chosen_generator = resolve_generator(generator, top_k=top_k, top_p=top_p, max_new_tokens=max_new_tokens, device=device,
                                         runtime=runtime, compute_type=compute_type, **bart_uni)
    pipeline = faq_pipeline(
        chosen_generator, progress=progress, n=n, num_return=num_return, min_similarity=min_similarity,
        screens=screens, encoder=encoder, device=device,
    )

    sources = questions.to_paraphrase
    texts = [questions.text[row] for row in sources]
    traces: list[list[Any]] = []
    ranked: list[list[str]] = []
    if texts:  # else nothing to generate or select: no model to load
        pipeline.prepare(questions.all_questions)  # label_integrity: retrieve among all the questions
        # Each question's candidates depend on the seed and its text alone (the augmenter
        # draws from its row's generator, augkit.seeding), whatever the other questions.
        # strict: an error on a question stops the run, naming it (as the hand-wired version did)
        outcome = pipeline.run_batch(texts, EVERY_CANDIDATE, resolve_seed(seed), trace=True, strict=True)
        traces = outcome.traces
        ranked = [[candidate.text for candidate in row] for row in outcome.candidates]

    records = _records(pipeline, questions, sources, texts, traces, ranked)
    _name_nearest_questions(records, questions.all_questions, encoder, device)

    import pandas as pd

    candidates = pd.DataFrame.from_records(records, columns=list(CANDIDATE_COLUMNS))
    candidates["rank"] = candidates["rank"].astype("Int64")
    accepted = candidates[candidates["status"] == "accepted"]
    summary = _summary(questions, candidates, chosen_generator.name)
    table = _augmented_table(frame, question_column, accepted)
    return FaqResult(table, candidates, summary, frame, question_column, pipeline=pipeline.spec)


def faq_pipeline(
    generator: str | QuestionGenerator = DEFAULT_GENERATOR,
    *,
    n: int | None = None,
    num_return: int = DEFAULT_NUM_RETURN,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
    screens: Sequence[str] = DEFAULT_SCREENS,
    encoder: str | None = None,
    device: str = "auto",
    progress: bool = False,
) -> Any:
    """The pipeline :func:`paraphrase_faq` runs on the questions, step by step the thesis'
    procedure (see the module docstring):

    ``faq(generator=..., num_return=40, keep_duplicates=True, refuse_loops=False)|dedup(ignore_case=True,
    ignore_final_punctuation=True)|repetition|negation|numbers|entities|semantic(max=1.0)|
    label_integrity(own_source=True)|top_k(weights={'semantic': 1.0})`` (``top_k(k=n, ...)``
    when ``n`` is given; the screens are ``screens``). The ``faq`` augmenter returns its repeats so that ``dedup`` drops them
    and the trace records them, and its loops for the ``repetition`` screen to drop; ``top_k``
    ranks by similarity, generation order breaking ties. Run it with :data:`EVERY_CANDIDATE` as ``n``: the generator is asked for
    ``num_return`` and everything it gives is kept for the steps to decide on.
    """
    from augkit.plugin import LabelIntegrityFilter, Pipeline, SemanticFilter, TopKFilter

    if isinstance(generator, QuestionGenerator):  # shown by name in the string form, with the progress asked
        generator = _ShowingProgress(generator, progress)
    paraphraser = FAQParaphraser(generator=generator, device=device, num_return=num_return, keep_duplicates=True,
                                 refuse_loops=False)
    steps = [
        same_question_rule(),
        *_screens(screens),
        SemanticFilter(min=min_similarity, max=1.0, model=encoder, device=device),
        LabelIntegrityFilter(own_source=True, model=encoder, device=device),
        TopKFilter(k=n, weights={SEMANTIC: 1.0}),
    ]
    return Pipeline(paraphraser, steps, dedup=False, protected=False)  # its own fixed steps: the run around it protects


#: What :func:`faq_pipeline` is run with as ``n``: no cut by the pipeline, whose generator
#: is asked for ``num_return`` candidates and whose ``top_k`` step keeps the best ``n``.
EVERY_CANDIDATE = sys.maxsize


class _ShowingProgress:
    """A generator that shows (or not) a progress bar whoever calls it: the pipeline's
    augmenter does not pass ``progress`` (a reserved parameter name) through."""

    def __init__(self, generator: QuestionGenerator, progress: bool):
        self.generator = generator
        self.progress = progress
        self.name = generator.name

    def generate(self, questions: Sequence[str], num_return: int, seeds: Sequence[int], *, progress: bool = False) -> list[list[str]]:
        return self.generator.generate(questions, num_return, seeds, progress=self.progress)  # nothing protected here

    def required_models(self) -> list:
        declared = getattr(self.generator, "required_models", None)
        return list(declared()) if declared is not None else []

    def __repr__(self) -> str:  # the pipeline's string form names the generator
        return repr(self.name)


def _records(pipeline, questions: FaqQuestions, sources, texts, traces, ranked) -> list[dict[str, Any]]:
    """One record per candidate, read from the trace: its scores and the step that decided
    its fate; a screen's drop says why (the trace's reason), an accepted candidate its rank
    (its place in the pipeline's ranked output)."""
    steps = pipeline.named_steps
    records: list[dict[str, Any]] = []
    for row, question, trace, kept in zip(sources, texts, traces, ranked, strict=True):
        rank_of = {text: rank for rank, text in enumerate(kept, start=1)}
        for entry in trace:
            step = steps.get(entry.dropped_by)
            status = _status(step, entry.dropped_by)
            records.append({
                "candidate_id": len(records), "source": questions.labels[row], "question": question,
                "candidate": entry.candidate,
                "meaning_change": f"{step.name}: {entry.reason or NO_REASON}" if status == "meaning_changed" else None,
                "semantic": entry.scores.get(SEMANTIC, float("nan")),
                "label_integrity": entry.scores.get(INTEGRITY, float("nan")),
                "nearest_question": None, "status": status,
                "rank": rank_of.get(entry.candidate) if status == "accepted" else None,
            })
    return records


#: A screen's drop the trace has no words for (a filter that neither sets ``drop_reason``
#: nor answers ``explain()``; every built-in one does: tests/filters/test_every_filter_says_why.py).
NO_REASON = "dropped; the filter gives no reason"
#: The status of a candidate dropped by each of the pipeline's own steps; a screen's drop is
#: ``meaning_changed``.
_STATUS_BY_STEP = {"dedup": "duplicate", "semantic": "low_similarity", "label_integrity": "other_question_nearer", "top_k": "beyond_n"}


def _status(step: Any, dropped_by: str) -> str:
    if not dropped_by:
        return "accepted"
    if step is None:  # "beyond n": never, as the pipeline runs with EVERY_CANDIDATE
        return "beyond_n"
    return _STATUS_BY_STEP.get(step.name, "meaning_changed")


def _screens(names: Sequence[str]) -> list[Any]:
    """The screen filters, built by name through the registry (a bad name lists the filters)."""
    from augkit.plugin import get_registry

    if isinstance(names, str):
        raise InvalidParameterError(f"screens must be a sequence of filter names, e.g. {list(DEFAULT_SCREENS)}, got {names!r}")
    registry = get_registry()
    return [registry.create_filter(name) for name in names]


def _name_nearest_questions(records, all_questions: list[str], encoder: str | None, device: str) -> None:
    """For candidates step (b) rejected, the question they retrieve instead of their own."""
    rejected = [r for r in records if r["status"] == "other_question_nearer"]
    if not rejected:
        return
    from augkit.plugin import cosine_matrix, get_encoder

    model = get_encoder(encoder, device)
    similarity = cosine_matrix(model.encode([r["candidate"] for r in rejected]), model.encode(all_questions))
    for record, best in zip(rejected, similarity.argmax(axis=1).tolist(), strict=True):
        record["nearest_question"] = all_questions[best]


def _augmented_table(frame: Any, question_column: str, chosen: Any) -> Any:
    """Each original row, followed by the rows of its chosen candidates (its other columns
    copied, the question replaced), with provenance and score columns."""
    import numpy as np
    import pandas as pd

    chosen = chosen.sort_values(["rank", "candidate_id"], kind="stable", na_position="last")
    by_source: dict[Any, list] = {}
    for record in chosen.itertuples(index=False):
        by_source.setdefault(record.source, []).append(record)
    labels = list(frame.index)
    positions, texts, sources, semantic, integrity, ranks = [], [], [], [], [], []
    for position, label in enumerate(labels):
        positions.append(position)
        texts.append(None)
        sources.append(None)
        semantic.append(np.nan)
        integrity.append(np.nan)
        ranks.append(pd.NA)
        for record in by_source.get(label, []):
            positions.append(position)
            texts.append(record.candidate)
            sources.append(label)
            semantic.append(record.semantic)
            integrity.append(record.label_integrity)
            ranks.append(record.rank)
    out = frame.iloc[positions].reset_index(drop=True)
    added = [i for i, text in enumerate(texts) if text is not None]
    if added:
        out.loc[added, question_column] = [texts[i] for i in added]
    out[SOURCE_COLUMN] = pd.Series(sources, dtype=object)
    out[METHOD_COLUMN] = pd.Series([None if s is None else METHOD_NAME for s in sources], dtype=object)
    out[SEMANTIC_COLUMN] = pd.Series(semantic, dtype="float64")
    out[INTEGRITY_COLUMN] = pd.Series(integrity, dtype="float64")
    out[RANK_COLUMN] = pd.Series(ranks, dtype="Int64")
    return out


def _summary(questions: FaqQuestions, candidates: Any, generator_name: str) -> dict[str, Any]:
    status = candidates["status"].value_counts().to_dict()
    generated = len(candidates)
    unique = generated - status.get("duplicate", 0)
    meaning_kept = unique - status.get("meaning_changed", 0)
    after_semantic = meaning_kept - status.get("low_similarity", 0)
    after_integrity = after_semantic - status.get("other_question_nearer", 0)
    return {
        "generator": generator_name,
        "rows": questions.rows,
        "questions": len(questions.all_questions),
        "paraphrased": len(questions.to_paraphrase),
        "generated": generated,
        "unique": unique,
        "meaning_kept": meaning_kept,
        "after_semantic": after_semantic,
        "after_integrity": after_integrity,
        "accepted": status.get("accepted", 0),
        "questions_with_paraphrases": int(candidates.loc[candidates["status"] == "accepted", "source"].nunique()),
        "skipped": {reason: list(rows) for reason, rows in questions.skipped.items()},
        "notes": list(questions.notes),
    }

