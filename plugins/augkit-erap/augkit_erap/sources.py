"""Where ERAP's paraphrases come from: a relation-controlled seq2seq generator (the relation
as a control token on its input, section 2.1), or samples of any augkit method to re-rank
(the RR baselines of section 4.1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from augkit.plugin import (
    BatchContext,
    GeneratedRow,
    InvalidParameterError,
    ModelNotAvailableError,
    RowProtection,
    n_named_as,
)
from augkit_erap.relations import controlled_input, has_control_tokens

#: Said when no generator is given: there is no public ERAP checkpoint to default to.
NO_GENERATOR = (
    "erap needs a relation-controlled generator and no public ERAP checkpoint exists: train one with "
    "`augkit train erap --table PAIRS.csv -o DIR` (then -p generator=DIR), or re-rank the samples of any installed method "
    "instead with -p sample_from=backtranslation (RR mode)"
)
#: Why a text got no paraphrase from the generator, in the words of the run's summary.
ONLY_COPIES = "erap: the generator's paraphrases all repeat the text (or are empty)"


class ControlledGenerator:
    """A seq2seq paraphraser trained with ERAP's control tokens (``augkit train erap``),
    on augkit's seq2seq runtime: batched, and seeded per text when sampling."""

    def __init__(self, spec: str, *, num_beams: int = 4, sample: bool = False, top_p: float = 0.9,
                 max_new_tokens: int | None = None, device: str = "auto"):
        self.spec = spec
        self.num_beams = num_beams
        self.sample = sample
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens
        self.device = device
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            from augkit.plugin import load_seq2seq

            model = load_seq2seq(self.spec, device=self.device)
            if not has_control_tokens(model.tokenizer):
                raise ModelNotAvailableError(
                    f"generator {self.spec!r} has no ERAP relation tokens (<erap_equivalence>, <erap_forward>, "
                    "<erap_reverse>), so it cannot be told the relation: use a folder made by `augkit train erap`, or "
                    "re-rank its samples with -p sample_from=... instead"
                )
            self._model = model
        return self._model

    def paraphrase(self, texts: Sequence[str], relations: Sequence[str], n: int, seeds: Sequence[int]) -> list[list[str]]:
        """Up to ``n`` paraphrases of ``texts[i]`` under ``relations[i]``, distinct and unlike
        the text; beam search (``num_beams`` >= n), or nucleus sampling seeded by ``seeds[i]``."""
        if not texts:
            return []
        inputs = [controlled_input(text, relation) for text, relation in zip(texts, relations, strict=True)]
        result = self.model.generate(
            inputs, num_beams=1 if self.sample else max(self.num_beams, n), num_return=n, do_sample=self.sample,
            top_p=self.top_p if self.sample else None, seeds=list(seeds), max_new_tokens=self.max_new_tokens,
        )
        return [_distinct(text, outputs) or GeneratedRow([], reason=ONLY_COPIES)
                for text, outputs in zip(texts, result.texts, strict=True)]


class MethodSamples:
    """``k`` candidates per text from any augkit method or pipeline string
    (``"backtranslation"``, ``"backtranslation+eda"``), each text run with its own seed so
    that its candidates do not depend on the other texts of the batch."""

    def __init__(self, spec: str, k: int):
        from augkit.plugin import Pipeline

        self.spec = spec
        self.k = k
        self.pipeline = Pipeline.from_string(spec)
        if self.pipeline.preparation.name == "WHOLE":
            raise InvalidParameterError(
                f"sample_from={spec!r} needs to see every text of the run first (a label-conditioned method or a "
                "dataset-wide filter); use a method that rewrites one text at a time"
            )
        if self.pipeline.context_names:
            raise InvalidParameterError(f"sample_from={spec!r} reads other columns; use a method that rewrites the text alone")

    def sample(self, texts: Sequence[str], seeds: Sequence[int],
               protected: Sequence[RowProtection] | None = None) -> list[list[str]]:
        """The candidates of each text, at most ``k``, without copies of it; a text left with
        none comes back as an empty :class:`augkit.GeneratedRow` saying why. ``protected[i]``:
        text i's protected spans, given to the method (back-translation carries them as
        placeholders) and checked by its pipeline's ``protected`` step. The method's warnings
        about the count it was asked for name ``k``, which the user set (not the run's ``n``)."""
        out = []
        with n_named_as(self.k, f"num_return={self.k} samples per text (erap's num_return)"):
            for index, (text, seed) in enumerate(zip(texts, seeds, strict=True)):
                context = None if protected is None else BatchContext(protected=[protected[index]])
                candidates, reasons = self.pipeline.run([text], self.k, seed, context)
                found = _distinct(text, [c.text for c in candidates[0]])
                if not found:
                    why = reasons[0] or "only copies of the text"
                    found = GeneratedRow([], reason=f"erap: sample_from={self.spec!r} gave nothing ({why})")
                out.append(found)
        return out


def _distinct(source: str, texts: Sequence[str]) -> list[str]:
    seen, kept = {source.strip()}, []
    for text in texts:
        if text.strip() and text.strip() not in seen:
            seen.add(text.strip())
            kept.append(text)
    return kept
