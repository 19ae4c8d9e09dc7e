"""``synonyms="wordnet-all"`` is the EDA of before synonym modes, output for output."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[1]
FROZEN = PLUGIN / "tests" / "data" / "wordnet-all-outputs.json.gz"


@pytest.fixture(scope="module")
def freezer(shared_data):
    """tools/freeze_wordnet_all_outputs.py, the script that wrote the frozen outputs."""
    spec = importlib.util.spec_from_file_location("freeze_wordnet_all_outputs", PLUGIN / "tools" / "freeze_wordnet_all_outputs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.SHARED_DATA = shared_data
    return module


def test_wordnet_all_reproduces_the_original_eda_on_300_banking77_rows(freezer):
    frozen = json.loads(gzip.decompress(FROZEN.read_bytes()))
    texts = freezer.banking77_rows()
    assert texts == frozen["texts"]
    outputs = freezer.original_eda_outputs(texts)
    for name, _, _ in freezer.CONFIGURATIONS:
        differing = [row for row, (now, then) in enumerate(zip(outputs[name], frozen["outputs"][name])) if now != then]
        assert differing == [], f"{name}: rows {differing[:10]} differ from the original EDA"
    assert sum(len(row) for row in outputs["default"]) > 0.95 * 4 * len(texts)
