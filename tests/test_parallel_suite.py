"""The suite runs on every core (``make test``: ``pytest -n <cores>``, ``--dist loadgroup``):
a worker keeps augkit's cache to itself, a fixture's model is built once for all workers (and
built again after a failed build), the tests of one resource (Ray, the served LLM, Chromium)
run on one worker, so do a module's (its module-scoped fixtures built once), and long tests
start first. Faults are caused: processes race for one build, a build raises, a small suite
really runs on two workers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO, build_shared

# A process racing for one build: it says it has started, then asks for the build; the build
# (run by whichever process gets the lock) waits until every racer has started, so the
# others are asking while it runs.
RACER = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from conftest import build_shared

root, name, racers, me = Path(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
(root / f"started-{me}").touch()

def build(folder):
    while len(list(root.glob("started-*"))) < racers:
        time.sleep(0.01)
    with open(root / "builds.log", "a") as log:
        log.write(me + "\\n")
    (folder / "weights").write_text("seeded", encoding="utf-8")
    return folder / "weights"

print(json.dumps(str(build_shared(root, name, build))))
"""


def test_a_worker_keeps_augkits_cache_in_its_own_temporary_folder(tmp_path_factory):
    from augkit.files.cache_root import cache_folder

    base = tmp_path_factory.getbasetemp()
    assert cache_folder("llm").is_relative_to(base), "a run would share ~/.cache/augkit with the user and other runs"


@pytest.mark.skipif("MAKELEVEL" not in os.environ, reason="checks what `make test` sets; this run did not come from make")
def test_make_test_saves_the_bytecode_its_processes_compile(tmp_path):
    """Under ``make test`` this worker, and a Python it starts, save the bytecode they compile
    (``PYTHONDONTWRITEBYTECODE`` unset), whatever the environment ``make`` was started in."""
    assert not sys.dont_write_bytecode
    module = tmp_path / "compiled_once.py"
    module.write_text("VALUE = 1\n")
    subprocess.run([sys.executable, "-c", "import compiled_once"], cwd=tmp_path, check=True)
    assert list((tmp_path / "__pycache__").glob("compiled_once.*.pyc"))


def test_processes_racing_for_one_build_get_one_build(tmp_path):
    racers = 3
    started = [subprocess.Popen([sys.executable, "-c", RACER, str(REPO), str(tmp_path), "tiny", str(racers), str(me)],
                                stdout=subprocess.PIPE, text=True) for me in range(racers)]
    results = [json.loads(process.communicate(timeout=120)[0]) for process in started]
    assert [process.returncode for process in started] == [0] * racers
    assert len((tmp_path / "builds.log").read_text().splitlines()) == 1, "built more than once"
    assert results == [str(tmp_path / "tiny" / "weights")] * racers
    assert (tmp_path / "tiny" / "weights").read_text() == "seeded"


def test_a_failed_build_leaves_nothing_and_the_next_caller_builds_afresh(tmp_path):
    def crash(folder):
        (folder / "half-written").write_text("x")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        build_shared(tmp_path, "tiny", crash)

    def build(folder):
        assert list(folder.iterdir()) == [], "the failed build's files are still there"
        (folder / "weights").write_text("seeded")
        return folder / "weights"

    assert build_shared(tmp_path, "tiny", build) == tmp_path / "tiny" / "weights"
    assert build_shared(tmp_path, "tiny", crash) == tmp_path / "tiny" / "weights"  # recorded: not built again


SMALL_SUITE = '''
import os
from pathlib import Path

import pytest

WHERE = Path(os.environ["WHERE"])


def record(name):
    (WHERE / name).write_text(os.environ.get("PYTEST_XDIST_WORKER", "none"))


@pytest.fixture(scope="session")
def chromium_browser():  # stands in for the real browser: only its name matters here
    return "browser"


@pytest.mark.parametrize("page", range(4))
def test_browser(chromium_browser, page):
    record(f"browser-{page}")


@pytest.mark.parametrize("row", range(6))
def test_plain(row):
    record(f"plain-{row}")


@pytest.mark.slow
def test_long():
    record("long")
'''


