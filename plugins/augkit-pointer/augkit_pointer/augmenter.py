"""The ``pointer`` method: a sentence's keywords, augmented, grown into new sentences by a
POINTER insertion model (Chevasson et al. 2023, section 3)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import augkit
from augkit.plugin import (
    BatchContext,
    Candidate,
    GeneratedRow,
    InvalidParameterError,
    ModelNeed,
    RowProtection,
    check_bool,
    draw_seed,
    renamed_module_names,
    repetition_loop,
)
from augkit_pointer.insertion import (
    MAX_STAGES,
    REPETITION_PENALTY,
    SAMPLING_TEMPERATURE,
    SAMPLING_TOP_K,
    SAMPLING_TOP_P,
    SYMBOL_PENALTY,
    InsertionGenerator,
    InsertionSettings,
)
from augkit_pointer.keyword_augmentation import checked_synonym_source

#: The insertion model by default. The public POINTER checkpoints (Zhang et al. 2020) are
#: links to blob storage in dreasysnail/POINTER's README, not hub models (the author's request
#: for a hub architecture, huggingface/transformers#8454, is open), so none loads by id:
#: ``bert-base-uncased`` is the base a user fine-tunes with ``augkit train pointer`` (it has no
#: ``[NOI]`` token until then, and the method says so).
DEFAULT_INSERTION_MODEL = "bert-base-uncased"
#: How to get an insertion model, said when it is missing.
TRAIN_INSERTION_MODEL = ("train one with `augkit train pointer CORPUS -o FOLDER` (e.g. your dataset's own texts, one per "
                         "line) and pass -p insertion_model=FOLDER")
#: The offline sentence encoder that ranks synonyms when no masked LM is given.
DEFAULT_SYNONYM_ENCODER = "sentence-transformers/all-MiniLM-L6-v2"
#: Section 4.2: "we chose to extract k=3 keywords per sentence"; p_syn = 0.75 was best on
#: every dataset; p_shuf = 0.25 on Liu and Clinic150 (0.0 on BANKING77 and HWU64).
PAPER_KEYWORDS = 3
PAPER_P_SYN = 0.75
PAPER_P_SHUF = 0.25
#: Why a row got no sentence, in the words of the run's summary.
NO_KEYWORDS = "pointer: the text has no words to keep as keywords"
REPETITION_REASON = ("pointer: every sentence grown fell into a repetition loop (a phrase said over and over); "
                     "refuse_loops=false keeps such candidates")


class POINTER(augkit.Augmenter):
    """Insertion-based paraphrasing around keywords (Chevasson et al. 2023, on POINTER).

    Per sentence: ``keywords`` words scored by YAKE (segtok's words, stop words and
    duplicates out, chosen at random among the best by the row's generator; a final ``?``,
    ``!`` or ``.`` kept; the longest words for short sentences). Then ``n`` keyword lists:
    each keyword swapped with another with probability ``p_shuf`` and replaced with probability
    ``p_syn`` by a synonym that fits the sentence (by default one EDA's safe rule
    accepts: the sentence's sense, same part of speech and form, a common word). Each list
    is grown into a sentence by the insertion model, stage by stage, every keyword kept whole
    and in order. Outputs are usually longer than the source (the paper's Table 2).

    Each protected span of the row (``protect=``, ``protect_column=``, the codes protected by
    default) is a keyword, whatever ``keywords``: never replaced by a synonym, written as it
    is, and kept in its order relative to the other protected spans. A sentence caught in a
    repetition loop is refused (``refuse_loops``); a row left without one says why.

    Parameters
    ----------
    insertion_model : str
        POINTER model (a BERT masked LM with a ``[NOI]`` token): a folder written by
        ``augkit train pointer``, a hub id or a name under ``$AUGKIT_MODEL_DIR``. Default
        ``bert-base-uncased``, which must be fine-tuned first (the error says how).
    keywords : int
        Keywords per sentence (k). Default 3 (section 4.2).
    p_syn : float
        Probability that a keyword with a synonym is replaced by one. Default 0.75 (section
        4.2); with the safe synonyms about one keyword in ten has one.
    p_shuf : float
        Probability that a keyword is swapped with another. Default 0.25 (section 4.2: best on
        Liu and Clinic150; 0.0 was best on BANKING77 and HWU64).
    synonyms : str
        Where synonyms come from: ``safe`` (default), those EDA's safe rule accepts for
        the keyword in its sentence (``EDA.synonyms_of``; no model); ``wordnet-ranked``, every
        WordNet lemma name of its part of speech ranked in context by ``synonym_masked_lm`` or
        ``synonym_encoder``, which lets wrong senses through ("weather" -> "atmospheric
        condition", "restaurant" -> "eating house").
    synonym_masked_lm : str, optional
        With ``synonyms=wordnet-ranked``: a masked LM ranking synonyms by their probability in
        the sentence; None (default): rank them by sentence-embedding similarity with
        ``synonym_encoder``.
    synonym_encoder : str
        With ``synonyms=wordnet-ranked``: the sentence encoder ranking synonyms when no masked
        LM is given. Default the offline all-MiniLM-L6-v2.
    max_stages : int
        Most insertion stages. Default 6 (POINTER's ``MAX_TURN``).
    do_sample : bool
        Sample each insertion (top-k / top-p at ``temperature``) from the row's generator
        instead of taking the likeliest. Default False (greedy, POINTER's default).
    temperature : float, optional
        Sampling temperature; None: POINTER's 0.8 when ``do_sample``, else 1.
    top_k : int, optional
        Sample among the k likeliest tokens; None: POINTER's 10 when ``do_sample``, else all.
    top_p : float, optional
        Nucleus sampling mass; None: POINTER's 0.9 when ``do_sample``, else 1.
    noi_decay : int
        Stages over which the no-insertion logit ramps up from 0 (POINTER's ``noi_decay``, 1).
    noi_bias : float
        Added to the no-insertion logit: positive values give shorter sentences. Default 0.
    stopword_decay : int
        Stages over which stop words' logits ramp up from 0 (POINTER's ``reduce_decay``, 1).
    repetition_penalty : float
        Tokens already in the sentence made less likely (POINTER's ``lessrepeat``, 1/0.8; 1: off).
    symbol_penalty : float
        Quotes, hyphens and ampersands made less likely (POINTER's ``PREVENT_FACTOR``, 1/0.3).
    refuse_loops : bool
        Refuse a sentence caught in a repetition loop its source is not in ("book add book
        track book springtime book"; :func:`augkit.plugin.repetition_loop`). Default true.
    device : str
        ``auto`` (default: CUDA when torch sees a GPU, else the CPU), ``cpu``, ``cuda`` or ``cuda:N``, for every model.
    """

    name = "pointer"
    uses_model = True
    protects = True  # protected spans are keywords, written as they are

    def __init__(
        self,
        insertion_model: str = DEFAULT_INSERTION_MODEL,
        keywords: int = PAPER_KEYWORDS,
        p_syn: float = PAPER_P_SYN,
        p_shuf: float = PAPER_P_SHUF,
        synonyms: str = "safe",
        synonym_masked_lm: str | None = None,
        synonym_encoder: str = DEFAULT_SYNONYM_ENCODER,
        max_stages: int = MAX_STAGES,
        do_sample: bool = False,
        temperature: float | None = None,
        top_k: int | None = None,
        top_p: float | None = None,
        noi_decay: int = 1,
        noi_bias: float = 0.0,
        stopword_decay: int = 1,
        repetition_penalty: float = REPETITION_PENALTY,
        symbol_penalty: float = SYMBOL_PENALTY,
        refuse_loops: bool = True,
        device: str = "auto",
    ):
        for label, value in (("insertion_model", insertion_model), ("synonym_encoder", synonym_encoder), ("device", device)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidParameterError(f"pointer: {label} must be a model id or folder (non-empty str), got {value!r}")
        if synonym_masked_lm is not None and (not isinstance(synonym_masked_lm, str) or not synonym_masked_lm.strip()):
            raise InvalidParameterError(f"pointer: synonym_masked_lm must be a model id or folder, or None; got {synonym_masked_lm!r}")
        if isinstance(keywords, bool) or not isinstance(keywords, int) or keywords < 1:
            raise InvalidParameterError(f"pointer: keywords must be an integer >= 1, got {keywords!r}")
        for label, value in (("p_syn", p_syn), ("p_shuf", p_shuf)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise InvalidParameterError(f"pointer: {label} must be a probability in [0, 1], got {value!r}")
        self.insertion_model = insertion_model
        self.keywords = keywords
        self.p_syn = float(p_syn)
        self.p_shuf = float(p_shuf)
        self.synonyms = checked_synonym_source(synonyms)
        self.synonym_masked_lm = synonym_masked_lm
        self.synonym_encoder = synonym_encoder
        self.max_stages = max_stages
        self.do_sample = do_sample
        self.temperature = temperature
        self.top_k = top_k
        self.top_p = top_p
        self.noi_decay = noi_decay
        self.noi_bias = noi_bias
        self.stopword_decay = stopword_decay
        self.repetition_penalty = repetition_penalty
        self.symbol_penalty = symbol_penalty
        self.refuse_loops = check_bool("refuse_loops", refuse_loops)
        self.device = device
        sampling = do_sample is True
        self.settings = InsertionSettings(
            max_stages=max_stages, do_sample=do_sample,
            temperature=temperature if temperature is not None else (SAMPLING_TEMPERATURE if sampling else 1.0),
            top_k=top_k if top_k is not None else (SAMPLING_TOP_K if sampling else 0),
            top_p=top_p if top_p is not None else (SAMPLING_TOP_P if sampling else 1.0),
            noi_decay=noi_decay, noi_bias=noi_bias, stopword_decay=stopword_decay,
            repetition_penalty=repetition_penalty, symbol_penalty=symbol_penalty,
        )
        self.settings.check()
        from augkit.plugin import warn_if_trained_with_warnings

        warn_if_trained_with_warnings(insertion_model, method=self.name)  # an under-trained folder of `augkit train pointer`

    def required_models(self) -> list[ModelNeed]:
        """The insertion model, and the synonym ranker's model when synonyms are drawn."""
        needs = [ModelNeed(self.insertion_model, "masked", "insertion_model", "POINTER insertion", f"or {TRAIN_INSERTION_MODEL}")]
        if self.p_syn and self.synonym_masked_lm is not None:
            needs.append(ModelNeed(self.synonym_masked_lm, "masked", "synonym_masked_lm", "ranking synonyms"))
        elif self.p_syn:
            needs.append(ModelNeed(self.synonym_encoder, "sentence-transformers", "synonym_encoder", "ranking synonyms"))
        return needs

    def generator(self) -> InsertionGenerator:
        """The insertion decoder on the shared insertion model (loaded on first use)."""
        from augkit.plugin import ModelNotAvailableError, load_masked_lm

        try:
            model = load_masked_lm(self.insertion_model, device=self.device)
        except ModelNotAvailableError as error:
            error.add_note(f"pointer needs an insertion model (a BERT masked LM with [NOI]): {TRAIN_INSERTION_MODEL}")
            raise
        return InsertionGenerator(model, self.settings)

    def keyword_lists(self, texts: list[str], n: int, rngs: list[random.Random],
                      protected: Sequence[RowProtection] | None = None) -> list[list[list[str]]]:
        """Per row, ``n`` augmented keyword lists (each a list of keywords in generation order);
        ``protected[i]``: row i's protected spans, each one of its keywords."""
        from augkit_pointer.keyword_augmentation import KeywordAugmenter
        from augkit_pointer.keywords import extract_keywords

        spans = protected if protected is not None else [()] * len(texts)
        keywords = [extract_keywords(text, rng, k=self.keywords, protected=[(span.start, span.end) for span in row_spans])
                    for text, rng, row_spans in zip(texts, rngs, spans, strict=True)]
        ranker = self._synonym_ranker() if self.synonyms == "wordnet-ranked" else None
        return KeywordAugmenter(ranker, p_syn=self.p_syn, p_shuf=self.p_shuf, synonyms=self.synonyms).augment(texts, keywords, n, rngs)

    def augment_batch(self, texts: list[str], n: int, rngs: list[random.Random], context: BatchContext) -> list[list[Candidate]]:
        """Keyword lists of every row (its protected spans among its keywords), grown into
        sentences in one batched pass; a row left with none says why."""
        lists = self.keyword_lists(texts, n, rngs, context.protected if context is not None else None)
        flat = [(row, keywords) for row, row_lists in enumerate(lists) for keywords in row_lists if keywords]
        seeds = [draw_seed(rngs[row]) for row, _ in flat] if self.do_sample else None
        if not flat:
            return [GeneratedRow([], reason=NO_KEYWORDS) for _ in texts]
        insertions = self.generator().generate([keywords for _, keywords in flat], seeds)
        rows: list[dict[str, None]] = [{} for _ in texts]
        looped = [False] * len(texts)
        for (row, _), insertion in zip(flat, insertions, strict=True):
            if self.refuse_loops and repetition_loop(texts[row], insertion.text):
                looped[row] = True
            elif insertion.text:
                rows[row].setdefault(insertion.text)
        return [[Candidate(text, self.name) for text in found]
                or GeneratedRow([], reason=REPETITION_REASON if looped[row] else NO_KEYWORDS)
                for row, found in enumerate(rows)]

    def _synonym_ranker(self) -> Any:
        from augkit_pointer.keyword_augmentation import EmbeddingRanker, MaskedLMRanker

        if self.synonym_masked_lm is not None:
            return MaskedLMRanker(self.synonym_masked_lm, device=self.device)
        return EmbeddingRanker(self.synonym_encoder, device=self.device)

#: Old class names, importable until augkit 0.3 (docs/plugin-authors.md, "One name per idea").
__getattr__ = renamed_module_names(__name__, {"Pointer": "POINTER"}, globals())
