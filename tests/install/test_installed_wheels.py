"""augkit as a user installs it: the wheels of augkit and of every plugin, built from the
repository's files, installed (not editable) into fresh virtual environments, and used there
the way the README shows.

``make test`` runs this module with the rest; ``pytest -m installed`` runs it alone. An editable
install reads the source tree, so it hides a package-data file left out of a wheel, a missing
dependency or an entry point that only the tree has; these tests see the wheel alone.

Two environments:
- bare: ``pip install dist/augkit-*.whl`` and nothing else: the README's first example prints
  its augmented text, ``augkit list`` shows EDA and AEDA, a method of a plugin not installed
  says how to install it;
- all: ``pip install 'augkit[all]'`` from the built wheels and the registries: every plugin
  is there, and the README's Python and shell examples that need no download run on shared
  data, ``augkit info`` answers for every method, ``augkit serve`` serves its page and assets,
  and ``import augkit`` loads no torch.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import pytest

from augkit.registry.known import KNOWN_STEPS
from conftest import REPO, free_port, plugin_distribution_folders

pytestmark = [pytest.mark.installed, pytest.mark.slow]

#: Installs and commands of a fresh environment: generous, for a busy two-core machine.
INSTALL_TIMEOUT = 1200
COMMAND_TIMEOUT = 600

#: README lines of its Python block that these tests do not run, each with the reason. A line
#: added to the README is run unless it is listed here.
README_PYTHON_NOT_RUN = {
    "sick": "stands for the user's own pair table (the NLI pair example); tested in tests/core",
    'engine="transformers"': "downloads Helsinki-NLP translation models from the Hugging Face hub",
}
#: README shell commands not run here, each with the reason.
README_SHELL_NOT_RUN = {
    "augkit serve": "a server: test_serve_answers_with_its_page_and_assets starts it",
    "augkit train paraphraser": "downloads t5-small from the Hugging Face hub to fine-tune it",
}


def project_folders() -> list[Path]:
    """The repository's distributions: augkit, and each plugin distribution's folder."""
    return [REPO, *plugin_distribution_folders()]


def tracked_files() -> list[str]:
    """The repository's files as a clean clone has them (tracked, and new ones not ignored)."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout
    return [name for name in listed.split("\0") if name and (REPO / name).is_file()]


def run(command: list[str], *, cwd: Path, env: dict[str, str], timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess:
    """Run ``command``; fail naming it, its exit code and its output when it fails."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{shlex.join(command)} exited {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done


def user_environment(venv: Path) -> dict[str, str]:
    """The environment of a user of ``venv``: its bin first, nothing of this checkout on the
    path, nothing downloaded from the Hugging Face hub. Bytecode is written: uv installs none,
    and each of the ~40 commands run here would otherwise compile torch and transformers again."""
    env = {name: value for name, value in os.environ.items()
           if name not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "AUGKIT_MODEL_DIR", "PYTHONDONTWRITEBYTECODE"}}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    """The wheels of augkit and every plugin, built from a copy of the repository's files."""
    source = tmp_path_factory.mktemp("source")
    for name in tracked_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, source / name)
    dist = tmp_path_factory.mktemp("dist")
    folders = [source / folder.relative_to(REPO) for folder in project_folders()]
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--wheel-dir", str(dist),
         *map(str, folders)], cwd=source, env=dict(os.environ), timeout=INSTALL_TIMEOUT)
    return dist


def built(dist: Path) -> dict[str, str]:
    """Each built wheel's distribution name and version, from its file name."""
    found = {}
    for wheel in dist.glob("*.whl"):
        name, version = wheel.name.split("-")[:2]
        found[name.replace("_", "-")] = version
    return found


def fresh_venv(path: Path) -> Path:
    run([sys.executable, "-m", "venv", str(path)], cwd=path.parent, env=dict(os.environ))
    return path


@pytest.fixture(scope="module")
def bare(wheels, tmp_path_factory) -> Path:
    """A virtual environment with ``pip install dist/augkit-*.whl`` and nothing else."""
    venv = fresh_venv(tmp_path_factory.mktemp("bare") / "venv")
    (wheel,) = wheels.glob("augkit-*.whl")
    run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        cwd=venv.parent, env=user_environment(venv), timeout=INSTALL_TIMEOUT)
    return venv


