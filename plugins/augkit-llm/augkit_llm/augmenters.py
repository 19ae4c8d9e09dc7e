"""The ``llm_paraphrase`` and ``llm_generate`` methods: an instruction-tuned chat model behind
any OpenAI-compatible server (vLLM, llama.cpp's server, Ollama, text-generation-inference,
``transformers serve``, OpenAI) asked for label-preserving paraphrases of a row, or for new
examples of the row's label shown some of that label's examples (Sahu et al. 2022; GPT3Mix).

Every request carries a seed drawn from the row's seed (servers that honour ``seed`` then
answer the same), and goes through a disk cache keyed by server, model, prompt, sampling
settings and seed, so a re-run or ``--resume`` costs nothing and gives the same rows. A reply
that holds no usable text (no JSON list, an empty one, cut off) is not served from the cache
unless ``cache_unusable`` says so: a re-run asks for it again.

A row without a usable reply (that reply, or a request that failed after its retries) is a
failed row (:attr:`augkit.GeneratedRow.failed`): ``strict`` stops the run on it, and a run in
which every row failed raises (the command line exits 1). A usable reply whose texts all
repeat the source, or fall into a repetition loop (refused unless ``refuse_loops=False``), is
not a failure: the row got an answer, with nothing new in it.

A row's protected spans (``protect=``, ``protect_column=``, the codes protected by default)
are listed in its request ("Keep these exactly as they are written ..."; the ``{keep}``
field), texts that kept them all are offered first, and the pipeline's ``protected`` step
drops the others. A row without spans sends the request it sent before protection existed.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from augkit.plugin import (
    Augmenter,
    ExactDuplicateFilter,
    GeneratedRow,
    InputError,
    RowFeedback,
    RowProtection,
    check_bool,
    check_int,
    draw_seed,
    repetition_loop,
    spans_kept_first,
)
from augkit_llm.confusion import label_examples, nearest_labels
from augkit_llm.prompts import (
    CONTRAST_BLOCK,
    FEEDBACK_BLOCK,
    GENERATE_FIELDS,
    GENERATE_SYSTEM,
    GENERATE_USER,
    KEEP_BLOCK,
    PARAPHRASE_FIELDS,
    PARAPHRASE_SYSTEM,
    PARAPHRASE_USER,
    USE_BLOCK,
    checked_template,
    either_of,
    example_lines,
    keep_line,
    render,
    uses_field,
)
from augkit_llm.server import USAGE, ChatServer

logger = logging.getLogger("augkit")
#: How outputs count as the same text (as the source, or as each other): augkit's one rule,
#: ignoring letter case and final punctuation as the FAQ method does.
SAME_TEXT = ExactDuplicateFilter(ignore_case=True, ignore_final_punctuation=True)
#: Seeds sent to servers: 31 bits, which every server's seed field accepts.
SEED_BITS = 31
#: Examples shown of each confusable label (``contrast``): a few, the first in the data's
#: order, so a request depends on the data, not on the batch.
CONTRAST_EXAMPLES = 2
#: Why a row whose reply was usable got nothing: not a failure (the model answered).
ALL_REPEATS = "every text in the reply repeats the source or an earlier one"
ALL_LOOPS = ("every new text in the reply fell into a repetition loop (a phrase said over and over); "
             "refuse_loops=false keeps such texts")


class _ChatMethod(ChatServer, Augmenter):
    """What both methods share: the server, the sampling settings, the client and its cache,
    the cost of the run (:class:`~augkit_llm.server.ChatServer`). Subclasses build one request
    per row (:meth:`_messages`)."""

    uses_model = True
    #: What each row cost, summed in the run's report and summary.
    usage = USAGE

    def __init__(self, base_url: str, model: str, api_key_env: str, temperature: float, top_p: float,
                 max_new_tokens: int, send_seed: bool, concurrency: int, timeout: float, max_retries: int,
                 cache: bool, cache_dir: str | None, prompt_price: float | None, completion_price: float | None,
                 cache_unusable: bool, refuse_loops: bool):
        self.set_server(base_url, model, api_key_env, temperature, top_p, max_new_tokens, send_seed, concurrency,
                        timeout, max_retries, cache, cache_dir, prompt_price, completion_price, cache_unusable)
        self.refuse_loops = check_bool("refuse_loops", refuse_loops)

    def _messages(self, system: str, user: str, fields: dict[str, Any], block: str, spans: RowProtection) -> tuple:
        """A row's request: the templates rendered with ``fields``, and its protected spans as
        the ``{keep}`` field (or, for a user template without it, a line at its end)."""
        keep = keep_line(block, (span.text for span in spans))
        rendered = {**fields, "keep": keep}
        user_text = render(user, **rendered)
        if keep and not uses_field(user, "keep") and not uses_field(system, "keep"):
            user_text = user_text.rstrip("\n") + "\n" + keep.rstrip("\n")
        return (("system", render(system, **rendered)), ("user", user_text))

    def _ask(self, sources: Sequence[str], messages: list[tuple[tuple[str, str], ...]], n: int,
             rngs: Sequence[random.Random], protected: Sequence[RowProtection] | None = None,
             earlier: Sequence[Sequence[str]] | None = None) -> list[list[str]]:
        """One request per row, all at once; each reply parsed into at most ``n`` texts that
        differ from the row's source, from each other and from the row's ``earlier`` texts (a
        feedback round's), without loops (``refuse_loops``), those that kept every protected
        span of the row first."""
        from augkit_llm.parsing import parse_texts

        requests = [self.chat_request(m, draw_seed(rng, SEED_BITS)) for m, rng in zip(messages, rngs, strict=True)]
        results = self.client.complete(requests, usable=None if self.cache_unusable else _usable)
        problems: Counter = Counter()
        rows = []
        spans = protected if protected is not None else [()] * len(sources)
        earlier = earlier if earlier is not None else [()] * len(sources)
        for source, result, row_spans, before in zip(sources, results, spans, earlier, strict=True):
            usage = self.usage_of(result)
            parsed = parse_texts(result.text) if result.text is not None else None
            problem = (result.problem or "no reply") if parsed is None else (parsed.problem if not parsed.texts else None)
            new_texts = _distinct(source, parsed.texts, before) if parsed is not None else []
            kept = spans_kept_first([text for text in new_texts if not (self.refuse_loops and repetition_loop(source, text))],
                                    row_spans)
            if problem:
                problems[problem] += 1
                rows.append(GeneratedRow([], reason=f"{self.name}: {problem}", usage=usage, failed=True))
            elif not kept:
                why = ALL_LOOPS if new_texts else ALL_REPEATS
                rows.append(GeneratedRow([], reason=f"{self.name}: {why}", usage=usage))
            else:
                rows.append(GeneratedRow(kept[:n], usage=usage))
        if problems:
            listing = "; ".join(f"{count} {problem}" for problem, count in problems.most_common())
            logger.warning("augkit %s: %d of %d rows got no usable reply (%s)", self.name, sum(problems.values()),
                           len(sources), listing)
        return rows


class LLMParaphrase(_ChatMethod):
    """Paraphrases from a chat model behind any OpenAI-compatible server, asked to keep the
    meaning (and so the label) and change the wording; ``n`` per row in one request.

    Parameters
    ----------
    base_url : str
        The server's OpenAI-compatible URL, e.g. ``http://127.0.0.1:8000/v1`` (vLLM,
        llama.cpp, Ollama ``http://localhost:11434/v1``, ``transformers serve``) or
        ``https://api.openai.com/v1``.
    model : str
        The model name the server knows (``GET /v1/models`` lists them).
    api_key_env : str
        The environment variable holding the API key (never logged, cached or shown; local
        servers need none).
    temperature : float
        Sampling temperature.
    top_p : float
        Nucleus sampling mass.
    max_new_tokens : int
        Longest reply, in tokens (sent as the request's ``max_tokens``); ``max_tokens`` until
        augkit 0.3.
    send_seed : bool
        Send each row a seed drawn from the run's seed (servers that honour it repeat
        themselves); False sends none.
    concurrency : int
        Requests in flight at once.
    timeout : float
        Seconds a request may take before it is retried.
    max_retries : int
        Retries of a request after a 429, a 5xx, a timeout or a dropped connection
        (exponential back-off with jitter).
    cache : bool
        Keep replies in a disk cache (server, model, prompt, sampling settings, seed) so a
        re-run costs nothing; False always asks the server.
    cache_unusable : bool
        Also serve from the cache replies that held no usable text (no JSON list, an empty
        one, cut off), so a re-run repeats their failure without asking. Default False: such a
        reply is asked for again (it stays in the cache, for inspection, until the new reply
        replaces it).
    cache_dir : str, optional
        Where the cache lives (default ``$AUGKIT_CACHE_DIR/llm`` or ``~/.cache/augkit/llm``).
    prompt_price : float, optional
        Price per million prompt tokens, for the run's cost.
    completion_price : float, optional
        Price per million completion tokens.
    refuse_loops : bool
        Refuse a text caught in a repetition loop its source is not in
        (:func:`augkit.plugin.repetition_loop`). Default true.
    system_prompt : str
        The system message (template; fields ``{text}``, ``{n}``, ``{label}``, ``{keep}``).
    user_prompt : str
        The user message (template; same fields). Without ``{keep}`` in either template, a
        row's protected spans are listed on a last line of the user message.
    """

    name = "llm_paraphrase"
    #: augkit's one name per idea (docs/plugin-authors.md): the old name works until 0.3
    renamed_parameters = {"max_tokens": "max_new_tokens"}

    def __init__(self, base_url: str = "http://127.0.0.1:8000/v1", model: str = "default", api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.7, top_p: float = 1.0, max_new_tokens: int = 512, send_seed: bool = True, concurrency: int = 4,
                 timeout: float = 60.0, max_retries: int = 5, cache: bool = True, cache_unusable: bool = False,
                 cache_dir: str | None = None, prompt_price: float | None = None, completion_price: float | None = None,
                 refuse_loops: bool = True, system_prompt: str = PARAPHRASE_SYSTEM, user_prompt: str = PARAPHRASE_USER):
        super().__init__(base_url, model, api_key_env, temperature, top_p, max_new_tokens, send_seed, concurrency, timeout,
                         max_retries, cache, cache_dir, prompt_price, completion_price, cache_unusable, refuse_loops)
        self.system_prompt = checked_template(system_prompt, PARAPHRASE_FIELDS, "system_prompt")
        self.user_prompt = checked_template(user_prompt, PARAPHRASE_FIELDS, "user_prompt")

    def augment_batch(self, texts, n, rngs, context):
        labels = context.labels if context.labels is not None else [None] * len(texts)
        protected = context.protected if context.protected is not None else [()] * len(texts)
        messages = [
            self._messages(self.system_prompt, self.user_prompt, {"text": text, "n": n, "label": label}, KEEP_BLOCK, spans)
            for text, label, spans in zip(texts, labels, protected, strict=True)
        ]
        return self._ask(texts, messages, n, rngs, protected)


class LLMGenerate(_ChatMethod):
    """New examples of each row's label from a chat model, shown ``num_examples`` examples of that label
    drawn from the run's own data (by the row's seed; the row itself first), and optionally
    (``contrast``) the labels most easily confused with it, with examples of each, and asked
    for examples that belong to the label and not to them. Needs the label column; every
    original of the run is seen first (``prepare``). The server, sampling, cache and price
    parameters are ``llm_paraphrase``'s (``augkit info llm_paraphrase``).

    Parameters
    ----------
    num_examples : int
        Examples of the label shown per request; ``k`` until augkit 0.3.
    contrast : int
        Confusable labels shown per request (0: none): the labels whose originals' mean
        MiniLM embedding is nearest the row's label's, 2 examples each, and the request says
        the new examples must belong to the row's label "and not to" them ("Clear Up
        Confusion", Zhang et al.); ``avoid`` until augkit 0.3.
    feedback : int
        Extra rounds (0: none) for a row whose candidates the pipeline's filters rejected,
        leaving it fewer than ``n``: the row's label is asked again, the request listing the
        rejected examples with each filter's reason; only such rows are asked again, one
        request each per round.
    system_prompt : str
        The system message (template; fields ``{label}``, ``{examples}``, ``{contrast}``, ``{feedback}``,
        ``{n}``, ``{keep}``: the row's protected spans, which every new example must use).
    user_prompt : str
        The user message (template; same fields).
    """

    name = "llm_generate"
    #: augkit's one name per idea (docs/plugin-authors.md): the old names work until 0.3
    renamed_parameters = {"max_tokens": "max_new_tokens", "k": "num_examples", "avoid": "contrast"}
    needs_all_texts = True

    def __init__(self, base_url: str = "http://127.0.0.1:8000/v1", model: str = "default", api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.9, top_p: float = 1.0, max_new_tokens: int = 512, send_seed: bool = True, concurrency: int = 4,
                 timeout: float = 60.0, max_retries: int = 5, cache: bool = True, cache_unusable: bool = False,
                 cache_dir: str | None = None, prompt_price: float | None = None, completion_price: float | None = None,
                 refuse_loops: bool = True, num_examples: int = 5, contrast: int = 0, feedback: int = 0,
                 system_prompt: str = GENERATE_SYSTEM,
                 user_prompt: str = GENERATE_USER):
        super().__init__(base_url, model, api_key_env, temperature, top_p, max_new_tokens, send_seed, concurrency, timeout,
                         max_retries, cache, cache_dir, prompt_price, completion_price, cache_unusable, refuse_loops)
        self.num_examples = check_int("num_examples", num_examples, minimum=1)
        self.contrast = check_int("contrast", contrast, minimum=0)
        self.feedback = check_int("feedback", feedback, minimum=0)
        self.system_prompt = checked_template(system_prompt, GENERATE_FIELDS, "system_prompt")
        self.user_prompt = checked_template(user_prompt, GENERATE_FIELDS, "user_prompt")
        self._examples: dict[Any, list[str]] | None = None
        self._confusable: dict[Any, list[Any]] = {}

    def prepare(self, dataset) -> None:
        if dataset.labels is None:
            raise InputError(_NO_LABELS)
        self._examples = label_examples(dataset.texts, dataset.labels)
        self._confusable = nearest_labels(self._examples, self.contrast) if self.contrast else {}

    def feedback_rounds(self) -> int:
        return self.feedback

    def augment_batch(self, texts, n, rngs, context):
        return self._generate(texts, n, rngs, context)

    def augment_again(self, texts, n, rngs, context, feedback):
        """A feedback round: each row's request as in the first, with its rejected examples and
        the filters' reasons in ``{feedback}``; texts repeating one of the row's earlier
        candidates are left out."""
        return self._generate(texts, n, rngs, context, feedback)

    def _generate(self, texts, n, rngs, context, feedback: Sequence[RowFeedback] | None = None):
        if context.labels is None:
            raise InputError(_NO_LABELS)
        if self._examples is None:
            raise InputError("llm_generate shows each label's examples from the run's data: run it through augkit.augment "
                             "or the command line (which call prepare first), or call Pipeline.prepare(texts, labels)")
        protected = context.protected if context.protected is not None else [()] * len(texts)
        rounds = feedback if feedback is not None else [None] * len(texts)
        messages = []
        for text, label, rng, spans, told in zip(texts, context.labels, rngs, protected, rounds, strict=True):
            pool = [t for t in self._examples.get(label, []) if t != text]
            shown = [text, *rng.sample(pool, min(self.num_examples - 1, len(pool)))]
            contrast = self._contrast(label)
            block = _feedback_block(label, told)
            fields = {"label": label, "examples": example_lines(shown), "n": n, "contrast": contrast, "avoid": contrast,
                      "feedback": block}
            system, user = self._messages(self.system_prompt, self.user_prompt, fields, USE_BLOCK, spans)
            if block and not uses_field(self.user_prompt, "feedback") and not uses_field(self.system_prompt, "feedback"):
                user = (user[0], user[1].rstrip("\n") + "\n" + block.rstrip("\n"))
            messages.append((system, user))
        earlier = None if feedback is None else [[*row.kept, *(r.text for r in row.rejected)] for row in feedback]
        return self._ask(texts, messages, n, rngs, protected, earlier)

    def _contrast(self, label: Any) -> str:
        """The ``{contrast}`` block of ``label``'s requests: its confusable labels, the first
        :data:`CONTRAST_EXAMPLES` originals of each, and the contrast said outright; "" without."""
        others = self._confusable.get(label, [])
        if not others:
            return ""
        lines = [f"- {' '.join(text.split())} (label: {other})" for other in others
                 for text in self._examples[other][:CONTRAST_EXAMPLES]]
        return CONTRAST_BLOCK.format(label=label, lines="\n".join(lines), others=either_of(others))


def _feedback_block(label: Any, feedback: RowFeedback | None) -> str:
    """The ``{feedback}`` block of a feedback round's request: the row's rejected examples, each
    with the filter's reason (its name when it gave none); "" in the first round."""
    if feedback is None or not feedback.rejected:
        return ""
    lines = [f"- {' '.join(r.text.split())} (rejected: {r.reason or f'by the {r.step} filter'})" for r in feedback.rejected]
    return FEEDBACK_BLOCK.format(label=label, lines="\n".join(lines))


def _usable(reply: str) -> bool:
    """Whether a stored reply holds texts to use (what the cache may serve by default)."""
    from augkit_llm.parsing import parse_texts

    return bool(parse_texts(reply).texts)


def _distinct(source: str, texts: Sequence[str], earlier: Sequence[str] = ()) -> list[str]:
    """The texts that differ from the source, from the ``earlier`` ones and from each other
    (augkit's rule), in order."""
    verdicts = SAME_TEXT.repeats(source, [*earlier, *texts])[len(earlier):]
    return [text for text, verdict in zip(texts, verdicts, strict=True) if verdict is None]


_NO_LABELS = ("llm_generate writes new examples of each row's label: name the label column "
              "(label_column=..., --label-column)")
