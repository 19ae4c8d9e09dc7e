"""The parabank builder of ParaZh-22M (Hao et al., 2022, "ParaZh-22M: a Large-Scale Chinese
Parabank via Machine Translation", section 2.4), the MT-parabank recipe: paraphrase pairs from
translation data.

Terms: the *language* L is the language of the sentences being paraphrased (Chinese in the
paper); the *pivot* P is the other side of the parallel data (English in the paper). For each
L sentence with its P translation (given, or made by the L->P model):

1. language filter: a sentence mostly in the wrong script is dropped (the paper: more than
   60% English letters in a Chinese sentence); with a script given, candidates are checked
   the same way;
2. candidates: the P->L model translates P back into L with beam ``k`` (15) and every beam
   candidate is paired with the original L sentence; copies of it and repeats are dropped;
3. edit-distance ratio filter: a candidate closer to the original than 12% of its length
   (characters) is dropped;
4. dual score (eq. 1): ``log P(candidate | P)`` under the P->L model plus the teacher-forced
   ``log P(P | candidate)`` under the L->P model, per token; each sentence keeps its best
   candidate, and the pairs with the highest per-token score over the whole data set are
   kept (the paper kept ~22M of 30.4M sentence pairs: ``top_fraction`` 0.72).

:func:`build_parabank` runs the recipe on lists of strings; the ``augkit parabank`` command
(:mod:`augkit_backtranslation.parabank_cli`) runs it on a table and writes the pairs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from augkit.plugin import (
    DEFAULT_TOKEN_BUDGET,
    EditRatioFilter,
    ExactDuplicateFilter,
    GenerationResult,
    InputError,
    InvalidParameterError,
)
from augkit_backtranslation.parabank_steps import (
    DualScore,
    PivotBeamCandidates,
    WrongScriptFilter,
    counted_steps,
)
from augkit_backtranslation.scripts import SCRIPTS, script_share

#: Beam size and candidates per sentence: "we use a beam size of 15 and collect all ...
#: beam search candidates".
DEFAULT_K = 15
#: A sentence is dropped when more than this share of its letters is in the wrong script.
DEFAULT_MAX_WRONG_SCRIPT_SHARE = 0.6
#: Minimum character edit-distance ratio between a candidate and the original sentence.
DEFAULT_MIN_EDIT_RATIO = 0.12
#: Share of the scored pairs kept, best per-token dual score first: the paper kept ~22M of
#: the 30.4M sentence pairs of its parallel data (22 / 30.4 = 0.72).
DEFAULT_TOP_FRACTION = 0.72
#: Beam size when the L->P model translates a monolingual sentence into the pivot (one
#: translation kept): the decoder beam of the paper's NMT models.
PIVOT_BEAMS = 4

#: The keys of :attr:`ParabankResult.counts`, in pipeline order.
COUNT_KEYS = (
    "rows",                 # sentences read
    "empty",                # empty sentence (or empty given translation): skipped
    "source_wrong_script",  # sentence mostly in the wrong script: skipped before translating
    "untranslated",         # monolingual mode: the pivot translation came back empty
    "candidates",           # candidates generated
    "wrong_script",         # candidates mostly in the wrong script
    "blank",                # empty candidates
    "copies",               # candidates equal to the original (up to case and spacing)
    "duplicates",           # candidates repeating an earlier one of the same sentence
    "edit_ratio",           # candidates below the minimum edit-distance ratio
    "rows_with_survivor",   # sentences left with at least one candidate
    "pairs",                # pairs kept after the top-fraction cut
)


@dataclass(frozen=True)
class ParabankPair:
    """One paraphrase pair: the original ``source`` sentence (language L), its
    ``paraphrase`` (the chosen candidate), the pivot-language ``translation`` it was
    generated from, and the input ``row``.

    ``forward_logprob`` is log P(paraphrase | translation) under the P->L model and
    ``reverse_logprob`` the teacher-forced log P(translation | paraphrase) under the L->P
    model, each summed over the target's tokens (natural log); ``dual_score`` is their sum
    over the summed token counts. All three are None when the models give no scores
    (the bergamot engine). ``wrong_script_share`` is the paraphrase's share of letters in
    the wrong script, None without a script filter.
    """

    source: str
    paraphrase: str
    translation: str
    dual_score: float | None
    forward_logprob: float | None
    reverse_logprob: float | None
    edit_ratio: float
    wrong_script_share: float | None
    row: int


@dataclass
class ParabankResult:
    """What :func:`build_parabank` returns: the kept ``pairs`` (best dual score first, or in
    input order when unscored) and ``counts`` (see :data:`COUNT_KEYS`)."""

    pairs: list[ParabankPair]
    counts: dict[str, int]
    scored: bool = True
    wrong_script: str | None = None
    min_edit_ratio: float = DEFAULT_MIN_EDIT_RATIO
    top_fraction: float = DEFAULT_TOP_FRACTION
    columns: tuple[str, ...] = field(init=False)

    def __post_init__(self):
        names = ["source", "paraphrase", "translation", "dual_score", "forward_logprob", "reverse_logprob", "edit_ratio"]
        if self.wrong_script is not None:
            names.append("wrong_script_share")
        self.columns = (*names, "row")

    def to_frame(self) -> Any:
        """The pairs as a pandas DataFrame with :attr:`columns`; missing scores are NaN."""
        import pandas as pd

        nan = float("nan")
        rows = [
            {name: (nan if value is None else value) for name, value in vars(pair).items() if name in self.columns}
            for pair in self.pairs
        ]
        return pd.DataFrame(rows, columns=list(self.columns))

    def summary(self) -> str:
        """One line: rows read, candidates generated, what each filter dropped, rows with a
        survivor and the pairs kept."""
        c = self.counts
        skipped = [f"{c['empty']} empty"]
        if self.wrong_script is not None:
            skipped.append(f"{c['source_wrong_script']} mostly {self.wrong_script}")
        if c["untranslated"]:
            skipped.append(f"{c['untranslated']} untranslated")
        dropped = []
        if self.wrong_script is not None:
            dropped.append(f"{c['wrong_script']} mostly {self.wrong_script}")
        if c["blank"]:
            dropped.append(f"{c['blank']} blank")
        dropped.append(f"{c['copies'] + c['duplicates']} copies/duplicates")
        dropped.append(f"{c['edit_ratio']} below edit ratio {self.min_edit_ratio:g}")
        if self.scored:
            cut = f"{c['pairs']} pairs kept (top {self.top_fraction:g} by dual score per token)"
        else:
            cut = f"{c['pairs']} pairs kept (unscored: no dual ranking, no top-fraction cut)"
        return (
            f"{c['rows']} rows read ({', '.join(skipped)} skipped), {c['candidates']} candidates generated; "
            f"dropped {', '.join(dropped)}; {c['rows_with_survivor']} rows with a survivor; {cut}"
        )


@dataclass(frozen=True)
class FilteredCandidate:
    """A candidate that passed :func:`filter_candidates`, with the measures it passed on."""

    text: str
    edit_ratio: float
    wrong_script_share: float | None


def filter_candidates(
    source: str,
    candidates: Sequence[str],
    *,
    wrong_script: str | None = None,
    max_wrong_script_share: float = DEFAULT_MAX_WRONG_SCRIPT_SHARE,
    min_edit_ratio: float = DEFAULT_MIN_EDIT_RATIO,
) -> tuple[list[FilteredCandidate], dict[str, int]]:
    """The candidates of one ``source`` sentence that pass the paper's filters, in their
    order, and how many each filter dropped (keys ``wrong_script``, ``blank``, ``copies``,
    ``duplicates``, ``edit_ratio``).

    The per-sentence steps of :func:`build_parabank` (:func:`parabank_pipeline`, without the
    dual score), run on the given candidates. In order: more than ``max_wrong_script_share``
    of the letters in ``wrong_script``
    (:func:`~augkit_backtranslation.scripts.script_share`; skipped when ``wrong_script`` is
    None); empty; the source again up to case and spacing, or a repeat of an earlier
    candidate (augkit's duplicate rule, :func:`same_sentence_rule`); a character edit-distance
    ratio to the source below ``min_edit_ratio`` (augkit's edit-ratio rule,
    ``EditRatioFilter(min=min_edit_ratio)``).

    >>> kept, dropped = filter_candidates("我的卡丢了", ["我的卡不见了", "my card is lost", "我的卡丢了"],
    ...                                   wrong_script="Latin")
    >>> [c.text for c in kept], dropped["wrong_script"], dropped["copies"]
    (['我的卡不见了'], 1, 1)
    """
    listed = _ListedCandidates(list(candidates))
    asked = max(1, len(listed.candidates))
    pipeline, generator = parabank_pipeline(
        listed, None, k=asked, wrong_script=wrong_script, max_wrong_script_share=max_wrong_script_share,
        min_edit_ratio=min_edit_ratio,
    )
    generator.pivots[source] = source  # the listed candidates need no pivot
    outcome = pipeline.run_batch([source], asked, 0, trace=True, strict=True)
    trace = outcome.traces[0]
    dropped = {key: sum(entry.dropped_by == step for entry in trace) for key, step in counted_steps(pipeline).items()}
    dropped.setdefault("wrong_script", 0)  # no script to screen for: nothing dropped for it
    dropped["blank"] = generator.generated[0] - len(trace)
    dropped = {key: dropped[key] for key in ("wrong_script", "blank", "copies", "duplicates", "edit_ratio")}
    kept = [
        FilteredCandidate(c.text, c.scores["edit_ratio"], c.scores.get("wrong_script_share") if wrong_script is not None else None)
        for c in outcome.candidates[0]
    ]
    return kept, dropped


class _ListedCandidates:
    """A "model" that generates the given candidates whatever it translates: runs
    :func:`parabank_pipeline` on candidates made elsewhere."""

    def __init__(self, candidates: list[str]):
        self.candidates = candidates

    def generate(self, texts: Sequence[str], **options: Any) -> GenerationResult:
        return GenerationResult([list(self.candidates) for _ in texts])


def same_sentence_rule(**options: bool) -> ExactDuplicateFilter:
    """What counts as the same sentence in ParaBank (the paper's duplicate rule, as augkit's
    one duplicate rule): a candidate equal to the original sentence or to an earlier
    candidate, up to letter case and spacing, is dropped.
    ``options`` narrow it (``against_candidates=False``: copies of the sentence only)."""
    return ExactDuplicateFilter(ignore_case=True, **options)


def kept_by_top_fraction(survivors: int, top_fraction: float) -> int:
    """How many of ``survivors`` scored pairs the top-fraction cut keeps:
    ``ceil(top_fraction * survivors)``, so any fraction keeps at least one pair and 1.0 keeps
    all. A hair below the product is taken first, so that binary rounding does not add a
    pair (``0.07 * 100`` is 7.000000000000001 in floating point: 7 pairs, not 8).

    >>> kept_by_top_fraction(100, 0.72), kept_by_top_fraction(3, 0.5), kept_by_top_fraction(0, 0.72)
    (72, 2, 0)
    """
    return min(survivors, math.ceil(top_fraction * survivors - 1e-9))


def build_parabank(
    sentences: Sequence[str],
    translations: Sequence[str] | None = None,
    *,
    to_language_model: Any,
    from_language_model: Any,
    k: int = DEFAULT_K,
    wrong_script: str | None = None,
    max_wrong_script_share: float = DEFAULT_MAX_WRONG_SCRIPT_SHARE,
    min_edit_ratio: float = DEFAULT_MIN_EDIT_RATIO,
    top_fraction: float = DEFAULT_TOP_FRACTION,
    device: str = "auto",
    dtype: str = "auto",
    token_budget: int = DEFAULT_TOKEN_BUDGET,
    progress: bool = False,
    runtime: Any = None,
) -> ParabankResult:
    """Paraphrase pairs of ``sentences`` (language L) by the ParaZh-22M recipe (see the
    module docstring).

    Parallel mode: ``translations[i]`` is the pivot-language (P) translation of
    ``sentences[i]``. Monolingual mode (``translations=None``): ``from_language_model``
    translates each sentence into P first (beam :data:`PIVOT_BEAMS`, one translation).

    ``to_language_model`` (P->L) generates ``k`` candidates per sentence with beam ``k`` and
    gives the forward score; ``from_language_model`` (L->P) gives the reverse score. Each is
    a model id or directory (loaded with :func:`augkit.models.load_seq2seq` on ``device``
    and ``dtype``, run by ``runtime``: an ``augkit.plugin.Runtime``, default torch) or an object with :class:`~augkit.models.Seq2SeqModel`'s ``generate`` and
    ``score``. When either has no ``score`` (:class:`BergamotDirection`), pairs are unscored:
    each sentence keeps its first surviving candidate, nothing is ranked and
    ``top_fraction`` is not applied.

    Each sentence keeps the surviving candidate with the highest dual score per token; of
    those, the best ``kept_by_top_fraction(n, top_fraction)`` are kept (the paper: ~22M of
    30.4M, 0.72), sorted best first (input order breaks ties). Empty sentences are skipped
    and counted.

    >>> result = build_parabank(["我的卡丢了"], ["I lost my card"],                # doctest: +SKIP
    ...     to_language_model="Helsinki-NLP/opus-mt-en-zh",
    ...     from_language_model="Helsinki-NLP/opus-mt-zh-en", wrong_script="Latin")
    >>> result.pairs[0].paraphrase, result.counts["candidates"]                   # doctest: +SKIP
    ('我丢了我的卡', 15)
    """
    _check_parameters(k, wrong_script, max_wrong_script_share, min_edit_ratio, top_fraction, token_budget)
    sentences = _texts(sentences, "sentences")
    if translations is not None:
        translations = _texts(translations, "translations")
        if len(translations) != len(sentences):
            raise InputError(f"translations must have one text per sentence: {len(translations)} translations for {len(sentences)} sentences")
    to_model = _model(to_language_model, device, dtype, runtime)
    from_model = _model(from_language_model, device, dtype, runtime)
    scored = _can_score(to_model) and _can_score(from_model)
    counts = dict.fromkeys(COUNT_KEYS, 0)
    counts["rows"] = len(sentences)

    rows = []
    for row, sentence in enumerate(sentences):
        if not sentence.strip() or (translations is not None and not translations[row].strip()):
            counts["empty"] += 1
        elif wrong_script is not None and script_share(sentence, wrong_script) > max_wrong_script_share:
            counts["source_wrong_script"] += 1  # the paper's language filter, on the data itself
        else:
            rows.append(row)

    if translations is None:
        found = _generate(from_model, [sentences[r] for r in rows], PIVOT_BEAMS, 1, token_budget, progress, "translating into the pivot")
        pivots = {r: (texts[0] if texts else "") for r, texts in zip(rows, found, strict=True)}
        counts["untranslated"] = sum(not pivots[r].strip() for r in rows)
        rows = [r for r in rows if pivots[r].strip()]
    else:
        pivots = {r: translations[r] for r in rows}

    pipeline, generator = parabank_pipeline(
        to_model, from_model if scored else None, k=k, wrong_script=wrong_script,
        max_wrong_script_share=max_wrong_script_share, min_edit_ratio=min_edit_ratio,
        token_budget=token_budget, progress=progress,
    )
    best: dict[int, ParabankPair] = {}
    counted = counted_steps(pipeline)
    for run in _runs_of_distinct_sentences(rows, sentences):
        generator.pivots.clear()
        generator.pivots.update({sentences[row]: pivots[row] for row in run})
        # n=1: each sentence keeps its best candidate (scored: highest p_dual, earlier on
        # ties; unscored: the first survivor in beam order); the trace says what each step dropped
        outcome = pipeline.run_batch([sentences[row] for row in run], 1, 0, trace=True, strict=True)
        for row, generated, trace, kept in zip(run, generator.generated, outcome.traces, outcome.candidates, strict=True):
            counts["candidates"] += generated
            counts["blank"] += generated - len(trace)
            for key, step in counted.items():
                counts[key] += sum(entry.dropped_by == step for entry in trace)
            if kept:
                best[row] = _pair(sentences[row], pivots[row], row, kept[0].text, kept[0].scores, wrong_script)
    counts["rows_with_survivor"] = len(best)

    pairs = sorted(best.values(), key=lambda p: p.row)
    if scored:
        pairs.sort(key=lambda p: -p.dual_score)  # stable: input order breaks ties
        pairs = pairs[: kept_by_top_fraction(len(pairs), top_fraction)]
    counts["pairs"] = len(pairs)
    return ParabankResult(pairs, counts, scored, wrong_script, min_edit_ratio, top_fraction)


def parabank_pipeline(
    to_language_model: Any,
    from_language_model: Any = None,
    *,
    k: int = DEFAULT_K,
    wrong_script: str | None = None,
    max_wrong_script_share: float = DEFAULT_MAX_WRONG_SCRIPT_SHARE,
    min_edit_ratio: float = DEFAULT_MIN_EDIT_RATIO,
    token_budget: int = DEFAULT_TOKEN_BUDGET,
    progress: bool = False,
) -> tuple[Any, PivotBeamCandidates]:
    """The per-sentence recipe as a pipeline (see :mod:`augkit_backtranslation.parabank_steps`),
    and its generator, whose ``pivots`` the caller fills before each run. Without
    ``from_language_model`` (models that cannot score) there is no dual score and no ranking:
    run with ``n=1``, the first survivor is kept."""
    from augkit.plugin import Pipeline, TopKFilter

    generator = PivotBeamCandidates(to_language_model, k=k, token_budget=token_budget, show_progress=progress)
    steps: list[Any] = []
    if wrong_script is not None:
        steps.append(WrongScriptFilter(wrong_script, max_wrong_script_share))
    steps += [
        same_sentence_rule(against_candidates=False),  # copies of the sentence
        same_sentence_rule(against_source=False),  # repeats of an earlier candidate
        EditRatioFilter(min=min_edit_ratio),
    ]
    if from_language_model is not None:
        steps += [
            DualScore(to_language_model, from_language_model, generator.pivots, token_budget=token_budget, show_progress=progress),
            TopKFilter(weights={"dual_score": 1.0}),
        ]
    # oversample=k: the generator is asked for its k beams, of which n=1 is kept
    # its own fixed steps: the parabank builder protects nothing (it makes pairs, not augmentations)
    return Pipeline(generator, steps, dedup=False, protected=False, oversample=k), generator


def _runs_of_distinct_sentences(rows: list[int], sentences: Sequence[str]) -> list[list[int]]:
    """``rows`` split into runs in which no sentence occurs twice (a sentence's pivot is
    looked up by its text); one run unless the data repeats a sentence."""
    runs: list[list[int]] = []
    seen: list[set[str]] = []
    for row in rows:
        place = next((i for i, texts in enumerate(seen) if sentences[row] not in texts), len(runs))
        if place == len(runs):
            runs.append([])
            seen.append(set())
        runs[place].append(row)
        seen[place].add(sentences[row])
    return runs


def _pair(sentence: str, pivot: str, row: int, paraphrase: str, scores: dict[str, float], wrong_script: str | None) -> ParabankPair:
    return ParabankPair(
        source=sentence, paraphrase=paraphrase, translation=pivot,
        dual_score=scores.get("dual_score"), forward_logprob=scores.get("forward_logprob"),
        reverse_logprob=scores.get("reverse_logprob"), edit_ratio=scores["edit_ratio"],
        wrong_script_share=scores.get("wrong_script_share") if wrong_script is not None else None, row=row,
    )


class BergamotDirection:
    """One direction (``"en-pt"`` or ``"pt-en"``) of the bergamot engine in the shape of
    :meth:`augkit.models.Seq2SeqModel.generate`, for :func:`build_parabank`: one translation
    per text whatever the beam asked for, and no ``score`` (so no dual ranking).

    >>> engine = BergamotEngine()                                                 # doctest: +SKIP
    >>> build_parabank(texts, to_language_model=BergamotDirection("pt-en", engine),
    ...                from_language_model=BergamotDirection("en-pt", engine))    # doctest: +SKIP
    """

    def __init__(self, direction: str, engine: Any = None):
        from augkit_backtranslation.bergamot import DIRECTIONS, BergamotEngine

        if direction not in DIRECTIONS:
            raise InvalidParameterError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
        self.direction = direction
        self.engine = engine if engine is not None else BergamotEngine()
        self.name = f"bergamot {direction}"

    def generate(self, texts: Sequence[str], **options: Any) -> GenerationResult:
        """One translation per text (``[]`` for an empty text or translation); generation
        options (beams, budget, progress) do not apply and are ignored."""
        translated = self.engine.translate(list(texts), self.direction)
        return GenerationResult([[text] if text.strip() else [] for text in translated])

    def __repr__(self) -> str:
        return f"BergamotDirection({self.direction!r}, {self.engine!r})"


def _generate(model, texts, num_beams, num_return, token_budget, progress, description) -> list[list[str]]:
    if not texts:
        return []
    return model.generate(
        texts, num_beams=num_beams, num_return=num_return, token_budget=token_budget,
        progress=progress, description=description,
    ).texts


def _model(model: Any, device: str, dtype: str, runtime: Any = None) -> Any:
    if isinstance(model, (str, os.PathLike)):
        from augkit.plugin import Runtime, load_seq2seq

        return load_seq2seq(model, device=device, dtype=dtype, **(runtime or Runtime()).options())
    if not callable(getattr(model, "generate", None)):
        raise InvalidParameterError(f"a model must be an id, a directory or an object with generate(), got {model!r}")
    return model


def _can_score(model: Any) -> bool:
    return callable(getattr(model, "score", None))


def _texts(texts: Sequence[str], name: str) -> list[str]:
    if isinstance(texts, str):
        raise InputError(f"{name} must be a list of strings, got a single string; wrap it in a list")
    texts = list(texts)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputError(f"{name}[{index}] must be a string, got {type(text).__name__} {text!r}")
    return texts


def _check_parameters(k, wrong_script, max_wrong_script_share, min_edit_ratio, top_fraction, token_budget) -> None:
    for name, value in (("k", k), ("token_budget", token_budget)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}")
    if not _is_number(top_fraction) or not 0 < top_fraction <= 1:
        raise InvalidParameterError(f"top_fraction must be in (0, 1], got {top_fraction!r}")
    if not _is_number(max_wrong_script_share) or not 0 <= max_wrong_script_share <= 1:
        raise InvalidParameterError(f"max_wrong_script_share must be in [0, 1], got {max_wrong_script_share!r}")
    if not _is_number(min_edit_ratio) or min_edit_ratio < 0:
        raise InvalidParameterError(f"min_edit_ratio must be a number >= 0, got {min_edit_ratio!r}")
    if wrong_script is not None and (not isinstance(wrong_script, str) or wrong_script.lower() not in {s.lower() for s in SCRIPTS}):
        raise InvalidParameterError(f"unknown script {wrong_script!r}; known scripts: {', '.join(SCRIPTS)}")


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and not math.isnan(value)