@pytest.fixture(scope="module")
def full(wheels, tmp_path_factory) -> Path:
    """A virtual environment with ``pip install 'augkit[all]'`` from the built wheels and the
    registries. Each built distribution is pinned to its wheel, so a same-named release on
    an index can never stand in for it; torch to the CPU build of .ci/constraints.txt."""
    folder = tmp_path_factory.mktemp("full")
    venv = fresh_venv(folder / "venv")
    pins = folder / "built-wheels.txt"
    pins.write_text("".join(f"{name}=={version}\n" for name, version in sorted(built(wheels).items())))
    run([str(venv / "bin" / "python"), str(REPO / "scripts" / "pip_install.py"), "-c", str(REPO / ".ci" / "constraints.txt"),
         "-c", str(pins), "--find-links", str(wheels), "augkit[all]"],
        cwd=folder, env=user_environment(venv), timeout=INSTALL_TIMEOUT)
    return venv


def python_in(venv: Path, code: str, *, cwd: Path) -> subprocess.CompletedProcess:
    return run([str(venv / "bin" / "python"), "-c", code], cwd=cwd, env=user_environment(venv))


def augkit_in(venv: Path, *arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    return run([str(venv / "bin" / "augkit"), *arguments], cwd=cwd, env=user_environment(venv))


def readme_blocks(language: str) -> list[str]:
    """The fenced blocks of ``language`` after the README's title, in order."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    body = readme.split("\n# augkit\n", 1)[1]
    return re.findall(rf"^```{language}\n(.*?)^```", body, re.MULTILINE | re.DOTALL)


def readme_block(language: str) -> str:
    """The first fenced block of ``language`` after the README's title."""
    return readme_blocks(language)[0]


# -- the wheels ----------------------------------------------------------------------------


def test_a_wheel_is_built_for_augkit_and_each_plugin_with_one_version(wheels):
    names = built(wheels)
    expected = {tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
                for folder in project_folders()}
    assert set(names) == expected
    assert set(names.values()) == {tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]}


#: The package data augkit's wheel must carry: EDA's WordNet lexicon, the common English words
#: the entities filter reads, the typed-API marker.
PACKAGE_DATA = ("augkit_eda/data/wordnet-3.0-lexicon.json.gz", "augkit/filters/data/common-english-words.txt.gz",
                "augkit/py.typed")


