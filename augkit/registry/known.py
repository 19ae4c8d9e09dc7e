"""The methods and filters of augkit's own plugins, with the distribution and the extra that
install each: so that asking for one that is not installed says how to get it
("'paramac' is provided by augkit-paramac, which is not installed: pip install
'augkit[paramac]'"), and ``augkit list --all`` shows them.

The plugins stay separate distributions (as llm's and datasette's do): a plugin brings its
own dependencies (torch, textblob, nlpaug...) only to those who ask for it, and is written
exactly as a stranger's would be. The core's extras of the same names install them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnownStep:
    """A step of one of augkit's own plugins: its ``kind`` (method or filter), the
    ``distribution`` that provides it and the core ``extra`` that installs that."""

    kind: str
    distribution: str
    extra: str

    @property
    def install(self) -> str:
        """The command that installs it."""
        return f"pip install 'augkit[{self.extra}]'"


def _steps(distribution: str, extra: str, methods: tuple[str, ...] = (), filters: tuple[str, ...] = ()) -> dict:
    return {**{name: KnownStep("method", distribution, extra) for name in methods},
            **{name: KnownStep("filter", distribution, extra) for name in filters}}


#: nlpaug's augmenters through augkit-nlpaug (``nlpaug.<name>``).
NLPAUG_METHODS = ("antonym", "back_translation", "contextual", "contextual_sentence", "keyboard", "ocr", "random_char",
                  "random_sentence", "random_word", "reserved", "spelling", "split", "summarize", "synonym", "tfidf",
                  "word_embs")

#: Every method and filter of augkit's own plugins (``plugins/`` in the repository); a test
#: checks this table against what those plugins register.
KNOWN_STEPS: dict[str, KnownStep] = {
    **_steps("augkit-eda", "eda", methods=("eda",)),
    **_steps("augkit-aeda", "aeda", methods=("aeda",)),
    **_steps("augkit-backtranslation", "backtranslation", methods=("backtranslation",)),
    **_steps("augkit-faq", "faq", methods=("faq",)),
    **_steps("augkit-paramac", "paramac", methods=("paramac",)),
    **_steps("augkit-pointer", "pointer", methods=("pointer",)),
    **_steps("augkit-erap", "erap", methods=("erap",), filters=("erap_relation",)),
    **_steps("augkit-llm", "llm", methods=("llm_paraphrase", "llm_generate"), filters=("llm_check",)),
    **_steps("augkit-contextual", "contextual", methods=("contextual",)),
    **_steps("augkit-nlpaug", "nlpaug", methods=tuple(f"nlpaug.{name}" for name in NLPAUG_METHODS)),
}


def not_installed_message(name: str, kind: str) -> str | None:
    """What to say when ``name`` (a ``kind``: method or filter) is not registered but one of
    augkit's own plugins provides it; None when none does."""
    known = KNOWN_STEPS.get(name)
    if known is None or known.kind != kind:
        return None
    return f"{kind} {name!r} is provided by {known.distribution}, which is not installed: {known.install}"
