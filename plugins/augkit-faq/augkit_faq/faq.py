"""The thesis' whole procedure on a question/answer table: :func:`paraphrase_faq`.

1. Abbreviation handling: "Expansion (ABBR)" -> "ABBR" before generation.
2. Generation: ``num_return`` candidates per question from the generator.
3. Post-processing: long forms restored; repeats of the question or of another candidate dropped.
4. Selection, step (a): cosine similarity to the question >= ``min_similarity`` (0.8, the
   thesis' 4.0 of 5) -- augkit's ``semantic`` filter; step (b): used as a query against all
   the FAQ's questions, the candidate must retrieve its own question first -- augkit's
   ``label_integrity`` filter in strict mode.
5. Output: every original pair, each followed by its accepted paraphrases paired with its
   answer, with both scores and the rank as provenance; plus a table of every candidate with
   its fate, for review.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from augkit.adapters.provenance import METHOD_COLUMN, SOURCE_COLUMN
from augkit.candidate import Candidate
from augkit.errors import InvalidParameterError
from augkit.seeding import RowSeeder, resolve_seed

from augkit_faq.abbreviations import shorten
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
from augkit_faq.postprocess import process_candidates

__all__ = ["DEFAULT_GENERATOR", "OFFLINE_GENERATOR", "FaqResult", "paraphrase_faq", "STATUSES"]

METHOD_NAME = "faq"
SEMANTIC_COLUMN = "augkit_semantic"
INTEGRITY_COLUMN = "augkit_label_integrity"
RANK_COLUMN = "augkit_rank"
#: A candidate's fate, in the order of the steps that decide it.
STATUSES = ("duplicate", "meaning_changed", "low_similarity", "other_question_nearer", "beyond_n", "accepted")
CANDIDATE_COLUMNS = (
    "candidate_id", "source", "question", "candidate", "meaning_change", "semantic", "label_integrity",
    "nearest_question", "status", "rank",
)
DEFAULT_MIN_SIMILARITY = 0.8
#: Model-free screens run on the unique candidates before step (a): a paraphrase that adds or
#: loses a negation, changes a number, date or time, or loses a name, link or quoted string
#: (augkit's label-safety filters) answers another question. Not in the thesis, whose step
#: (a) accepted "an image in Google Documents" -> "a non-Google Docs image" at similarity
#: 0.92; ``screens=()`` reproduces its selection exactly.
DEFAULT_SCREENS = ("negation", "numbers", "entities")


@dataclass
class FaqResult:
    """What :func:`paraphrase_faq` found.

    ``table``: the augmented FAQ. ``candidates``: one row per generated candidate with its
    scores and ``status`` (see :data:`STATUSES`). ``summary``: counts per step.
    :meth:`table_for` rebuilds the augmented FAQ from a hand-picked set of candidates.
    """

    table: Any
    candidates: Any
    summary: dict[str, Any]
    _frame: Any = field(repr=False)
    _question_column: str = field(repr=False)

    def table_for(self, candidate_ids: Iterable[int]) -> Any:
        """The augmented FAQ with exactly the candidates ``candidate_ids`` as paraphrases
        (any status), each after its source row, ordered by rank then candidate id."""
        wanted = set(int(i) for i in candidate_ids)
        unknown = wanted - set(self.candidates["candidate_id"].tolist())
        if unknown:
            raise InvalidParameterError(f"no candidates with ids {sorted(unknown)[:10]}")
        chosen = self.candidates[self.candidates["candidate_id"].isin(wanted)]
        return _augmented_table(self._frame, self._question_column, chosen)


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
    max_length: int = DEFAULT_MAX_LENGTH,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
    encoder: str | None = None,
    device: str = "cpu",
    progress: bool = False,
    screens: Sequence[str] = DEFAULT_SCREENS,
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
    num_return, top_k, top_p, max_length
        Candidates asked per question, and the model's sampling (thesis: 40, 120, 0.98, 256).
    min_similarity : float
        Step (a): lowest cosine similarity to the question (thesis: 4.0 of 5, 0.8).
    screens : sequence of str
        Filters that drop, before step (a), a candidate whose meaning plainly changed
        (:data:`DEFAULT_SCREENS`: negation, numbers, entities); the candidates table says
        which and why (``meaning_change``). ``()`` gives the thesis' selection exactly.
    encoder : str, optional
        Sentence-transformers model for both steps; None is all-MiniLM-L6-v2 (offline).
    device : str
        Where the generator model and the encoder run.

    Rows whose question is empty or missing are kept and not paraphrased; so are repeats of
    a question (its first row is paraphrased) -- a repeated question with different answers
    is not paraphrased at all. ``summary`` and a warning name those rows.
    """
    from augkit.filters.base import BatchContext, DatasetContext
    from augkit.filters.label_integrity import LabelIntegrityFilter
    from augkit.filters.semantic import SemanticFilter

    for name, value, low in (("num_return", num_return, 1), ("n", 1 if n is None else n, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    questions = read_questions(frame, question_column, answer_column)
    for note in questions.notes:
        warnings.warn(f"augkit faq: {note}", RuntimeWarning, stacklevel=2)
    semantic = SemanticFilter(min=min_similarity, max=1.0, model=encoder, device=device)
    integrity = LabelIntegrityFilter(own_source=True, model=encoder, device=device)
    chosen_generator = resolve_generator(generator, top_k=top_k, top_p=top_p, max_length=max_length, device=device)
    screening = _screens(screens)

    sources = questions.to_paraphrase
    texts = [questions.text[row] for row in sources]
    shortened = [shorten(text) for text in texts]
    seeder = RowSeeder(resolve_seed(seed), METHOD_NAME)
    seeds = [seeder.rng(text).getrandbits(63) for text in texts]
    generated = chosen_generator.generate([s.text for s in shortened], num_return, seeds, progress=progress) if texts else []

    records: list[dict[str, Any]] = []
    unique_rows: list[list[Candidate]] = []
    for row, text, short, raw in zip(sources, texts, shortened, generated, strict=True):
        unique = []
        for processed in process_candidates(text, short.terms, raw):
            record = _record(len(records), questions.labels[row], text, processed.text)
            records.append(record)
            if processed.duplicate:
                record["status"] = "duplicate"
            elif not _meaning_changed(record, text, screening):
                unique.append(Candidate(processed.text, METHOD_NAME, {"record": record}))
        unique_rows.append(unique)

    if any(unique_rows):  # else nothing to select: no encoder to load
        semantic.prepare(DatasetContext(texts=texts))
        after_semantic = semantic.filter_batch(texts, unique_rows, BatchContext())
        integrity.prepare(DatasetContext(texts=questions.all_questions))
        after_integrity = integrity.filter_batch(texts, after_semantic, BatchContext())
        _note_scores(unique_rows, after_semantic, after_integrity)
        _name_nearest_questions(records, questions.all_questions, encoder, device)
        _rank(after_integrity, n)

    import pandas as pd

    candidates = pd.DataFrame.from_records(records, columns=list(CANDIDATE_COLUMNS))
    candidates["rank"] = candidates["rank"].astype("Int64")
    accepted = candidates[candidates["status"] == "accepted"]
    summary = _summary(questions, candidates, chosen_generator.name)
    return FaqResult(_augmented_table(frame, question_column, accepted), candidates, summary, frame, question_column)


def _record(candidate_id: int, source: Any, question: str, text: str) -> dict[str, Any]:
    return {
        "candidate_id": candidate_id, "source": source, "question": question, "candidate": text,
        "meaning_change": None, "semantic": float("nan"), "label_integrity": float("nan"), "nearest_question": None,
        "status": None, "rank": None,
    }


def _screens(names: Sequence[str]) -> list[Any]:
    """The screen filters, built by name through the registry (a bad name lists the filters)."""
    from augkit.plugins import get_registry

    if isinstance(names, str):
        raise InvalidParameterError(f"screens must be a sequence of filter names, e.g. {list(DEFAULT_SCREENS)}, got {names!r}")
    registry = get_registry()
    filters = [registry.create_filter(name) for name in names]
    unexplained = [f.name for f in filters if not hasattr(f, "explain")]
    if unexplained:
        raise InvalidParameterError(f"screens must say why they drop a candidate (explain()); {', '.join(unexplained)} does not")
    return filters


def _meaning_changed(record: dict[str, Any], question: str, screening: list[Any]) -> bool:
    """Whether a screen drops the candidate; if so its record says which and why."""
    for screen in screening:
        reason = screen.explain(question, record["candidate"])
        if reason:
            record["status"] = "meaning_changed"
            record["meaning_change"] = f"{screen.name}: {reason}"
            return True
    return False


def _note_scores(unique_rows, after_semantic, after_integrity) -> None:
    """Copy each candidate's scores and fate into its record."""
    passed_semantic = {id(c) for row in after_semantic for c in row}
    passed_integrity = {id(c) for row in after_integrity for c in row}
    for row in unique_rows:
        for candidate in row:
            record = candidate.scores["record"]
            record["semantic"] = candidate.scores.get("semantic", float("nan"))
            record["label_integrity"] = candidate.scores.get("label_integrity", float("nan"))
            if id(candidate) not in passed_semantic:
                record["status"] = "low_similarity"
            elif id(candidate) not in passed_integrity:
                record["status"] = "other_question_nearer"
            else:
                record["status"] = "accepted"


def _name_nearest_questions(records, all_questions: list[str], encoder: str | None, device: str) -> None:
    """For candidates step (b) rejected, the question they retrieve instead of their own."""
    rejected = [r for r in records if r["status"] == "other_question_nearer"]
    if not rejected:
        return
    from augkit.encoders import cosine_matrix, get_encoder

    model = get_encoder(encoder, device)
    similarity = cosine_matrix(model.encode([r["candidate"] for r in rejected]), model.encode(all_questions))
    for record, best in zip(rejected, similarity.argmax(axis=1).tolist(), strict=True):
        record["nearest_question"] = all_questions[best]


def _rank(after_integrity: list[list[Candidate]], n: int | None) -> None:
    """Rank each question's accepted candidates by similarity (ties: generation order);
    those past ``n`` become ``beyond_n``."""
    for row in after_integrity:
        ordered = sorted(row, key=lambda c: (-c.scores["semantic"], c.scores["record"]["candidate_id"]))
        for rank, candidate in enumerate(ordered, start=1):
            record = candidate.scores["record"]
            if n is not None and rank > n:
                record["status"] = "beyond_n"
            else:
                record["rank"] = rank


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