def test_augkits_wheel_carries_its_package_data(wheels):
    (wheel,) = wheels.glob("augkit-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert set(PACKAGE_DATA) <= names, sorted(set(PACKAGE_DATA) - names)


# -- pip install augkit, alone -------------------------------------------------------------


def test_the_bare_wheel_runs_the_readmes_first_example(bare, tmp_path):
    block = readme_block("python")
    call, shown = re.search(r"^(augkit\.augment\(\[.*\))\n# (\[\[.*\]\])$", block, re.MULTILINE).groups()
    printed = python_in(bare, f"import augkit\nprint(repr({call}))", cwd=tmp_path).stdout.strip()
    assert ast.literal_eval(printed) == ast.literal_eval(shown)
    site = python_in(bare, "import augkit, augkit_eda; print(augkit.__file__); print(augkit_eda.__file__)", cwd=tmp_path)
    assert all(str(bare) in line for line in site.stdout.split()), site.stdout  # the wheel's files, not the tree's


def test_the_bare_wheel_lists_the_baselines_and_names_the_extra_of_a_missing_method(bare, tmp_path):
    listed = augkit_in(bare, "list", cwd=tmp_path).stdout
    methods = {line.split()[0] for line in listed.split("\n\n")[0].splitlines()[1:]}
    assert {"eda", "aeda"} <= methods and "paramac" not in methods
    (tmp_path / "data.csv").write_text("text\nhow would you say fly in italian\n")
    missing = subprocess.run([str(bare / "bin" / "augkit"), "augment", "data.csv", "-m", "paramac", "-o", "out.csv"],
                             cwd=tmp_path, env=user_environment(bare), capture_output=True, text=True)
    assert missing.returncode != 0
    assert "'paramac' is provided by augkit-paramac, which is not installed: pip install 'augkit[paramac]'" in missing.stderr
    assert not (tmp_path / "out.csv").exists()


#: The filters, scorers and rankers that need no model: a bare install runs them all.
NO_MODEL_STEPS = ("dedup", "negation", "numbers", "entities", "question", "length", "edit_ratio", "repetition",
                  "bleu_to_source", "diversity", "top_k", "near_duplicates")  # near_duplicates last, as it must be


def test_the_bare_wheel_runs_every_step_that_needs_no_model(bare, readme_data, tmp_path):
    pipeline = "eda+aeda|" + "|".join(NO_MODEL_STEPS)
    done = augkit_in(bare, "augment", str(readme_data / "data.csv"), "-m", pipeline, "-n", "4", "--seed", "0",
                     "--label-column", "label", "-o", "out.csv", cwd=tmp_path)
    summary = done.stderr.strip().splitlines()[-1]
    assert all(f" by {step}" in summary for step in NO_MODEL_STEPS), summary
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len([row for row in rows if not row["augkit_method"]]) == 32 and len(rows) > 32, summary


@pytest.mark.parametrize("package_data", PACKAGE_DATA[:2])
def test_a_package_data_file_missing_from_the_install_stops_the_run_naming_it(bare, readme_data, tmp_path, package_data):
    site = python_in(bare, "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).stdout.strip()
    shipped = Path(site) / package_data
    hidden = shipped.with_name(shipped.name + ".hidden")
    shipped.rename(hidden)
    try:
        done = subprocess.run([str(bare / "bin" / "augkit"), "augment", str(readme_data / "data.csv"), "-m", "eda|entities",
                               "-o", "out.csv"], cwd=tmp_path, env=user_environment(bare), capture_output=True, text=True)
    finally:
        hidden.rename(shipped)
    assert done.returncode == 2, done.stderr
    assert str(shipped) in done.stderr and "pip install --force-reinstall augkit" in done.stderr
    assert not (tmp_path / "out.csv").exists()


def test_the_bare_wheel_names_the_extra_a_model_backed_filter_needs(bare, readme_data, tmp_path):
    done = subprocess.run([str(bare / "bin" / "augkit"), "augment", str(readme_data / "data.csv"), "-m", "eda|semantic",
                           "-o", "out.csv"], cwd=tmp_path, env=user_environment(bare), capture_output=True, text=True)
    assert done.returncode == 2
    assert "needs torch, transformers, sentence-transformers to load its model" in done.stderr
    assert "pip install 'augkit[quality]'" in done.stderr and not (tmp_path / "out.csv").exists()


# -- pip install 'augkit[all]' -------------------------------------------------------------


def test_all_installs_every_plugin_from_its_wheel(full, wheels, tmp_path):
    shown = python_in(full, "import importlib.metadata as m, json; print(json.dumps({d.metadata['Name']: "
                            "[d.version, d.read_text('direct_url.json')] for d in m.distributions()}))", cwd=tmp_path)
    installed = json.loads(shown.stdout)
    for name, version in built(wheels).items():
        assert installed[name][0] == version, name
        assert installed[name][1] is None or '"editable": true' not in installed[name][1], name  # not editable
    assert installed["torch"][0].startswith("2.13.0")


def test_import_augkit_loads_no_torch(full, tmp_path):
    python_in(full, "import sys, augkit, augkit.plugin; import augkit_eda, augkit_aeda\n"
                    "heavy = sorted({'torch', 'transformers', 'ray', 'gradio'} & set(sys.modules))\n"
                    "assert not heavy, heavy", cwd=tmp_path)


def test_info_answers_for_every_method(full, tmp_path):
    listed = augkit_in(full, "list", cwd=tmp_path).stdout
    methods = [line.split()[0] for line in listed.split("\n\n")[0].splitlines()[1:]]
    assert {name for name, known in KNOWN_STEPS.items() if known.kind == "method"} <= set(methods)
    script = "".join(f"augkit info {shlex.quote(name)} > {shlex.quote(name)}.txt || exit 1\n" for name in methods)
    run(["bash", "-c", script], cwd=tmp_path, env=user_environment(full))
    for name in methods:
        assert name in (tmp_path / f"{name}.txt").read_text(), name


@pytest.fixture(scope="module")
def readme_data(shared_data, tmp_path_factory) -> Path:
    """The files the README's shell examples name, sliced from shared data: data.csv and
    big.csv (CLINC150 test rows of four intents), slots.csv (BANKING77 rows of three intents
    that say "card", the phrase each must keep), sentences.csv, faq.csv (COVID FAQ questions), q1.txt and q2.txt."""
    folder = tmp_path_factory.mktemp("readme")
    clinc = shared_data / "clinc150" / "jianguoz" / "test"
    texts = (clinc / "seq.in").read_text(encoding="utf-8").splitlines()
    labels = (clinc / "label").read_text(encoding="utf-8").splitlines()
    rows, counts = [], {}
    for text, label in zip(texts, labels, strict=True):
        if label in {"translate", "transfer", "timer", "weather"} and counts.get(label, 0) < 8:
            rows.append((text, label))
            counts[label] = counts.get(label, 0) + 1
    for name, kept in (("data.csv", rows), ("big.csv", rows * 3)):
        with open(folder / name, "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows([("text", "label"), *kept])
    with open(shared_data / "banking77" / "polyai" / "test.csv", newline="", encoding="utf-8") as handle:
        cards = [row for row in csv.DictReader(handle) if " card " in f" {row['text']} "
                 and row["category"] in {"card_arrival", "lost_or_stolen_card", "card_not_working"}]
    cards = [row for category in ("card_arrival", "lost_or_stolen_card", "card_not_working")
             for row in [row for row in cards if row["category"] == category][:6]]
    with open(folder / "slots.csv", "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([("text", "label", "slots"), *((row["text"], row["category"], "card") for row in cards)])
    with open(folder / "sentences.csv", "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([("text",), *((text,) for text, _ in rows[:6])])
    faq = json.loads((shared_data / "covidfaq_jhu" / "bert-faq" / "query_answer_pairs.json").read_text(encoding="utf-8"))
    pairs = list({item["question"].strip(): item["answer"].strip() for item in faq if item["query_type"] == "faq"}.items())[:5]
    with open(folder / "faq.csv", "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([("question", "answer"), *pairs])
    (folder / "q1.txt").write_text("".join(text + "\n" for text, _ in rows[:4]))
    (folder / "q2.txt").write_text("".join(text + "\n" for text, _ in rows[4:8]))
    return folder


def readme_python_statements() -> tuple[list[str], list[str]]:
    """The README Python block's statements (import and first example aside): those these
    tests run, and those :data:`README_PYTHON_NOT_RUN` leaves out."""
    block = readme_block("python")
    statements = [ast.get_source_segment(block, node) for node in ast.parse(block).body]
    run_here, left_out = [], []
    for statement in statements:
        if statement.startswith("import ") or statement.startswith("augkit.augment(["):
            continue
        (left_out if any(marker in statement for marker in README_PYTHON_NOT_RUN) else run_here).append(statement)
    return run_here, left_out


def test_the_readmes_python_examples_run(full, readme_data, tmp_path):
    statements, left_out = readme_python_statements()
    assert len(statements) >= 8 and len(left_out) == len(README_PYTHON_NOT_RUN)
    script = ["import augkit, pandas as pd",
              f"df = pd.read_csv({str(readme_data / 'slots.csv')!r})",
              "originals = df[['text', 'label']].values.tolist()",
              "def check(out, source):",
              "    kept = out[out['augkit_method'].isna()]",
              "    assert kept[['text', 'label']].values.tolist() == originals, source",
              "    made = out[out['augkit_method'].notna()]",
              "    assert len(made) > 0, source",
              "    assert all(made['label'].values == df.loc[made['augkit_source'], 'label'].values), source",
              "    print(len(made), 'augmented:', source[:60])"]
    for statement in statements:
        script += [statement, f"check(out, {statement!r})"]
    done = python_in(full, "\n".join(script), cwd=tmp_path)
    assert done.stdout.count(" augmented: ") == len(statements)


def readme_shell_commands() -> tuple[list[list[str]], list[list[str]]]:
    """The ``augkit`` commands of the README's shell blocks (comments cut): those run here and those
    :data:`README_SHELL_NOT_RUN` leaves out."""
    commands = [shlex.split(line, comments=True) for block in readme_blocks("sh") for line in block.splitlines()
                if line.startswith("augkit")]
    left_out = [command for command in commands if any(shlex.join(command).startswith(prefix) for prefix in README_SHELL_NOT_RUN)]
    return [command for command in commands if command not in left_out], left_out


def test_the_readmes_shell_examples_run(full, readme_data):
    commands, left_out = readme_shell_commands()
    assert len(commands) >= 10 and len(left_out) == len(README_SHELL_NOT_RUN)
    for command in commands:
        run(command, cwd=readme_data, env=user_environment(full))
    with open(readme_data / "slots-out.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    made = [row for row in rows if row["augkit_method"]]
    assert made and all("card" in row["text"].lower() for row in made)  # the protected slot survives the round trip
    assert (readme_data / "pairs.csv").stat().st_size > 0 and (readme_data / "faq-augmented.csv").stat().st_size > 0


def test_serve_answers_with_its_page_and_assets(full, tmp_path):
    port = free_port()
    server = subprocess.Popen([str(full / "bin" / "augkit"), "serve", "--port", str(port)], cwd=tmp_path,
                              env=user_environment(full), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = wait_for_page(f"http://127.0.0.1:{port}/", server)
        assert "<html" in page.lower()
        assets = sorted(set(re.findall(r"""(?:src|href)=["']([^"'#?]+\.(?:js|css))["']""", page)))
        assert any(asset.endswith(".js") for asset in assets) and any(asset.endswith(".css") for asset in assets), page[:2000]
        for asset in assets:
            with urllib.request.urlopen(urllib.parse.urljoin(f"http://127.0.0.1:{port}/", asset), timeout=30) as response:
                assert response.status == 200 and len(response.read()) > 1000, asset
    finally:
        server.terminate()
        server.wait(timeout=60)


def wait_for_page(url: str, server: subprocess.Popen, timeout: float = 180) -> str:
    """The page at ``url`` once the server answers; fails with its output if it exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"augkit serve exited {server.returncode}: {server.stdout.read()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.read().decode("utf-8")
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"augkit serve did not answer {url} within {timeout:.0f} s")
