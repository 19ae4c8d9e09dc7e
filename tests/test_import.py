"""``import augkit`` stays light: no pandas, numpy, torch or transformers at import."""

import subprocess
import sys


def test_import_augkit_loads_no_heavy_dependency():
    code = (
        "import sys, augkit; "
        "heavy = [m for m in ('torch', 'transformers', 'pandas', 'numpy', 'datasets', 'nltk') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_public_api_is_explicit():
    import augkit

    for name in augkit.__all__:
        assert hasattr(augkit, name), name
