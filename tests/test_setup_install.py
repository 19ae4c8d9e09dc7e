"""scripts/pip_install.py: uv is handed the package sources pip is configured with."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from conftest import REPO

spec = importlib.util.spec_from_file_location("pip_install", REPO / "scripts" / "pip_install.py")
pip_install = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pip_install)


def pip_config_list(**environment: str) -> list[str]:
    import os

    done = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True,
                          env={**os.environ, **environment})
    return done.stdout.splitlines()


def test_a_pip_variable_overrides_the_configuration_files_and_reaches_uv():
    listed = pip_config_list(PIP_INDEX_URL="https://mirror.example/simple", PIP_FIND_LINKS="/wheels/a /wheels/b")
    options, _ = pip_install.uv_arguments(pip_install.pip_settings(listed))
    assert options[options.index("--index-url") + 1] == "https://mirror.example/simple"
    assert [options[i + 1] for i, option in enumerate(options) if option == "--find-links"] == ["/wheels/a", "/wheels/b"]


def test_every_source_pip_reads_on_this_machine_is_given_to_uv():
    settings = pip_install.pip_settings(pip_config_list())
    options, environment = pip_install.uv_arguments(settings)
    for pip_name, uv_option in pip_install.LISTED_OPTIONS:
        for value in settings.get(pip_name, "").split():
            assert value in [options[i + 1] for i, option in enumerate(options) if option == uv_option], (pip_name, value)
    assert environment.get("SSL_CERT_FILE") == settings.get("cert")


def test_install_and_global_sections_rank_below_the_environment():
    lines = ["global.index-url='https://global/simple'", "install.index-url='https://install/simple'",
             "global.extra-index-url='file:///x'", ":env:.index-url='https://env/simple'", "user.index-url='x'"]
    assert pip_install.pip_settings(lines) == {"index-url": "https://env/simple", "extra-index-url": "file:///x"}
    assert pip_install.pip_settings(lines[:2]) == {"index-url": "https://install/simple"}


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_a_failed_install_exits_non_zero_naming_the_command(installer, monkeypatch):
    """Both installers: nothing can be found without an index, and the script says which
    command failed instead of going on."""
    monkeypatch.setenv("AUGKIT_INSTALLER", installer)
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "pip_install.py"), "--dry-run", "--no-index",
                           "augkit-no-such-distribution"], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "pip_install:" in done.stderr and "augkit-no-such-distribution" in done.stderr and "failed (exit" in done.stderr
