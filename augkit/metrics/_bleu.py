"""BLEU against references, self-BLEU within a set of texts, and iBLEU, computed with
sacrebleu so the numbers match what the MT and paraphrase literature reports.

All three are on sacrebleu's 0-100 scale. sacrebleu is imported on first use (extra
``augkit[metrics]``).
"""

from __future__ import annotations

from collections.abc import Sequence

from augkit.errors import InvalidParameterError
from augkit.metrics._inputs import References, non_empty_text_list, reference_lists
from augkit.metrics._optional import METRICS_EXTRA, import_optional
from augkit.steps.params import check_texts

#: iBLEU's default weight: 0.8, the value behind the iBLEU numbers of ParaMac (Liu et al.,
#: 2022, "the same weight parameter as Meng et al. (2021)"; its released evaluation code
#: computes ``0.8*BLEU(ref) - 0.2*BLEU(src)``) and of ERAP (Sancheti et al., 2022: its
#: copy-the-input row, BLEU 51.42 and iBLEU 21.14 with BLEU to the input 100, solves to
#: alpha = 0.800). See docs/metrics.md.
IBLEU_ALPHA = 0.8


def bleu(hypotheses: Sequence[str], references: References) -> float:
    """Corpus BLEU of ``hypotheses`` against their references, on a 0-100 scale.

    BLEU = BP * exp(sum_{n=1..4} (1/4) * log p_n), where p_n is the modified n-gram
    precision pooled over the corpus (each hypothesis n-gram counted at most as often as it
    appears in any one of its references) and BP = min(1, exp(1 - r/c)) the brevity penalty
    (c: total hypothesis length, r: total length of the reference closest in length to each
    hypothesis). Papineni et al., 2002, "BLEU: a method for automatic evaluation of machine
    translation"; computed by sacrebleu (Post, 2018) with its defaults: 13a tokenizer, case
    sensitive, ``exp`` smoothing, n-grams up to 4. The value is sacrebleu's ``score``: 0-100,
    not 0-1.

    ``references`` gives, per hypothesis, one ``str`` or a list of ``str``; the counts may
    differ between hypotheses (sacrebleu gets reference streams padded with None, which it
    skips, so a hypothesis is never scored against an empty reference).

    Caveat: with texts shorter than four tokens throughout, no 4-gram matches and corpus BLEU
    is 0 whatever the overlap.

    >>> bleu(["the cat sat on the mat"], ["the cat sat on the mat"])  # doctest: +SKIP
    100.0
    """
    hyps = non_empty_text_list(hypotheses, "hypotheses")
    return _corpus_bleu(hyps, reference_lists(references, len(hyps)))


def sentence_bleu(hypotheses: Sequence[str], references: References, *, brevity_penalty: bool = True) -> list[float]:
    """Sentence BLEU of each hypothesis against its own references, on a 0-100 scale: one
    number per hypothesis, not pooled.

    Each value is sacrebleu's sentence-level BLEU (Post, 2018) with effective n-gram order
    (n-grams longer than the shorter text are left out instead of zeroing the score), ``exp``
    smoothing, 13a tokenizer, case sensitive: the same per-sentence BLEU as
    :func:`self_bleu`. ``references`` gives, per hypothesis, one ``str`` or a list of
    ``str``. Used by the ``bleu_to_source`` scorer (a candidate against its source: high
    means close to a copy).

    ``brevity_penalty=False`` leaves out BP, the "modified BLEU without length penalty" of
    ParaBank (Hu et al., 2019) that ERAP's diversity reward uses (1 - BLEU(candidate, source)),
    so that a short candidate does not look diverse merely for being short.

    >>> sentence_bleu(["the cat sat on the mat"], ["the cat sat on the mat"])  # doctest: +SKIP
    [100.0]
    """
    hyps = check_texts("hypotheses", hypotheses)
    refs = reference_lists(references, len(hyps))
    metric = _sacrebleu().metrics.BLEU(effective_order=True)
    scores = [metric.sentence_score(hyp, ref) for hyp, ref in zip(hyps, refs)]
    if brevity_penalty:
        return [float(score.score) for score in scores]
    return [float(score.score / score.bp) if score.bp > 0 else 0.0 for score in scores]


def self_bleu(texts: Sequence[str]) -> float:
    """Self-BLEU of a set of texts: each text scored against all the others as its
    references, averaged; 0-100, higher means the texts repeat each other (less diverse).

    self-BLEU = (1/N) * sum_i BLEU_sentence(t_i, {t_j : j != i}), the definition of Zhu et
    al., 2018, "Texygen: A Benchmarking Platform for Text Generation Models". Each term is
    sacrebleu's sentence BLEU (effective n-gram order, ``exp`` smoothing, n-grams up to 4);
    Texygen itself used NLTK's sentence BLEU with its own smoothing and reports several
    n-gram orders, so compare trends with its numbers, not digits.

    Needs at least two texts (a single text has nothing to be compared with): fewer raise
    :class:`~augkit.errors.InvalidParameterError`. Cost grows with N squared: meant for small
    sets such as the augmentations of one source.
    """
    items = check_texts("texts", texts)
    if len(items) < 2:
        raise InvalidParameterError(f"self-BLEU needs at least 2 texts (each is scored against the others), got {len(items)}")
    metric = _sacrebleu().metrics.BLEU(effective_order=True)
    scores = [metric.sentence_score(text, items[:i] + items[i + 1 :]).score for i, text in enumerate(items)]
    return sum(scores) / len(scores)


def ibleu(
    hypotheses: Sequence[str],
    references: References,
    sources: References,
    alpha: float = IBLEU_ALPHA,
) -> float:
    """iBLEU: BLEU to the references, penalised by BLEU to the inputs (copying), 0-100 scale.

    iBLEU = alpha * BLEU(hypotheses, references) - (1 - alpha) * BLEU(hypotheses, sources),
    Sun and Zhou, 2012, "Joint Learning of a Dual SMT System for Paraphrase Generation". Both
    BLEUs are :func:`bleu` (corpus level, sacrebleu). Can be negative.

    Default ``alpha`` = 0.8 (:data:`IBLEU_ALPHA`): the weight of ParaMac (Liu et al., 2022),
    which adopts "the same weight parameter as Meng et al. (2021)" (ConRPG) and whose released
    evaluation code uses 0.8, and of ERAP (Sancheti et al., 2022), whose reported numbers
    solve to 0.8. Other papers use 0.9 (UPSA, Liu et al., 2020, as we recall; not
    re-checked here): state alpha beside any iBLEU you report.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 <= alpha <= 1.0:
        raise InvalidParameterError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    hyps = non_empty_text_list(hypotheses, "hypotheses")
    to_references = _corpus_bleu(hyps, reference_lists(references, len(hyps)))
    to_sources = _corpus_bleu(hyps, reference_lists(sources, len(hyps), "sources"))
    return alpha * to_references - (1.0 - alpha) * to_sources


def _corpus_bleu(hypotheses: list[str], references: list[list[str]]) -> float:
    """sacrebleu wants reference *streams* (stream k holds every hypothesis' k-th reference),
    so ragged reference lists are padded with None, which sacrebleu drops per segment."""
    width = max(len(refs) for refs in references)
    streams = [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
    return float(_sacrebleu().metrics.BLEU().corpus_score(hypotheses, streams).score)


def _sacrebleu():
    return import_optional("sacrebleu", "BLEU", METRICS_EXTRA)
