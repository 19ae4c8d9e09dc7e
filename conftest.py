"""Fixtures shared by the core tests and the plugins' tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared real datasets (../shared/data, or $AUGKIT_SHARED_DATA)."""
    if not (SHARED_DATA / "banking77").is_dir():
        pytest.fail(f"shared data not found at {SHARED_DATA}; set AUGKIT_SHARED_DATA")
    return SHARED_DATA


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="session")
def banking77_10shot(shared_data):
    """BANKING77 10-shot training split (770 rows) as a DataFrame with text and label."""
    import pandas as pd

    folder = shared_data / "banking77" / "jianguoz" / "train_10"
    return pd.DataFrame({"text": read_lines(folder / "seq.in"), "label": read_lines(folder / "label")})


@pytest.fixture(scope="session")
def banking77_sentences(shared_data) -> list[str]:
    """The first 200 texts of the official BANKING77 test CSV."""
    import pandas as pd

    return pd.read_csv(shared_data / "banking77" / "polyai" / "test.csv")["text"].head(200).tolist()


@pytest.fixture(scope="session")
def installed_test_plugins(tmp_path_factory) -> Path:
    """Install the test plugin distributions (augkit-shout, augkit-broken) with pip into a
    folder on sys.path, so augkit finds them through their entry points exactly as it
    finds a plugin installed from PyPI. Returns that folder (for subprocess PYTHONPATH)."""
    import augkit

    target = tmp_path_factory.mktemp("site")
    fixtures = REPO / "tests" / "fixtures" / "plugins"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(fixtures / "augkit-shout"), str(fixtures / "augkit-broken")],
        check=True,
    )
    sys.path.insert(0, str(target))
    augkit.reset_registry()
    yield target
    sys.path.remove(str(target))
    augkit.reset_registry()
