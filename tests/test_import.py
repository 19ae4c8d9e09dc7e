"""``import augkit`` and ``import augkit.metrics`` stay light: no pandas, numpy, torch,
transformers or metric back-ends at import."""

import subprocess
import sys

import pytest

HEAVY = (
    "torch", "transformers", "pandas", "numpy", "datasets", "nltk",
    "sacrebleu", "rouge_score", "rapidfuzz", "sentence_transformers",
)


@pytest.mark.parametrize("module", ["augkit", "augkit.metrics", "augkit.evaluation", "augkit.cli", "augkit.filters", "augkit.encoders"])
def test_import_loads_no_heavy_dependency(module):
    code = (
        f"import sys, {module}; "
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_public_api_is_explicit():
    import augkit
    import augkit.metrics

    for package in (augkit, augkit.metrics):
        for name in package.__all__:
            assert hasattr(package, name), f"{package.__name__}.{name}"
