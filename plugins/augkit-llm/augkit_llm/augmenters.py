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
    InvalidParameterError,
    RowProtection,
    check_bool,
    check_int,
    draw_seed,
    repetition_loop,
    spans_kept_first,
)
from augkit_llm.prompts import (
    AVOID_BLOCK,
    GENERATE_FIELDS,
    GENERATE_SYSTEM,
    GENERATE_USER,
    KEEP_BLOCK,
    PARAPHRASE_FIELDS,
    PARAPHRASE_SYSTEM,
    PARAPHRASE_USER,
    USE_BLOCK,
    checked_template,
    example_lines,
    keep_line,
    render,
    uses_field,
)

logger = logging.getLogger("augkit")
#: How outputs count as the same text (as the source, or as each other): augkit's one rule,
#: ignoring letter case and final punctuation as the FAQ method does.
SAME_TEXT = ExactDuplicateFilter(ignore_case=True, ignore_final_punctuation=True)
#: Seeds sent to servers: 31 bits, which every server's seed field accepts.
SEED_BITS = 31
#: Why a row whose reply was usable got nothing: not a failure (the model answered).
ALL_REPEATS = "every text in the reply repeats the source or an earlier one"
ALL_LOOPS = ("every new text in the reply fell into a repetition loop (a phrase said over and over); "
             "refuse_loops=false keeps such texts")


