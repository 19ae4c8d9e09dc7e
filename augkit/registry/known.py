"""The methods and filters of augkit's own plugins, with the distribution and the extra that
install each: so that asking for one that is not installed says how to get it
("'paramac' is provided by augkit-paramac, which is not installed: pip install
'augkit[paramac]'"), and ``augkit list --all`` shows them.

EDA and AEDA are built into the augkit distribution (``pip install augkit`` augments with
no extra); the other plugins stay separate distributions (as llm's and datasette's do), each
bringing its own dependencies (torch, transformers, nlpaug...) only to those who ask for it.
docs/plugin-authors.md says why.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnownStep:
    """A step of one of augkit's own plugins: its ``kind`` (method or filter), the
    ``distribution`` that provides it and the core ``extra`` that installs that (None for the
    plugins built into augkit itself)."""

    kind: str
    distribution: str
    extra: str | None

    @property
    def install(self) -> str:
        """The command that installs it."""
        if self.extra is None:  # built in: missing only from a damaged install
            return "pip install --force-reinstall augkit"
        return f"pip install 'augkit[{self.extra}]'"

    @property
    def provided_by(self) -> str:
        """Who provides it, as the error for a missing step says it."""
        if self.extra is None:
            return "is built into augkit, but is not registered (a damaged install)"
        return f"is provided by {self.distribution}, which is not installed"


def _steps(distribution: str, extra: str | None, methods: tuple[str, ...] = (), filters: tuple[str, ...] = ()) -> dict:
    return {**{name: KnownStep("method", distribution, extra) for name in methods},
            **{name: KnownStep("filter", distribution, extra) for name in filters}}


#: nlpaug's augmenters through augkit-nlpaug (``nlpaug.<name>``).
NLPAUG_METHODS = ("antonym", "back_translation", "contextual", "contextual_sentence", "keyboard", "ocr", "random_char",
                  "random_sentence", "random_word", "reserved", "spelling", "split", "summarize", "synonym", "tfidf",
                  "word_embs")

#: Every method and filter of augkit's own plugins (``plugins/`` in the repository); a test
#: checks this table against what those plugins register.
KNOWN_STEPS: dict[str, KnownStep] = {
    **_steps("augkit", None, methods=("eda", "aeda")),
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
    return f"{kind} {name!r} {known.provided_by}: {known.install}"
