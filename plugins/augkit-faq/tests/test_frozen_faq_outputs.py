"""paraphrase_faq's exact outputs on real FAQ slices, frozen before its duplicate rule became an
option of the ``dedup`` filter (issue 14): the same seed must keep giving the same candidates,
statuses, scores and ranks.

The expected file was written by running this module as a script at commit 623a08e, and
written again for issue 35, when the ``entities`` screen began to learn names from the run's own
questions: 7 StackFAQ candidates that lose one ("Google", "Gmail") became ``meaning_changed``;
and when its screens began with ``repetition``: one EDA candidate caught in a loop ("Paste just
formatting text, not the the") became ``meaning_changed``, the ranks after it moving up by one;
every other candidate, status, score and rank was compared with the old file and found equal
(scores within the test's 2e-5)::

    AUGKIT_SHARED_DATA=/path/to/shared/data NLTK_DATA=.cache/nltk_data \
        .venv/bin/python plugins/augkit-faq/tests/test_frozen_faq_outputs.py

Generators are offline augkit methods (EDA, and Bergamot back-translation then EDA), and the
encoder is the real all-MiniLM-L6-v2, so the test runs in seconds.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

EXPECTED = Path(__file__).parent / "data" / "frozen_faq_outputs.json"
#: (name, corpus fixture, rows, generator, num_return): StackFAQ's and the COVID FAQ's first
#: questions, enough for duplicates (EDA often repeats itself or the question up to case and
#: punctuation) and for every status to occur.
CASES = (
    ("covid-eda-with-variants", "covid", 25, "variants", 8),
    ("stackfaq-eda-with-variants", "stackfaq", 12, "variants", 8),
    ("stackfaq-eda", "stackfaq", 12, "eda", 12),
    ("covid-backtranslation+eda", "covid", 10, "backtranslation+eda", 6),
)


class EdaWithVariants:
    """EDA's candidates, each followed by copies that differ from it or from the question only
    in letter case, spacing or final punctuation: what the FAQ's duplicate rule decides on."""

    name = "eda-with-variants"

    def __init__(self):
        from augkit_faq.generators import MethodParaphraser

        self.eda = MethodParaphraser("eda")

    def generate(self, questions, num_return, seeds, *, progress=False):
        rows = []
        for question, candidates in zip(questions, self.eda.generate(questions, num_return, seeds), strict=True):
            row = [question.upper(), question.rstrip("?") + " ?"]
            for text in candidates:
                row += [text, text.capitalize() + "?", f" {text}  ", text.replace(" ", "  ")]
            rows.append(row)
        return rows


def faq_outputs(corpora: dict[str, Any]) -> dict[str, Any]:
    """Every case's candidates table and augmented questions, as JSON-ready values."""
    from augkit_faq import paraphrase_faq

    outputs = {}
    for name, corpus, rows, generator, num_return in CASES:
        frame = corpora[corpus].iloc[:rows].copy()
        chosen = EdaWithVariants() if generator == "variants" else generator
        result = paraphrase_faq(frame, "question", "answer", generator=chosen, num_return=num_return, seed=0)
        candidates = result.candidates
        outputs[name] = {
            "candidates": [
                [record.candidate, record.status, _rounded(record.semantic), _rounded(record.label_integrity),
                 _whole(record.rank)]
                for record in candidates.itertuples(index=False)
            ],
            "questions": result.table["question"].tolist(),
            "summary": {key: value for key, value in result.summary.items() if key not in ("skipped", "notes")},
        }
    return outputs


def _whole(value: Any) -> int | None:
    import pandas as pd

    return None if pd.isna(value) else int(value)


def _rounded(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else round(value, 5)


def test_faq_outputs_are_those_frozen_at_623a08e(stackfaq, covid_faq):
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    actual = json.loads(json.dumps(faq_outputs({"stackfaq": stackfaq, "covid": covid_faq})))
    statuses = {status for case in expected.values() for _, status, *_ in case["candidates"]}
    assert {"duplicate", "accepted", "low_similarity"} <= statuses  # the duplicate rule is exercised
    assert actual.keys() == expected.keys()
    for name in expected:
        assert actual[name]["summary"] == expected[name]["summary"], name
        assert len(actual[name]["candidates"]) == len(expected[name]["candidates"]), name
        for got, want in zip(actual[name]["candidates"], expected[name]["candidates"], strict=True):
            assert got[:2] == want[:2] and got[4] == want[4], (name, got, want)
            for a, b in zip(got[2:4], want[2:4]):
                assert (a is None and b is None) or a == pytest.approx(b, abs=2e-5), (name, got, want)
        assert actual[name]["questions"] == expected[name]["questions"], name


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from benchmarks.faq.data import load_covid_faq, load_stackfaq
    from conftest import SHARED_DATA

    corpora = {"stackfaq": load_stackfaq(SHARED_DATA).faq, "covid": load_covid_faq(SHARED_DATA).faq}
    EXPECTED.parent.mkdir(exist_ok=True)
    EXPECTED.write_text(json.dumps(faq_outputs(corpora), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {EXPECTED}")