class _ChatMethod(Augmenter):
    """What both methods share: the server, the sampling settings, the client and its cache,
    the cost of the run. Subclasses build one request per row (:meth:`_messages`)."""

    uses_model = True
    #: What each row cost, summed in the run's report and summary.
    usage = ("requests", "cached", "prompt_tokens", "completion_tokens", "cost_nanodollars")

    def __init__(self, base_url: str, model: str, api_key_env: str, temperature: float, top_p: float,
                 max_new_tokens: int, send_seed: bool, concurrency: int, timeout: float, max_retries: int,
                 cache: bool, cache_dir: str | None, prompt_price: float | None, completion_price: float | None,
                 cache_unusable: bool, refuse_loops: bool):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise InvalidParameterError(f"base_url must be the server's http(s) URL, e.g. http://127.0.0.1:8000/v1; got {base_url!r}")
        if not isinstance(model, str) or not model.strip():
            raise InvalidParameterError(f"model must name the model the server serves, got {model!r}")
        for name, value, low, high in (("temperature", temperature, 0.0, 2.0), ("top_p", top_p, 0.0, 1.0)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise InvalidParameterError(f"{name} must be a number in [{low}, {high}], got {value!r}")
        for name, value in (("prompt_price", prompt_price), ("completion_price", completion_price)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
                raise InvalidParameterError(f"{name} must be a price per million tokens >= 0, got {value!r}")
        self.base_url = base_url
        self.model = model
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.max_new_tokens = check_int("max_new_tokens", max_new_tokens, minimum=1)
        self.send_seed = bool(send_seed)
        self.concurrency = check_int("concurrency", concurrency, minimum=1)
        self.timeout = float(timeout)
        self.max_retries = check_int("max_retries", max_retries, minimum=0)
        self.cache = bool(cache)
        self.cache_dir = cache_dir
        self.cache_unusable = bool(cache_unusable)
        self.prompt_price = prompt_price
        self.completion_price = completion_price
        self.refuse_loops = check_bool("refuse_loops", refuse_loops)
        self._client: Any = None

    def __getstate__(self) -> dict:
        # The client holds connections and threads: each process opens its own.
        return {**self.__dict__, "_client": None}

    @property
    def client(self) -> Any:
        if self._client is None:
            from augkit_llm.cache import ResponseCache
            from augkit_llm.client import ChatClient

            cache = ResponseCache(self.cache_dir) if self.cache else None
            self._client = ChatClient(self.base_url, self.model, api_key_env=self.api_key_env, timeout=self.timeout,
                                      max_retries=self.max_retries, concurrency=self.concurrency, cache=cache)
        return self._client

    def cost_nanodollars(self, prompt_tokens: int, completion_tokens: int) -> int:
        """What a request's tokens cost at the given prices (dollars per million tokens), in
        billionths of a dollar; 0 without prices."""
        return round(prompt_tokens * (self.prompt_price or 0.0) * 1000 + completion_tokens * (self.completion_price or 0.0) * 1000)

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
             rngs: Sequence[random.Random], protected: Sequence[RowProtection] | None = None) -> list[list[str]]:
        """One request per row, all at once; each reply parsed into at most ``n`` texts that
        differ from the row's source and from each other, without loops (``refuse_loops``),
        those that kept every protected span of the row first."""
        from augkit_llm.client import ChatRequest
        from augkit_llm.parsing import parse_texts

        requests = [
            ChatRequest(tuple(m), temperature=self.temperature, top_p=self.top_p, max_tokens=self.max_new_tokens,
                        seed=draw_seed(rng, SEED_BITS) if self.send_seed else None)
            for m, rng in zip(messages, rngs, strict=True)
        ]
        results = self.client.complete(requests, usable=None if self.cache_unusable else _usable)
        problems: Counter = Counter()
        rows = []
        spans = protected if protected is not None else [()] * len(sources)
        for source, result, row_spans in zip(sources, results, spans, strict=True):
            usage = {"requests": 1, "cached": int(result.cached), "prompt_tokens": result.prompt_tokens,
                     "completion_tokens": result.completion_tokens,
                     "cost_nanodollars": 0 if result.cached else self.cost_nanodollars(result.prompt_tokens, result.completion_tokens)}
            parsed = parse_texts(result.text) if result.text is not None else None
            problem = (result.problem or "no reply") if parsed is None else (parsed.problem if not parsed.texts else None)
            new_texts = _distinct(source, parsed.texts) if parsed is not None else []
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
    ``avoid`` examples of the labels most easily confused with it, not to write. Needs the
    label column; every original of the run is seen first (``prepare``). The server, sampling,
    cache and price parameters are ``llm_paraphrase``'s (``augkit info llm_paraphrase``).

    Parameters
    ----------
    num_examples : int
        Examples of the label shown per request; ``k`` until augkit 0.3.
    avoid : int
        Confusable labels shown as "do not write these" (0: none); the labels whose
        examples' mean MiniLM embedding is nearest the row's label's, 2 examples each.
    system_prompt : str
        The system message (template; fields ``{label}``, ``{examples}``, ``{avoid}``, ``{n}``,
        ``{keep}``: the row's protected spans, which every new example must use).
    user_prompt : str
        The user message (template; same fields).
    """

    name = "llm_generate"
    #: augkit's one name per idea (docs/plugin-authors.md): the old names work until 0.3
    renamed_parameters = {"max_tokens": "max_new_tokens", "k": "num_examples"}
    needs_all_texts = True

    def __init__(self, base_url: str = "http://127.0.0.1:8000/v1", model: str = "default", api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.9, top_p: float = 1.0, max_new_tokens: int = 512, send_seed: bool = True, concurrency: int = 4,
                 timeout: float = 60.0, max_retries: int = 5, cache: bool = True, cache_unusable: bool = False,
                 cache_dir: str | None = None, prompt_price: float | None = None, completion_price: float | None = None,
                 refuse_loops: bool = True, num_examples: int = 5, avoid: int = 0, system_prompt: str = GENERATE_SYSTEM,
                 user_prompt: str = GENERATE_USER):
        super().__init__(base_url, model, api_key_env, temperature, top_p, max_new_tokens, send_seed, concurrency, timeout,
                         max_retries, cache, cache_dir, prompt_price, completion_price, cache_unusable, refuse_loops)
        self.num_examples = check_int("num_examples", num_examples, minimum=1)
        self.avoid = check_int("avoid", avoid, minimum=0)
        self.system_prompt = checked_template(system_prompt, GENERATE_FIELDS, "system_prompt")
        self.user_prompt = checked_template(user_prompt, GENERATE_FIELDS, "user_prompt")
        self._examples: dict[Any, list[str]] | None = None
        self._confusable: dict[Any, list[Any]] = {}

    def prepare(self, dataset) -> None:
        if dataset.labels is None:
            raise InputError(_NO_LABELS)
        examples: dict[Any, list[str]] = {}
        for text, label in zip(dataset.texts, dataset.labels, strict=True):
            examples.setdefault(label, [])
            if text not in examples[label]:
                examples[label].append(text)
        self._examples = examples
        self._confusable = _nearest_labels(examples, self.avoid) if self.avoid else {}

    def augment_batch(self, texts, n, rngs, context):
        if context.labels is None:
            raise InputError(_NO_LABELS)
        if self._examples is None:
            raise InputError("llm_generate shows each label's examples from the run's data: run it through augkit.augment "
                             "or the command line (which call prepare first), or call Pipeline.prepare(texts, labels)")
        protected = context.protected if context.protected is not None else [()] * len(texts)
        messages = []
        for text, label, rng, spans in zip(texts, context.labels, rngs, protected, strict=True):
            pool = [t for t in self._examples.get(label, []) if t != text]
            shown = [text, *rng.sample(pool, min(self.num_examples - 1, len(pool)))]
            avoid_lines = [f"- {' '.join(t.split())} (label: {other})" for other in self._confusable.get(label, [])
                           for t in self._examples[other][:2]]
            fields = {"label": label, "examples": example_lines(shown), "n": n,
                      "avoid": AVOID_BLOCK.format(lines="\n".join(avoid_lines)) if avoid_lines else ""}
            messages.append(self._messages(self.system_prompt, self.user_prompt, fields, USE_BLOCK, spans))
        return self._ask(texts, messages, n, rngs, protected)


def _usable(reply: str) -> bool:
    """Whether a stored reply holds texts to use (what the cache may serve by default)."""
    from augkit_llm.parsing import parse_texts

    return bool(parse_texts(reply).texts)


def _distinct(source: str, texts: Sequence[str]) -> list[str]:
    """The texts that differ from the source and from each other (augkit's rule), in order."""
    verdicts = SAME_TEXT.repeats(source, list(texts))
    return [text for text, verdict in zip(texts, verdicts, strict=True) if verdict is None]


def _nearest_labels(examples: dict[Any, list[str]], count: int) -> dict[Any, list[Any]]:
    """For each label, the ``count`` other labels whose examples' mean embedding is closest."""
    import numpy as np

    from augkit.plugin import get_encoder

    labels = list(examples)
    encoder = get_encoder(None)
    centroids = np.stack([encoder.encode(examples[label]).mean(axis=0) for label in labels])
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    similarity = centroids @ centroids.T
    np.fill_diagonal(similarity, -np.inf)
    return {label: [labels[j] for j in np.argsort(-similarity[i], kind="stable")[:count]] for i, label in enumerate(labels)}


_NO_LABELS = ("llm_generate writes new examples of each row's label: name the label column "
              "(label_column=..., --label-column)")
