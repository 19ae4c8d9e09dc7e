"""The parabank builder's and back-translation's exact outputs on real BANKING77 sentences,
frozen before their duplicate and edit-ratio rules became options of the ``dedup`` and
``edit_ratio`` filters (issue 14): the same input must keep giving the same pairs, counts and
candidates.

The expected file was written by running this module as a script at commit 623a08e::

    AUGKIT_SHARED_DATA=/path/to/shared/data NLTK_DATA=.cache/nltk_data \
        .venv/bin/python plugins/augkit-backtranslation/tests/test_frozen_rule_outputs_backtranslation.py

Three kinds of candidates reach the rules: the embedded Bergamot translator's (one per
sentence, real), and offline lists built from each sentence by seeded EDA plus copies of the
sentence that differ only in case, spacing or final punctuation (many per sentence, so copies,
repeats and near-copies all occur), fed through a generate-only model (parabank) and as scored
round-trip candidates (back-translation's selection).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

EXPECTED = Path(__file__).parent / "data" / "frozen_rule_outputs.json"
#: Sentences of BANKING77's test set: bergamot does about 20 round trips a second.
BERGAMOT_SENTENCES = 30
OFFLINE_SENTENCES = 40
EDIT_RATIOS = (0.0, 0.12, 0.3)


def offline_candidates(sentence: str, seed: int) -> list[str]:
    """Seeded EDA outputs (asked for more than it can vary) and the sentence again up to case,
    spacing and final punctuation: what every duplicate and edit-ratio rule must decide on."""
    import augkit

    eda = augkit.augment([sentence], "eda", n=6, seed=seed, alpha_sr=0.05, alpha_ri=0.05, alpha_rs=0.05, p_rd=0.05)[0]
    variants = [sentence.upper(), f"  {sentence}  ", sentence.rstrip("?.!"), sentence.lower() + "?", sentence.replace(" ", "  ", 1)]
    ordered = []
    for position, text in enumerate(eda):
        ordered.append(text)
        if position < len(variants):
            ordered.append(variants[position])
        ordered.append(text.lower())  # a repeat up to case
    return ordered + variants[len(eda):] + [""]


class ListedModel:
    """Generates the listed candidates of each pivot text; cannot score (like Bergamot)."""

    def __init__(self, outputs: dict[str, list[str]]):
        self.outputs = outputs

    def generate(self, texts, *, num_beams, num_return, **options):
        from augkit.models import GenerationResult

        return GenerationResult([self.outputs[text][:num_return] for text in texts])


def pairs_of(result) -> dict[str, Any]:
    return {
        "pairs": [[p.row, p.paraphrase, p.translation, round(p.edit_ratio, 9)] for p in result.pairs],
        "counts": result.counts,
        "summary": result.summary(),
    }


def rule_outputs(sentences: list[str]) -> dict[str, Any]:
    """Every case's outputs, as JSON-ready values."""
    from augkit_backtranslation.augmenter import select_candidates
    from augkit_backtranslation.bergamot import BergamotEngine
    from augkit_backtranslation.candidates import RoundTripCandidate
    from augkit_backtranslation.parabank import (
        BergamotDirection,
        build_parabank,
        filter_candidates,
    )

    import augkit

    outputs: dict[str, Any] = {}
    engine = BergamotEngine(threads=2)
    bergamot = sentences[:BERGAMOT_SENTENCES]
    outputs["parabank-bergamot"] = pairs_of(build_parabank(
        bergamot, to_language_model=BergamotDirection("pt-en", engine), from_language_model=BergamotDirection("en-pt", engine),
    ))
    for ratio in (0.12, 0.3):
        outputs[f"backtranslation-bergamot-min_edit_ratio={ratio}"] = augkit.augment(
            bergamot, "backtranslation", n=1, seed=0, min_edit_ratio=ratio)

    offline = sentences[:OFFLINE_SENTENCES]
    lists = {sentence: offline_candidates(sentence, seed) for seed, sentence in enumerate(offline)}
    model = ListedModel(lists)
    for ratio in EDIT_RATIOS:
        outputs[f"parabank-offline-min_edit_ratio={ratio}"] = pairs_of(build_parabank(
            offline, offline, to_language_model=model, from_language_model=model, k=40, min_edit_ratio=ratio,
        ))
        filtered = {}
        for sentence in offline:
            kept, dropped = filter_candidates(sentence, lists[sentence], min_edit_ratio=ratio)
            filtered[sentence] = [[[c.text, round(c.edit_ratio, 9)] for c in kept], dropped]
        outputs[f"filter_candidates-min_edit_ratio={ratio}"] = filtered
        selected = {}
        for sentence in offline:
            scored = [RoundTripCandidate(text, "xx", "", score=-position / 10) for position, text in enumerate(lists[sentence])]
            unscored = [RoundTripCandidate(text, "pt", "") for text in lists[sentence]]
            selected[sentence] = [
                [[c.text, c.scores] if isinstance(c, augkit.Candidate) else c for c in select_candidates(sentence, scored, 4, ratio)],
                select_candidates(sentence, unscored, 3, ratio),
            ]
        outputs[f"select_candidates-min_edit_ratio={ratio}"] = selected
    return outputs


def test_parabank_and_backtranslation_outputs_are_those_frozen_at_623a08e(banking77_sentences):
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    actual = json.loads(json.dumps(rule_outputs(list(dict.fromkeys(banking77_sentences)))))
    counts = expected["parabank-offline-min_edit_ratio=0.12"]["counts"]
    assert min(counts["copies"], counts["duplicates"], counts["edit_ratio"], counts["blank"]) > 0  # every rule is exercised
    assert actual.keys() == expected.keys()
    for name in expected:
        assert actual[name] == expected[name], name


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    import pandas as pd

    from conftest import SHARED_DATA

    texts = pd.read_csv(SHARED_DATA / "banking77" / "polyai" / "test.csv")["text"].head(200).tolist()
    EXPECTED.parent.mkdir(exist_ok=True)
    EXPECTED.write_text(json.dumps(rule_outputs(list(dict.fromkeys(texts))), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {EXPECTED}")