MODULE_WITH_A_TABLE = '''
import os
from pathlib import Path

import pytest

WHERE = Path(os.environ["WHERE"])


@pytest.fixture(scope="module")
def table():  # stands in for a table read or a model trained once per module
    with open(WHERE / "table-builds", "a") as builds:
        builds.write(os.environ.get("PYTEST_XDIST_WORKER", "none") + "\\n")
    return "table"


@pytest.mark.parametrize("row", range(6))
def test_row(table, row):
    (WHERE / f"table-{row}").write_text(os.environ.get("PYTEST_XDIST_WORKER", "none"))
'''


@pytest.fixture
def small_suite(tmp_path) -> Path:
    """A folder with the repository's conftest and pytest settings, and :data:`SMALL_SUITE`."""
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(REPO / "conftest.py", suite / "conftest.py")
    shutil.copy(REPO / "pyproject.toml", suite / "pyproject.toml")
    (suite / "test_small.py").write_text(textwrap.dedent(SMALL_SUITE), encoding="utf-8")
    (suite / "test_table.py").write_text(textwrap.dedent(MODULE_WITH_A_TABLE), encoding="utf-8")
    (tmp_path / "where").mkdir()
    return suite


def run_small_suite(suite: Path, *options: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "WHERE": str(suite.parent / "where")}
    environment.pop("PYTEST_XDIST_WORKER", None)  # this run's own workers set it
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--basetemp", str(suite.parent / "basetemp"), "test_small.py", "test_table.py", *options],
                          cwd=suite, capture_output=True, text=True, env=environment, timeout=300)


def test_the_tests_of_one_resource_run_on_one_worker(small_suite):
    done = run_small_suite(small_suite, "-n", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    where = {path.name: path.read_text() for path in (small_suite.parent / "where").iterdir() if path.name != "table-builds"}
    assert len(where) == 17
    browsers = {where[f"browser-{page}"] for page in range(4)}
    assert len(browsers) == 1, f"the browser tests ran on {sorted(browsers)}"
    # Three units of work (the browser group and two modules) on two workers: each starts with
    # one, so both are used, whichever of them takes the third.
    assert set(where.values()) == {"gw0", "gw1"}, "the small suite did not use both workers"


def test_a_modules_tests_run_on_one_worker_and_build_its_fixtures_once(small_suite):
    done = run_small_suite(small_suite, "-n", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    builds = (small_suite.parent / "where" / "table-builds").read_text().splitlines()
    assert len(builds) == 1, f"the module's table was built on {builds}"


def test_grouped_and_slow_tests_come_first_in_collection_order(small_suite):
    done = run_small_suite(small_suite, "--collect-only", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    order = [line.split("::")[1] for line in done.stdout.splitlines() if "test_small.py::" in line]
    assert order == [*(f"test_browser[{page}]" for page in range(4)), "test_long", *(f"test_plain[{row}]" for row in range(6))]


def test_a_path_that_does_not_exist_is_an_error_under_n_as_without(small_suite):
    done = run_small_suite(small_suite, "-n", "2", "test_smal.py")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "file or directory not found: test_smal.py" in done.stderr


THREADS_MODULE = '''
import os
from pathlib import Path

WHERE = Path(os.environ["WHERE"])


def test_threads():
    import torch

    (WHERE / ("threads-" + os.environ["PYTEST_XDIST_WORKER"])).write_text(f"{os.environ['OMP_NUM_THREADS']} {torch.get_num_threads()}")
'''


@pytest.mark.parametrize(("workers", "preset"), [("2", None), ("1", None), ("2", "2")])
def test_each_worker_sizes_its_thread_pools_to_its_share_of_the_cores(small_suite, monkeypatch, workers, preset):
    """Two workers on this machine's cores run one numeric thread each (torch's included),
    one worker runs them all; a value the run was started with is obeyed."""
    pytest.importorskip("torch")
    (small_suite / "test_threads.py").write_text(textwrap.dedent(THREADS_MODULE), encoding="utf-8")
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    if preset is not None:
        monkeypatch.setenv("OMP_NUM_THREADS", preset)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", workers, "test_threads.py"],
                          cwd=small_suite, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "WHERE": str(small_suite.parent / "where")})
    assert done.returncode == 0, done.stdout + done.stderr
    (recorded,) = [path.read_text() for path in (small_suite.parent / "where").glob("threads-*")]
    share = preset or str(max(1, len(os.sched_getaffinity(0)) // int(workers)))
    assert recorded == f"{share} {share}"
