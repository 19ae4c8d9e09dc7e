"""The ``dedup`` and ``edit_ratio`` filters' exact outputs on real BANKING77 sentences, frozen
before they became the one duplicate rule and the one edit-ratio rule of augkit (issue 14):
their old behaviour must stay the default.

The expected file was written by running this module as a script at commit 623a08e::

    AUGKIT_SHARED_DATA=/path/to/shared/data NLTK_DATA=.cache/nltk_data \
        .venv/bin/python tests/filters/test_frozen_rule_outputs.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

EXPECTED = Path(__file__).parents[1] / "fixtures" / "frozen_rule_outputs.json"
SENTENCES = 40
#: Pipelines whose filters are the rules; EDA with small rates repeats itself often.
PIPELINES = (
    "eda(alpha_sr=0.05,alpha_ri=0.05,alpha_rs=0.05,p_rd=0.05)",
    "eda(alpha_sr=0.05,alpha_ri=0.05,alpha_rs=0.05,p_rd=0.05)|dedup(ignore_case=True)",
    "eda|edit_ratio(min=0.2)",
    "eda|edit_ratio(min=0.1,max=0.4,level=word)",
    "aeda+eda|dedup(ignore_case=True)|edit_ratio",
)


def rule_outputs(sentences: list[str]) -> dict[str, Any]:
    import augkit

    return {spec: augkit.augment(sentences, spec, n=6, seed=0) for spec in PIPELINES}


def test_dedup_and_edit_ratio_outputs_are_those_frozen_at_623a08e(banking77_sentences):
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    actual = rule_outputs(list(dict.fromkeys(banking77_sentences))[:SENTENCES])
    assert actual.keys() == expected.keys()
    for spec in expected:
        assert actual[spec] == expected[spec], spec


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import pandas as pd

    from conftest import SHARED_DATA

    texts = pd.read_csv(SHARED_DATA / "banking77" / "polyai" / "test.csv")["text"].head(200).tolist()
    EXPECTED.write_text(json.dumps(rule_outputs(list(dict.fromkeys(texts))[:SENTENCES]), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {EXPECTED}")
