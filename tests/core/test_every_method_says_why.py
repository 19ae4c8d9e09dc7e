"""Every built-in method says why a row got no augmentation (issue 35): run through
:func:`augkit.augment_with_report` on BANKING77 validation rows read by no other test, with the
tiny models of the conftest (or a scripted chat server, or nlpaug models built from BANKING77),
each method's rows without output are counted by reason, the counts add up to the rows without
augmentation, and no reason is the generic "augmenter returned nothing".

The rows include what leaves each method without output: a bare "?" (no words for EDA and AEDA,
no keyword for ParaMac), a reaction "👍" (no keyword for POINTER), a text of short words
(nothing for nlpaug's character methods), texts of one sentence (nothing for nlpaug's sentence
mover), and the models' own faults (loops, copies, an oracle that finds no relation, a reply
without a JSON list)."""

from __future__ import annotations

import pandas as pd
import pytest

import augkit
from augkit.pipeline.run import NOTHING_GENERATED
from conftest import BUILT_IN_METHODS, SLOW_METHODS, registered_built_in_methods

#: Lines of BANKING77's validation split (0-based): two sentences, twelve questions about
#: topping up and physical cards, and "fix my top up".
ROWS = [1215, *range(1231, 1243), 1331]
#: Inputs a method meets in real data that leave it nothing to work on.
EDGE_TEXTS = ["?", "👍"]


@pytest.fixture(scope="module")
def rows(shared_data) -> pd.DataFrame:
    folder = shared_data / "banking77" / "jianguoz" / "valid"
    texts = (folder / "seq.in").read_text(encoding="utf-8").splitlines()
    labels = (folder / "label").read_text(encoding="utf-8").splitlines()
    frame = pd.DataFrame({"text": [texts[i] for i in ROWS], "label": [labels[i] for i in ROWS]})
    edges = pd.DataFrame({"text": EDGE_TEXTS, "label": [labels[ROWS[-1]]] * len(EDGE_TEXTS)})
    return pd.concat([frame, edges], ignore_index=True)


#: Methods that leave no row of these without output: a continuation always adds text, and the
#: random translation models never give the text back.
EVERY_ROW_CHANGED = {"nlpaug.contextual_sentence", "nlpaug.back_translation"}
#: Methods whose reasons do not start with their name: none.
UNPREFIXED: set[str] = set()
#: Reasons the pipeline gives, whatever the method.
PIPELINE_REASONS = ("all candidates removed by filter ", "augmentation failed (")


def test_every_registered_built_in_method_is_checked_here():
    assert registered_built_in_methods() == set(BUILT_IN_METHODS)


@pytest.mark.parametrize("method", [
    pytest.param(name, marks=pytest.mark.slow) if name in SLOW_METHODS else name for name in BUILT_IN_METHODS])
def test_the_reasons_a_method_gives_add_up_to_its_rows_without_augmentation(method, rows, request):
    params = BUILT_IN_METHODS[method](request.getfixturevalue)
    out, report = augkit.augment_with_report(rows, method, n=2, seed=0, label_column="label", **params)
    augmented = out[out["augkit_method"].notna()]["augkit_source"].nunique() if "augkit_method" in out else 0
    reasons = report.without_augmentation
    assert augmented == report.rows_augmented
    assert sum(reasons.values()) == len(rows) - augmented, reasons
    assert bool(reasons) != (method in EVERY_ROW_CHANGED), f"{method}: {dict(reasons)}"
    assert NOTHING_GENERATED not in reasons and "no candidate" not in reasons, reasons
    if method not in UNPREFIXED:
        for reason in reasons:
            assert reason.startswith((f"{method}: ", *PIPELINE_REASONS)), reason
            assert not reason.startswith("augmentation failed (") or f"({method}: " in reason, reason
    for reason, count in reasons.items():
        assert f"{count} {reason}" in report.summary()
