"""What the augkit-llm tests share."""

from __future__ import annotations

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def rows(shared_data) -> pd.DataFrame:
    """12 BANKING77 test rows of three labels, 4 each."""
    folder = shared_data / "banking77" / "jianguoz" / "test"
    frame = pd.DataFrame({"text": (folder / "seq.in").read_text().splitlines(),
                          "label": (folder / "label").read_text().splitlines()})
    labels = frame["label"].drop_duplicates().head(3)
    return frame[frame["label"].isin(labels)].groupby("label").head(4).reset_index(drop=True)
