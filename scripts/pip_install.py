"""``pip install ARGS`` into the virtual environment running this script, done by uv.

`make setup` and `make test` install augkit, its nine plugins and their test tools (about 150
distributions, torch among them). pip fetches and unpacks them one at a time: 2 minutes from
a clean clone on a 2-core machine, 5 when it is busy. uv (https://docs.astral.sh/uv/) resolves
the same versions under the same constraints and installs them in parallel: 27 s (47 s busy;
docs/testing.md).

uv does not read pip's configuration, and a machine's package mirrors, wheel folders and
caps live there (pip.conf, ``PIP_*`` variables). So this script asks pip for its settings
(``pip config list``) and hands uv the same ones, and lets uv weigh every index as pip does
(``--index-strategy unsafe-best-match``). ``AUGKIT_INSTALLER=pip`` installs with pip itself.

Usage: ``.venv/bin/python scripts/pip_install.py -c .ci/constraints.txt -e . ...``
"""

from __future__ import annotations

import ast
import os
import shlex
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

#: The installer itself; its release is pinned in .ci/constraints.txt like everything else.
UV_REQUIREMENT = "uv"
CONSTRAINTS = Path(__file__).resolve().parent.parent / ".ci" / "constraints.txt"
#: pip's settings uv is given, as (pip's name, uv's option); each may hold several values.
LISTED_OPTIONS = (("index-url", "--index-url"), ("extra-index-url", "--extra-index-url"),
                  ("find-links", "--find-links"), ("constraint", "--constraint"),
                  ("trusted-host", "--allow-insecure-host"))
#: Where a setting may come from, weakest first: pip reads "install" over "global" and its
#: ``PIP_*`` variables (":env:") over both.
SECTIONS = ("global", "install", ":env:")


def pip_settings(config_lines: Iterable[str]) -> dict[str, str]:
    """pip's effective settings from the lines of ``pip config list``
    (``global.find-links='/opt/wheels'``), the stronger section winning.

    >>> pip_settings(["global.find-links='/a'", ":env:.find-links='/b'", "global.cert='/c.pem'"])
    {'find-links': '/b', 'cert': '/c.pem'}
    """
    found: dict[str, tuple[int, str]] = {}
    for line in config_lines:
        key, sep, quoted = line.strip().partition("=")
        section, dot, name = key.rpartition(".")
        if not (sep and dot) or section not in SECTIONS:
            continue
        strength = SECTIONS.index(section)
        if name not in found or strength >= found[name][0]:
            found[name] = (strength, ast.literal_eval(quoted))
    return {name: value for name, (_, value) in found.items()}


def uv_arguments(settings: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The uv options and environment variables that carry pip's ``settings``.

    >>> uv_arguments({"extra-index-url": "file:///a file:///b", "cert": "/c.pem"})
    (['--extra-index-url', 'file:///a', '--extra-index-url', 'file:///b'], {'SSL_CERT_FILE': '/c.pem'})
    """
    arguments: list[str] = []
    for pip_name, uv_option in LISTED_OPTIONS:
        for value in settings.get(pip_name, "").split():
            arguments += [uv_option, value]
    environment = {}
    if settings.get("cert"):
        environment["SSL_CERT_FILE"] = settings["cert"]
    if settings.get("default-timeout"):
        environment["UV_HTTP_TIMEOUT"] = settings["default-timeout"]
    return arguments, environment


def run(command: Sequence[str], environment: dict[str, str] | None = None) -> None:
    done = subprocess.run(command, env={**os.environ, **(environment or {})})
    if done.returncode:
        sys.exit(f"pip_install: {shlex.join(command)} failed (exit {done.returncode})")


def main(arguments: Sequence[str]) -> None:
    pip = [sys.executable, "-m", "pip"]
    if os.environ.get("AUGKIT_INSTALLER", "uv") == "pip":
        run([*pip, "install", "--quiet", *arguments])
        return
    run([*pip, "install", "--quiet", "-c", str(CONSTRAINTS), UV_REQUIREMENT])
    listed = subprocess.run([*pip, "config", "list"], capture_output=True, text=True, check=True).stdout.splitlines()
    options, environment = uv_arguments(pip_settings(listed))
    run([sys.executable, "-m", "uv", "pip", "install", "--quiet", "--python", sys.executable,
         "--index-strategy", "unsafe-best-match", *options, *arguments], environment)


if __name__ == "__main__":
    main(sys.argv[1:])
