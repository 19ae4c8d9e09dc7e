"""The ``llm_check`` filter: a chat model re-classifies each candidate among its label and the
labels nearest it, and a candidate it assigns elsewhere is dropped ("Clear Up Confusion",
Zhang et al.: re-classification among the 5 nearest labels by mean all-MiniLM-L6-v2 embedding).

One request per candidate, all of a batch's at once (``concurrency`` in flight), through the
plugin's client: cached, retried, seeded, counted in the run's usage. A request depends only on
the candidate, its label and the run's originals (the labels shown in the order the data first
gives them), never on the batch, so a run gives the same result whatever its batch size.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from augkit.plugin import (
    Candidate,
    Filter,
    GeneratedRow,
    InputError,
    check_int,
    check_sources,
    derive,
)
from augkit_llm.confusion import label_examples, nearest_labels
from augkit_llm.prompts import (
    CHECK_FIELDS,
    CHECK_SYSTEM,
    CHECK_USER,
    checked_template,
    render,
)
from augkit_llm.server import USAGE, ChatServer

#: Seeds sent to servers: 31 bits, which every server's seed field accepts.
SEED_BITS = 31
#: How much of an unreadable answer a drop reason repeats.
SHOWN_ANSWER = 80
#: What may wrap a label in an answer: quotes, backticks, brackets, a final full stop.
WRAPPING = " \t\r\n\"'`*[](){}.:"


class LLMCheck(ChatServer, Filter):
    """Drops a candidate that a chat model, asked to classify it among its label and the
    ``nearest_labels`` labels most easily confused with it, assigns to another label.

    The nearest labels are those whose originals' mean MiniLM embedding is closest (computed in
    ``prepare`` from the run's originals); they are shown, with the candidate's own label, in the
    order the data first gives them. A candidate is dropped, its reason naming the label the
    model chose ("the model classed it as 'card_arrival', not 'card_delivery_estimate'"); an
    answer that names none of the labels shown, or none unambiguously, drops it too, the reason
    quoting the answer; so does a request that failed after its retries. Needs the label column.
    The server, sampling, cache and price parameters are ``llm_paraphrase``'s (``augkit info
    llm_paraphrase``); a classification samples at ``temperature`` 0 by default.

    Parameters
    ----------
    base_url : str
        The server's OpenAI-compatible URL, e.g. ``http://127.0.0.1:8000/v1``.
    model : str
        The model name the server knows.
    api_key_env : str
        The environment variable holding the API key (local servers need none).
    temperature : float
        Sampling temperature (0: the model's likeliest answer).
    top_p : float
        Nucleus sampling mass.
    max_new_tokens : int
        Longest answer, in tokens.
    send_seed : bool
        Send each request a seed drawn from the candidate and its label.
    concurrency : int
        Requests in flight at once.
    timeout : float
        Seconds a request may take before it is retried.
    max_retries : int
        Retries of a request after a 429, a 5xx, a timeout or a dropped connection.
    cache : bool
        Keep answers in the disk cache, so a re-run costs nothing.
    cache_unusable : bool
        Also serve from the cache answers that name none of the run's labels.
    cache_dir : str, optional
        Where the cache lives (default ``$AUGKIT_CACHE_DIR/llm``).
    prompt_price : float, optional
        Price per million prompt tokens, for the run's cost.
    completion_price : float, optional
        Price per million completion tokens.
    nearest_labels : int
        Labels shown beside the candidate's own: its nearest by mean MiniLM embedding (5, as in
        "Clear Up Confusion"); 0 shows only the candidate's own label.
    system_prompt : str
        The system message (template; fields ``{text}``, ``{labels}``: one label a line after "- ").
    user_prompt : str
        The user message (template; same fields).
    """

    name = "llm_check"
    uses_model = True  # a chat model behind a server, and the MiniLM encoder in prepare
    needs_all_texts = True
    usage = USAGE

    def __init__(self, base_url: str = "http://127.0.0.1:8000/v1", model: str = "default", api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.0, top_p: float = 1.0, max_new_tokens: int = 32, send_seed: bool = True,
                 concurrency: int = 4, timeout: float = 60.0, max_retries: int = 5, cache: bool = True,
                 cache_unusable: bool = False, cache_dir: str | None = None, prompt_price: float | None = None,
                 completion_price: float | None = None, nearest_labels: int = 5, system_prompt: str = CHECK_SYSTEM,
                 user_prompt: str = CHECK_USER):
        self.set_server(base_url, model, api_key_env, temperature, top_p, max_new_tokens, send_seed, concurrency,
                        timeout, max_retries, cache, cache_dir, prompt_price, completion_price, cache_unusable)
        self.nearest_labels = check_int("nearest_labels", nearest_labels, minimum=0)
        self.system_prompt = checked_template(system_prompt, CHECK_FIELDS, "system_prompt")
        self.user_prompt = checked_template(user_prompt, CHECK_FIELDS, "user_prompt")
        self._order: dict[Any, int] | None = None
        self._nearest: dict[Any, list[Any]] = {}

    def prepare(self, dataset) -> None:
        if dataset.labels is None:
            raise InputError(_NO_LABELS)
        examples = label_examples(dataset.texts, dataset.labels)
        self._order = {label: position for position, label in enumerate(examples)}
        self._nearest = nearest_labels(examples, self.nearest_labels)

    def filter_batch(self, sources: list[str], candidates: list[list[Candidate]], context) -> list[list[Candidate]]:
        check_sources(self.name, sources, candidates)
        if context is None or context.labels is None:
            raise InputError(_NO_LABELS)
        if self._order is None:
            raise InputError("llm_check shows each label's nearest labels from the run's data: run it through augkit.augment "
                             "or the command line (which call prepare first), or call Pipeline.prepare(texts, labels)")
        asked = [(row, candidate, self.shown_labels(candidate.label if candidate.label is not None else label))
                 for row, (label, cands) in enumerate(zip(context.labels, candidates, strict=True)) for candidate in cands]
        requests = [self._request(candidate.text, shown) for _, candidate, shown in asked]
        known = [str(label) for label in self._order]
        results = self.client.complete(requests, usable=None if self.cache_unusable else lambda reply: chosen_label(reply, known) is not None)
        kept: list[list[Candidate]] = [[] for _ in candidates]
        usage: list[dict[str, int]] = [dict.fromkeys(self.usage, 0) for _ in candidates]
        for (row, candidate, shown), result in zip(asked, results, strict=True):
            for name, value in self.usage_of(result).items():
                usage[row][name] += value
            own = candidate.label if candidate.label is not None else context.labels[row]
            verdict = _verdict(result, own, shown)
            if verdict:
                candidate.drop_reason = verdict
            else:
                kept[row].append(candidate)
        return [GeneratedRow(row, usage=cost) if any(cost.values()) else list(row) for row, cost in zip(kept, usage)]

    def shown_labels(self, label: Any) -> list[Any]:
        """The labels a candidate of ``label`` is classified among: ``label`` and its nearest,
        in the order the data first gives them (a label the run's originals lack comes last)."""
        labels = [label, *self._nearest.get(label, [])]
        return sorted(labels, key=lambda other: self._order.get(other, len(self._order)))

    def _request(self, text: str, shown: Sequence[Any]) -> Any:
        fields = {"text": " ".join(text.split()), "labels": "\n".join(f"- {label}" for label in shown)}
        messages = (("system", render(self.system_prompt, **fields)), ("user", render(self.user_prompt, **fields)))
        seed = derive(0, self.name, text, *map(str, shown), bits=SEED_BITS)
        return self.chat_request(messages, seed)


def _verdict(result: Any, own: Any, shown: Sequence[Any]) -> str:
    """Why the candidate is dropped ("" when the model classed it as its own label)."""
    if result.text is None:
        return f"no answer from the model to check it ({result.problem or 'no reply'})"
    names = [str(label) for label in shown]
    chosen = chosen_label(result.text, names)
    if chosen is None:
        answer = " ".join(result.text.split())
        answer = answer if len(answer) <= SHOWN_ANSWER else answer[: SHOWN_ANSWER - 1] + "…"
        return f"the model's answer names none of the labels shown, or several: {answer!r}"
    if chosen != str(own):
        return f"the model classed it as {chosen!r}, not {str(own)!r}"
    return ""


def chosen_label(answer: str, labels: Sequence[str]) -> str | None:
    """The one label of ``labels`` that ``answer`` names, or None when it names none or several.

    The whole answer (quotes, a final full stop, "Label:" aside, letter case ignored) when it
    is a label; else the one label written in it as a word of its own (a label inside a longer
    label written there, "top_up" in "pending_top_up", does not count).

    >>> chosen_label("card_arrival.", ["card_arrival", "card_linking"])
    'card_arrival'
    >>> chosen_label("The text belongs to `Card_Linking`", ["card_arrival", "card_linking"])
    'card_linking'
    >>> chosen_label("pending_top_up", ["top_up", "pending_top_up"]), chosen_label("no idea", ["top_up"])
    ('pending_top_up', None)
    """
    by_name = {label.casefold(): label for label in labels}
    whole = re.sub(r"^\s*label\s*:", "", answer.strip(), flags=re.I).strip(WRAPPING).casefold()
    if whole in by_name:
        return by_name[whole]
    text = answer.casefold()
    spans = {name: [m.span() for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text)] for name in by_name}
    found = [name for name, where in spans.items() if where]
    alone = [name for name in found
             if any(not any(o != name and s2 <= s and e <= e2 for o in found for s2, e2 in spans[o]) for s, e in spans[name])]
    return by_name[alone[0]] if len(alone) == 1 else None


_NO_LABELS = ("llm_check classifies each candidate among its label and the nearest ones: name the label column "
              "(label_column=..., --label-column)")
