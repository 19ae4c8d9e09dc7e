"""What every step of this plugin that asks a chat model shares: the server's settings, checked
once; the client with its cache, retries and concurrency, opened on first use in each process;
one request built the one way (sampling settings, the seed sent); and what a request cost, as
the usage the run's report sums. ``llm_paraphrase`` and ``llm_generate`` (augmenters) and
``llm_check`` (a filter) mix it in, so a setting means the same in all three."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from augkit.plugin import InvalidParameterError, check_int

#: What a step reports per row, summed in the run's report and summary (``report.usage``).
USAGE = ("requests", "cached", "prompt_tokens", "completion_tokens", "cost_nanodollars")


class ChatServer:
    """The server settings of a step that asks a chat model (see ``llm_paraphrase``'s
    parameters for their meaning), its client, its requests and their cost."""

    def set_server(self, base_url: str, model: str, api_key_env: str, temperature: float, top_p: float,
                   max_new_tokens: int, send_seed: bool, concurrency: int, timeout: float, max_retries: int,
                   cache: bool, cache_dir: str | None, prompt_price: float | None, completion_price: float | None,
                   cache_unusable: bool) -> None:
        """Check and store the settings (called by the step's ``__init__``)."""
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
        self._client: Any = None

    def __getstate__(self) -> dict:
        # The client holds connections and threads: each process opens its own.
        return {**self.__dict__, "_client": None}

    @property
    def client(self) -> Any:
        """The :class:`~augkit_llm.client.ChatClient` of this step, opened on first use."""
        if self._client is None:
            from augkit_llm.cache import ResponseCache
            from augkit_llm.client import ChatClient

            cache = ResponseCache(self.cache_dir) if self.cache else None
            self._client = ChatClient(self.base_url, self.model, api_key_env=self.api_key_env, timeout=self.timeout,
                                      max_retries=self.max_retries, concurrency=self.concurrency, cache=cache)
        return self._client

    def chat_request(self, messages: Sequence[tuple[str, str]], seed: int) -> Any:
        """The :class:`~augkit_llm.client.ChatRequest` of ``messages`` with this step's sampling
        settings, carrying ``seed`` when ``send_seed`` is on."""
        from augkit_llm.client import ChatRequest

        return ChatRequest(tuple(messages), temperature=self.temperature, top_p=self.top_p,
                           max_tokens=self.max_new_tokens, seed=seed if self.send_seed else None)

    def cost_nanodollars(self, prompt_tokens: int, completion_tokens: int) -> int:
        """What a request's tokens cost at the given prices (dollars per million tokens), in
        billionths of a dollar; 0 without prices."""
        return round(prompt_tokens * (self.prompt_price or 0.0) * 1000 + completion_tokens * (self.completion_price or 0.0) * 1000)

    def usage_of(self, result: Any) -> dict[str, int]:
        """What one :class:`~augkit_llm.client.ChatResult` cost, under the names of :data:`USAGE`
        (a reply from the cache costs nothing and counts as ``cached``)."""
        cost = 0 if result.cached else self.cost_nanodollars(result.prompt_tokens, result.completion_tokens)
        return {"requests": 1, "cached": int(result.cached), "prompt_tokens": result.prompt_tokens,
                "completion_tokens": result.completion_tokens, "cost_nanodollars": cost}
