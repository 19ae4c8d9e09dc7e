"""POINTER's progressive insertion (Zhang et al. 2020), batched across rows.

A row starts as its keyword sequence ``[CLS] k1 ... kn [SEP]``. At every stage the insertion
model (a BERT masked LM whose vocabulary holds ``[NOI]``, "no insertion") predicts, for each
gap (after ``[CLS]`` and after every token), one token to insert there or ``[NOI]``; all
insertions of the stage are applied at once, so a sentence can double in length per stage.
A row is done when every gap says ``[NOI]`` or after ``max_stages`` stages.

Keywords are hard constraints: no token is ever removed, gaps inside a keyword (between the
word pieces of a word, or the words of a multi-word keyword) are closed, and no word-piece
continuation (``##s``) may be glued onto a keyword's end. So every output holds the keywords,
whole and in order.

Rows are grouped by padded length at every stage and small passes are topped up with copies
(the runtime's batching rules), so a row's tokens do not depend on its batch-mates; sampling
draws from the row's own generator, seeded from the row's seed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from augkit.plugin import MODEL_SEED_BITS, InvalidParameterError, low_bits
from augkit_pointer.stages import NOI_TOKEN

#: A last keyword among these ends the sentence: nothing is inserted after it (the seed
#: paper keeps "![end]", "?[end]" and ".[end]" as keywords, section 3.2 and footnote 7).
FINAL_PUNCTUATION = ("?", "!", ".")
#: POINTER's stage limit (``MAX_TURN`` in its util.py): 6 doublings grow 3 keywords to ~190 tokens.
MAX_STAGES = 6
#: Never inserted (POINTER's ``zero_list``): brackets, which its Wikipedia data overuses.
BANNED_SYMBOLS = ("[", "]", "(", ")")
#: Made less likely (POINTER's ``PREVENT_LIST``, logits x ``PREVENT_FACTOR`` 0.3).
DISCOURAGED_SYMBOLS = ('"', "-", "'", "&")
#: POINTER's ``PREVENT_FACTOR``, applied sign-aware (see :func:`_penalise`).
SYMBOL_PENALTY = 1 / 0.3
#: POINTER's ``lessrepeat`` factor (logits of tokens already in the sequence x 0.8), sign-aware.
REPETITION_PENALTY = 1 / 0.8
#: POINTER's sampling settings (``sample_generate`` as its ``main`` calls it).
SAMPLING_TEMPERATURE = 0.8
SAMPLING_TOP_K = 10
SAMPLING_TOP_P = 0.9
#: Punctuation POINTER ramps in with its stop words (``REDUCE_LIST``).
REDUCED_PUNCTUATION = ("'", "s", ".", ",")


@dataclass(frozen=True)
class InsertionSettings:
    """How insertion decodes; defaults are POINTER's ``inference.py`` (greedy).

    ``noi_decay`` and ``stopword_decay``: over how many stages the ``[NOI]`` logit and the
    stop words' logits ramp up from 0 (POINTER multiplies them by ``min(stage / decay, 1)``,
    so the first stage always inserts content words; 0 turns the ramp off). ``noi_bias`` is
    added to the ``[NOI]`` logit at every stage: positive values give shorter sentences (the
    seed paper's remedy for POINTER's long outputs, section 5). ``repetition_penalty`` and
    ``symbol_penalty`` make tokens already in the row and POINTER's discouraged symbols less
    likely (1.0: off). ``do_sample`` draws each insertion from the top-k / top-p distribution
    at ``temperature`` (POINTER's sampling: 10, 0.9, 0.8) with the row's generator.
    """

    max_stages: int = MAX_STAGES
    do_sample: bool = False
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    noi_decay: int = 1
    noi_bias: float = 0.0
    stopword_decay: int = 1
    repetition_penalty: float = REPETITION_PENALTY
    symbol_penalty: float = SYMBOL_PENALTY
    max_tokens: int | None = None

    def check(self, owner: str = "pointer") -> None:
        """Refuse values decoding would misuse, naming the parameter."""
        for name, low in (("max_stages", 1), ("noi_decay", 0), ("stopword_decay", 0), ("top_k", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidParameterError(f"{owner}: {name} must be an integer >= {low}, got {value!r}")
        if self.max_tokens is not None and (isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 4):
            raise InvalidParameterError(f"{owner}: max_tokens must be an integer >= 4 or None, got {self.max_tokens!r}")
        if not isinstance(self.do_sample, bool):
            raise InvalidParameterError(f"{owner}: do_sample must be True or False, got {self.do_sample!r}")
        for name, low, high in (("temperature", 0.0, math.inf), ("top_p", 0.0, 1.0),
                                ("repetition_penalty", 1.0, math.inf), ("symbol_penalty", 1.0, math.inf)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not low <= value <= high or (name in ("temperature", "top_p") and value == 0):
                bound = f"in (0, {high:g}]" if name in ("temperature", "top_p") else f">= {low:g}"
                raise InvalidParameterError(f"{owner}: {name} must be a number {bound}, got {value!r}")
        if isinstance(self.noi_bias, bool) or not isinstance(self.noi_bias, (int, float)) or not math.isfinite(self.noi_bias):
            raise InvalidParameterError(f"{owner}: noi_bias must be a finite number, got {self.noi_bias!r}")


@dataclass(frozen=True)
class Insertion:
    """One generated sentence: its ``text``, the ``stages`` run, and ``finished`` (every gap
    said ``[NOI]``; False when the stage or length limit stopped it)."""

    text: str
    stages: int
    finished: bool


@dataclass
class _Row:
    """A row being grown: token ids without ``[CLS]``/``[SEP]``; ``closed[p]``: no insertion
    in the gap after token p-1 (gap 0 follows ``[CLS]``); ``glued[p]``: the gap follows a
    keyword's end, where a word-piece continuation may not go; ``origin[p]``: the index in
    ``keywords`` of the keyword token p belongs to, -1 for an inserted token."""

    ids: list[int]
    closed: list[bool]
    glued: list[bool]
    keywords: list[str]
    origin: list[int]
    generator: Any = None
    ends_sentence: bool = False
    stages: int = 0
    finished: bool = False
    done: bool = False


class InsertionGenerator:
    """Grows keyword sequences into sentences with a loaded insertion model.

    ``masked_lm`` is the runtime's :class:`~augkit.models.MaskedLM` (from
    :func:`augkit.plugin.load_masked_lm`) of a POINTER model: its vocabulary must hold
    ``[NOI]``.

    >>> generator = InsertionGenerator(load_masked_lm("my-pointer"))          # doctest: +SKIP
    >>> generator.generate([["refund", "card", "?"]])[0].text                 # doctest: +SKIP
    'how long does a refund take to reach my card?'
    """

    def __init__(self, masked_lm: Any, settings: InsertionSettings | None = None, *, top_up_small_passes: bool = True):
        self.lm = masked_lm
        # Small passes topped up with copies keep a row's result bitwise the same in any
        # batch (the runtime's MIN_TOKENS_PER_PASS rule); False only to time the plain
        # one-row pass (benchmarks/pointer_throughput.py), whose outputs it checks.
        self.top_up_small_passes = top_up_small_passes
        self.settings = settings or InsertionSettings()
        self.settings.check()
        vocabulary = _vocabulary_ids(masked_lm)
        self.noi_id = vocabulary.noi
        self.vocab_size = vocabulary.size
        self._banned = vocabulary.banned
        self._discouraged = vocabulary.discouraged
        self._end_marks = vocabulary.end_marks
        self._continuations = vocabulary.continuations
        self._stop_ids = vocabulary.stop_words
        self._limit = min(masked_lm.max_input_tokens, self.settings.max_tokens or masked_lm.max_input_tokens)

    def generate(
        self,
        keyword_lists: Sequence[Sequence[str]],
        seeds: Sequence[int] | None = None,
        *,
        progress: bool = False,
    ) -> list[Insertion]:
        """One sentence per keyword list, built around its keywords (each a word or a
        multi-word phrase, kept whole and in order). ``seeds`` (one per list) drive sampling
        and are required with ``do_sample``."""
        if isinstance(keyword_lists, str):
            raise InvalidParameterError("generate takes a list of keyword lists, not one string")
        if self.settings.do_sample and (seeds is None or len(seeds) != len(keyword_lists)):
            raise InvalidParameterError("sampling needs one seed per keyword list")
        rows = [self._start(keywords, None if seeds is None else seeds[i], i) for i, keywords in enumerate(keyword_lists)]
        from augkit.plugin import progress_bar

        with progress_bar(self.settings.max_stages, shown=progress, description="insertion stages", unit="stage") as bar:
            for stage in range(self.settings.max_stages):
                active = [row for row in rows if not row.done]
                if not active:
                    break
                self._stage(active, stage)
                bar.update(1)
            for row in rows:
                row.done = True
        return [Insertion(self._text(row), row.stages, row.finished) for row in rows]

    # -- one row ------------------------------------------------------------------------

    def _start(self, keywords: Sequence[str], seed: int | None, index: int) -> _Row:
        if isinstance(keywords, str) or not all(isinstance(k, str) and k.strip() for k in keywords):
            raise InvalidParameterError(f"keyword list {index} must be a list of non-empty strings, got {keywords!r}")
        ids: list[int] = []
        origin: list[int] = []
        closed = [False]
        glued = [True]  # nothing glues onto [CLS]: a sentence never starts with "##s"
        for number, keyword in enumerate(keywords):
            pieces = self.lm.tokenizer(keyword, add_special_tokens=False)["input_ids"]
            if not pieces:
                raise InvalidParameterError(f"keyword {keyword!r} of list {index} has no tokens in {self.lm.name!r}'s vocabulary")
            ids += pieces
            origin += [number] * len(pieces)
            closed += [True] * (len(pieces) - 1) + [False]
            glued += [False] * (len(pieces) - 1) + [True]
        ends_sentence = keywords[-1].strip() in FINAL_PUNCTUATION
        if ends_sentence:
            closed[-1] = True  # the sentence ends there (the seed paper's "?[end]", footnote 7)
        if len(ids) + 2 > self._limit:
            raise InvalidParameterError(f"keyword list {index} has {len(ids)} tokens: more than the model reads ({self._limit - 2})")
        generator = None
        if self.settings.do_sample:
            import torch

            generator = torch.Generator().manual_seed(low_bits(int(seed), MODEL_SEED_BITS))
        return _Row(ids, closed, glued, [k.strip() for k in keywords], origin, generator, ends_sentence)

    def _text(self, row: _Row) -> str:
        """The sentence: inserted runs decoded (word pieces joined, spaces before
        punctuation cleaned up), keywords written exactly as given (an uncased model's
        tokens would lower-case them and space out "top-up")."""
        tokenizer = self.lm.tokenizer
        parts: list[str] = []
        position = 0
        while position < len(row.ids):
            keyword = row.origin[position]
            end = position
            while end < len(row.ids) and row.origin[end] == keyword:
                end += 1
            if keyword >= 0:  # a keyword's tokens are contiguous: its gaps are closed
                parts.append(row.keywords[keyword])
            else:
                tokens = tokenizer.convert_ids_to_tokens(row.ids[position:end])
                parts.append(tokenizer.clean_up_tokenization(tokenizer.convert_tokens_to_string(tokens)).strip())
            position = end
        return _joined(parts)

    # -- one stage over many rows -------------------------------------------------------

    def _stage(self, rows: list[_Row], stage: int) -> None:
        from augkit.plugin import filler_rows, padded_length, token_budget_batches

        lengths = [len(row.ids) + 2 for row in rows]
        for batch in token_budget_batches(lengths):
            members = [rows[i] for i in batch]
            width = max(lengths[i] for i in batch)
            fillers = filler_rows(len(members), padded_length(width)) if self.top_up_small_passes else 0
            chosen = self._predict(members + [members[0]] * fillers, stage, real=len(members))
            for row, insertions in zip(members, chosen, strict=True):
                self._apply(row, insertions)

    def _predict(self, members: list[_Row], stage: int, real: int) -> list[list[int]]:
        """The token (or ``[NOI]``) chosen for every gap of the first ``real`` rows."""
        import torch

        from augkit.plugin import pad_rows

        tokenizer = self.lm.tokenizer
        sequences = [[tokenizer.cls_token_id, *row.ids, tokenizer.sep_token_id] for row in members]
        input_ids, attention_mask = pad_rows(sequences, tokenizer.pad_token_id or 0, self.lm.device)
        gap_rows = torch.tensor([r for r in range(real) for _ in range(len(members[r].ids) + 1)], device=self.lm.device)
        gap_columns = torch.tensor([p for r in range(real) for p in range(len(members[r].ids) + 1)], device=self.lm.device)
        with torch.inference_mode():
            logits = self.lm.logits_at(input_ids, attention_mask, gap_rows, gap_columns).float()
            logits = self._processed(logits, members[:real], stage)
            choices = self._choose(logits, members[:real])
        choices = choices.cpu().tolist()
        out, start = [], 0
        for row in members[:real]:
            out.append(choices[start : start + len(row.ids) + 1])
            start += len(row.ids) + 1
        return out

    def _processed(self, logits: Any, rows: list[_Row], stage: int) -> Any:
        """POINTER's logit adjustments, then the hard rules (closed gaps say ``[NOI]``; no
        continuation after a keyword; banned tokens never)."""
        import torch

        settings = self.settings
        logits = logits[:, : self.vocab_size]
        if settings.noi_decay:
            logits[:, self.noi_id] *= min(stage / settings.noi_decay, 1.0)
        logits[:, self.noi_id] += settings.noi_bias
        if settings.stopword_decay and self._stop_ids:
            logits[:, self._stop_ids] *= min(stage / settings.stopword_decay, 1.0)
        if settings.repetition_penalty != 1.0:
            present = torch.zeros((len(rows), logits.shape[1]), dtype=torch.bool, device=logits.device)
            for r, row in enumerate(rows):
                present[r, row.ids] = True
            present[:, self.noi_id] = False
            gap_row = torch.tensor([r for r, row in enumerate(rows) for _ in range(len(row.ids) + 1)], device=logits.device)
            logits = torch.where(present[gap_row], _penalise(logits, settings.repetition_penalty), logits)
        if settings.symbol_penalty != 1.0 and self._discouraged:
            logits[:, self._discouraged] = _penalise(logits[:, self._discouraged], settings.symbol_penalty)
        logits[:, self._banned] = -math.inf
        glued = torch.tensor([g for row in rows for g in row.glued], dtype=torch.bool, device=logits.device)
        if self._continuations and bool(glued.any()):
            rows_glued = glued.nonzero().squeeze(1)
            block = logits[rows_glued]
            block[:, self._continuations] = -math.inf
            logits[rows_glued] = block
        # no second end mark before a final "?", "!" or "." ("card??")
        before_end, start = [], 0
        for row in rows:
            if row.ends_sentence:
                before_end.append(start + len(row.ids) - 1)
            start += len(row.ids) + 1
        if before_end and self._end_marks:
            block = logits[before_end]
            block[:, self._end_marks] = -math.inf
            logits[before_end] = block
        closed = torch.tensor([c for row in rows for c in row.closed], dtype=torch.bool, device=logits.device)
        if bool(closed.any()):
            logits[closed] = -math.inf
            logits[closed, self.noi_id] = 0.0
        return logits

    def _choose(self, logits: Any, rows: list[_Row]) -> Any:
        import torch

        settings = self.settings
        if not settings.do_sample:
            return logits.argmax(dim=-1)
        logits = _top_k_top_p(logits / settings.temperature, settings.top_k, settings.top_p)
        probabilities = torch.softmax(logits, dim=-1)
        choices, start = [], 0
        for row in rows:
            gaps = len(row.ids) + 1
            choices.append(torch.multinomial(probabilities[start : start + gaps], 1, generator=row.generator).squeeze(1))
            start += gaps
        return torch.cat(choices)

    def _apply(self, row: _Row, insertions: list[int]) -> None:
        """Insert every non-``[NOI]`` prediction at its gap. A row is finished when every
        gap says ``[NOI]``; a stage that would exceed the model's length limit is not
        applied and ends the row unfinished."""
        inserted = sum(token != self.noi_id for token in insertions)
        if not inserted:
            row.stages += 1
            row.finished = row.done = True
            return
        if len(row.ids) + inserted + 2 > self._limit:
            row.done = True
            return
        row.stages += 1
        ids, origin, closed, glued = [], [], [row.closed[0]], [row.glued[0]]
        if insertions[0] != self.noi_id:
            ids.append(insertions[0])
            origin.append(-1)
            closed.append(False)
            glued.append(False)
        for position, token in enumerate(row.ids):
            # the token keeps the gap after it (closed inside a keyword, glued after one);
            # a token inserted there gets a free gap of its own
            ids.append(token)
            origin.append(row.origin[position])
            closed.append(row.closed[position + 1])
            glued.append(row.glued[position + 1])
            chosen = insertions[position + 1]
            if chosen != self.noi_id:
                ids.append(chosen)
                origin.append(-1)
                closed.append(False)
                glued.append(False)
        row.ids, row.origin, row.closed, row.glued = ids, origin, closed, glued
        row.done = row.stages >= self.settings.max_stages


#: Keywords written without a space before them (the tokenizer's clean-up rule for these).
_NO_SPACE_BEFORE = (".", ",", "?", "!", ";", ":", "'s", "n't")


def _joined(parts: list[str]) -> str:
    """Runs of a sentence joined by single spaces, none before closing punctuation."""
    text = ""
    for part in parts:
        if not part:
            continue
        text = part if not text else text + ("" if part.startswith(_NO_SPACE_BEFORE) else " ") + part
    return text


def _penalise(logits: Any, factor: float) -> Any:
    """Logits made less likely by ``factor`` whatever their sign (CTRL's repetition rule):
    positive ones divided, negative ones multiplied. POINTER multiplies by ``1 / factor``,
    which raises a negative logit; the sign-aware form lowers every one."""
    import torch

    return torch.where(logits > 0, logits / factor, logits * factor)


def _top_k_top_p(logits: Any, top_k: int, top_p: float) -> Any:
    """Each row's logits outside its ``top_k`` best (0: all) and outside the smallest set
    whose probability reaches ``top_p`` set to -inf (Holtzman et al.'s nucleus)."""
    import torch

    if top_k > 0:
        k = min(top_k, logits.shape[-1])
        threshold = logits.topk(k, dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < threshold, -math.inf)
    if top_p < 1.0:
        ordered, order = logits.sort(dim=-1, descending=True)
        cumulative = torch.softmax(ordered, dim=-1).cumsum(dim=-1)
        drop = cumulative > top_p
        drop[:, 1:] = drop[:, :-1].clone()
        drop[:, 0] = False
        logits = logits.masked_fill(drop.scatter(1, order, drop), -math.inf)
    return logits


@dataclass(frozen=True)
class _VocabularyIds:
    """The token ids decoding treats specially, read once per model from its vocabulary."""

    noi: int
    size: int
    banned: list[int]
    discouraged: list[int]
    end_marks: list[int]
    continuations: list[int]
    stop_words: list[int]


@functools.lru_cache(maxsize=8)
def _vocabulary_ids(masked_lm: Any) -> _VocabularyIds:
    """Scanning a 30,522-token vocabulary takes ~45 ms: once per shared model, not once per
    batch (the method builds a generator for every batch it augments)."""
    tokenizer = masked_lm.tokenizer
    vocab = tokenizer.get_vocab()
    if NOI_TOKEN not in vocab:
        raise InvalidParameterError(
            f"model {masked_lm.name!r} has no {NOI_TOKEN} token, so it is not a POINTER insertion model: fine-tune one "
            f"with `augkit train pointer CORPUS -o FOLDER --model {masked_lm.name}` (one sentence per line, e.g. the "
            "dataset's own unlabeled texts) and pass insertion_model=FOLDER"
        )
    noi = vocab[NOI_TOKEN]
    special = set(tokenizer.all_special_ids) - {noi}
    return _VocabularyIds(
        noi=noi,
        size=len(tokenizer),
        banned=sorted(special | {vocab[s] for s in BANNED_SYMBOLS if s in vocab}),
        discouraged=sorted(vocab[s] for s in DISCOURAGED_SYMBOLS if s in vocab),
        end_marks=sorted(vocab[mark] for mark in FINAL_PUNCTUATION if mark in vocab),
        continuations=sorted(i for token, i in vocab.items() if token.startswith("##")),
        stop_words=sorted(_stop_word_ids(vocab)),
    )


def _stop_word_ids(vocab: dict[str, int]) -> set[int]:
    """Ids of English stop words and POINTER's reduced punctuation that are whole tokens."""
    from augkit_eda.stopwords import EDA_STOP_WORDS

    words = set(EDA_STOP_WORDS) | set(REDUCED_PUNCTUATION)
    return {vocab[word] for word in words if word in vocab}
