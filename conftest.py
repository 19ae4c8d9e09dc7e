"""Fixtures shared by the core tests and the plugins' tests."""

from __future__ import annotations

import functools
import os
import pickle
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent
SHARED_DATA = Path(os.environ.get("AUGKIT_SHARED_DATA", REPO.parent / "shared" / "data"))


# -- Running on every core (pytest-xdist) ----------------------------------------------------
# `make test` runs the suite with `-n <cores> --dist loadgroup`: each worker is a separate
# pytest process with its own session fixtures and its own `tmp_path_factory` folder
# (.../pytest-N/popen-gwK). What workers must not share, they get one each (augkit's cache);
# what is slow to build, they build once between them (`built_once`); what one machine runs
# one of at a time, one worker runs (`RESOURCE_GROUPS`).

#: Fixtures naming a resource that one worker holds for every test that needs it: the tests
#: requesting one (directly or through another fixture) form an xdist group, so under
#: ``--dist loadgroup`` they run on one worker, which starts the resource once, and two
#: copies never compete for the two cores.
RESOURCE_GROUPS = {
    "local_ray": "ray",  # a local Ray instance with 2 CPUs: two at once would only queue
    "llm_server": "transformers-serve",  # a served chat model, a process of its own
    "chromium_browser": "chromium",  # headless Chromium for the web pages' browser tests
}


def resource_group(item: pytest.Item) -> str | None:
    """The xdist group ``item`` belongs to: its own ``xdist_group`` mark, else the group of
    the first :data:`RESOURCE_GROUPS` fixture it requests, else None."""
    mark = item.get_closest_marker("xdist_group")
    if mark is not None:
        return mark.args[0] if mark.args else mark.kwargs.get("name")
    requested = getattr(item, "fixturenames", ())
    return next((group for fixture, group in RESOURCE_GROUPS.items() if fixture in requested), None)


def schedule_rank(item: pytest.Item) -> int:
    """Where ``item`` goes in the run: 0 for a grouped test (a group is one long chain on one
    worker), 1 for a test marked slow, 2 for the rest. Workers take tests in collection
    order, so the long ones start first instead of finishing last on one worker."""
    if resource_group(item) is not None:
        return 0
    return 1 if item.get_closest_marker("slow") is not None else 2


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (its own hook runs later)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every resource user with its group, and put long tests first. The order is a
    function of the collection alone, so every worker computes the same one (xdist checks)."""
    for item in items:
        group = resource_group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=schedule_rank)  # stable: collection order within each rank


@pytest.hookimpl(optionalhook=True)  # an xdist hook: absent without xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Under ``--dist loadgroup``, a module's tests go to one worker as one unit (as with
    ``--dist loadfile``), so its module-scoped fixtures (152 in 89 modules: tables read,
    models trained, servers started) are built once, not once per worker; a group's tests
    go to one worker as before, whatever their modules."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ModuleOrGroupScheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            group = super()._split_scope(nodeid)
            return nodeid.split("::", 1)[0] if group == nodeid else group

    return ModuleOrGroupScheduling(config, log)


#: The environment a worker must see as the command line that started the run saw it: a worker
#: starts with ``COLUMNS=80`` and ``LINES=24`` set even when ``make test``'s own environment
#: has neither, and ``augkit list`` in a subprocess would then wrap its table.
CONTROLLER_ENV = ("COLUMNS", "LINES")


#: The thread pools of the numeric libraries a worker loads (torch's OpenMP and MKL, OpenBLAS,
#: the Rust tokenizers' Rayon). Each sizes itself to every core by default: two workers on two
#: cores then run four busy threads, and OpenMP's waiting threads spin. Measured on the whole
#: suite with two workers: 1,316 s of CPU time with the default pools, 909 s with one thread each.
THREAD_POOL_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS")


def threads_per_worker(workers: int) -> int:
    """Each worker's share of the machine's cores (at least one)."""
    return max(1, len(os.sched_getaffinity(0)) // max(1, workers))


@pytest.hookimpl(optionalhook=True)  # an xdist hook: absent without xdist
def pytest_configure_node(node) -> None:
    """Hand each worker the run's own values of :data:`CONTROLLER_ENV`, and its share of the
    cores for the thread pools of :data:`THREAD_POOL_ENV` (a value the run was started with
    stays, and ``OMP_NUM_THREADS=2 make test`` sizes every pool to 2)."""
    node.workerinput["controller_env"] = {name: os.environ.get(name) for name in CONTROLLER_ENV}
    share = os.environ.get("OMP_NUM_THREADS") or str(threads_per_worker(len(node.config.option.tx or ()) or 1))
    node.workerinput["thread_pools"] = {name: os.environ.get(name, share) for name in THREAD_POOL_ENV}


def restore_interrupts() -> None:
    """Let Ctrl-C reach this run and the commands its tests start. A shell without job control
    starts a background job (``make test &`` in a script) with SIGINT ignored, and a process
    inherits that: the tests that stop a job with SIGINT would then wait out their timeouts."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config: pytest.Config) -> None:
    """In the run's own process under ``-n``, refuse a path that does not exist, as pytest does
    without ``-n`` (the workers collect, and a mistyped ``PYTEST_ARGS`` would otherwise end
    in "no tests ran"). In a worker, put back :data:`CONTROLLER_ENV` as the run's command
    line had it, size the numeric libraries' thread pools to the worker's share of the cores,
    and let SIGINT through (:func:`restore_interrupts`)."""
    if not hasattr(config, "workerinput") and getattr(config.option, "tx", None):
        for argument in config.args:
            path = config.invocation_params.dir / argument.split("::", 1)[0]
            if not path.exists():
                raise pytest.UsageError(f"file or directory not found: {argument}")
    for name, value in getattr(config, "workerinput", {}).get("controller_env", {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    # Before any test module imports torch: its pools are sized when it loads. Subprocesses
    # a test starts inherit the same share.
    os.environ.update(getattr(config, "workerinput", {}).get("thread_pools", {}))
    restore_interrupts()


@pytest.fixture(scope="session", autouse=True)
def private_augkit_cache(tmp_path_factory) -> Iterable[Path]:
    """``$AUGKIT_CACHE_DIR`` in this worker's own temporary folder for the whole session: a run
    neither reads what another run (or the user) cached, nor races another worker writing
    the same converted model or chat reply. Tests that study the cache set their own."""
    folder = tmp_path_factory.mktemp("augkit-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUGKIT_CACHE_DIR", str(folder))
        yield folder


def run_folder(tmp_path_factory) -> Path:
    """The folder every worker of this run shares: the parent of a worker's base temporary
    folder (``.../pytest-N`` above ``popen-gwK``); without xdist, the base folder itself."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory, name: str, build: Callable[[Path], Any]) -> Any:
    """``build(folder)`` run once per test run, whatever the number of workers: see
    :func:`build_shared`, in ``<run folder>/built``."""
    root = run_folder(tmp_path_factory) / "built"
    root.mkdir(exist_ok=True)
    return build_shared(root, name, build)


def build_shared(root: Path, name: str, build: Callable[[Path], Any]) -> Any:
    """What ``build(root / name)`` returns, built by the first process to ask: it builds under
    a file lock and records the result (pickled); the others wait on the lock and read the
    record. ``build`` must be deterministic (the tiny models are seeded), so every worker
    gets what it would have built itself. A build that raised leaves no record, and the
    next caller starts again from an empty folder."""
    from filelock import FileLock

    folder, record = root / name, root / f"{name}.result"
    with FileLock(str(root / f"{name}.lock")):
        if not record.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed build left
            folder.mkdir()
            result = build(folder)
            partial = record.with_suffix(".partial")
            partial.write_bytes(pickle.dumps(result))
            partial.replace(record)
        return pickle.loads(record.read_bytes())


@pytest.fixture
def local_ray():
    """A local Ray instance with 2 CPUs, started for the first test that asks and kept for the
    tests after it that ask too (the "ray" group runs them one after another on one worker):
    each start costs seconds of the run. The first test after them that does not ask stops it
    (:func:`pytest_runtest_teardown`), so no other test runs beside Ray's processes or under
    the SIGTERM handler ``ray.init`` installs."""
    import signal

    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        _RAY_STARTED["sigterm"] = signal.getsignal(signal.SIGTERM)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    return ray


#: The SIGTERM handler in force before :func:`local_ray` started Ray, put back when it stops.
_RAY_STARTED: dict[str, Any] = {}


@pytest.hookimpl(trylast=True)  # after pytest's own teardown: the test's fixtures are finalized
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop the Ray :func:`local_ray` started once the next test does not use it."""
    if "sigterm" not in _RAY_STARTED or (nextitem is not None and "local_ray" in nextitem.fixturenames):
        return
    import signal

    import ray

    ray.shutdown()
    signal.signal(signal.SIGTERM, _RAY_STARTED.pop("sigterm"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared real datasets (../shared/data, or $AUGKIT_SHARED_DATA)."""
    if not (SHARED_DATA / "banking77").is_dir():
        pytest.fail(f"shared data not found at {SHARED_DATA}; set AUGKIT_SHARED_DATA")
    return SHARED_DATA


def modules_loaded_by_import(modules: str, watched) -> list[str]:
    """Which of ``watched`` a fresh interpreter has loaded after ``import <modules>``
    (comma-separated): for the tests that keep imports light."""
    code = f"import sys, {modules}; print(','.join(m for m in {tuple(watched)!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [name for name in done.stdout.strip().split(",") if name]


@functools.cache
def can_mount_tmpfs() -> bool:
    """Whether this process may mount a small tmpfs (root, and a kernel that lets it): the
    tests that fill a real disk need one."""
    if os.geteuid() != 0:
        return False
    probe = Path(f"/tmp/augkit-mount-probe-{os.getpid()}")
    probe.mkdir(exist_ok=True)
    try:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)], capture_output=True).returncode == 0
        if mounted:
            subprocess.run(["umount", str(probe)], check=True)
        return mounted
    finally:
        probe.rmdir()


@pytest.fixture
def mountable_tmpfs() -> None:
    """For a test that fills a real disk or mounts a folder read-only: it needs to mount a tmpfs
    (root). Without that it is skipped, except under CI, which runs as root on a machine like
    the developers' and must run it: there a mount that cannot be made fails the test."""
    if can_mount_tmpfs():
        return
    reason = ("mounting a small tmpfs needs root; the file-size-limit tests cause the same kind of "
              "failure without it")
    if os.environ.get("CI"):
        pytest.fail(f"CI cannot mount a tmpfs: {reason}")
    pytest.skip(reason)


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


QUORA = Path("quora_pairs") / "paragen" / "head_0a142eb"


def quora_questions(shared_data: Path, count: int, start: int = 0) -> list[str]:
    """Quora questions (first side of the validation pairs), distinct, in file order."""
    lines = read_lines(shared_data / QUORA / "val.q1")
    return list(dict.fromkeys(line.strip() for line in lines if line.strip()))[start : start + count]


def banking77_workbook_with_sheet(shared_data: Path, target: Path, rows: Iterable[tuple[str, ...]], *, numbered: bool = True) -> Path:
    """An .xlsx made by pandas from 20 BANKING77 rows whose first sheet is then replaced by
    ``rows`` (the first is the header) as inline-string cells: for workbooks too large or too
    repetitive to write cell by cell with openpyxl, such as zip bombs. ``numbered=False``
    leaves out the optional row and cell references, so identical rows give identical XML."""
    import zipfile
    from xml.sax.saxutils import escape

    import pandas as pd

    folder = shared_data / "banking77" / "jianguoz" / "train"
    seed = target.with_name(f"seed-{target.name}")
    pd.DataFrame({"text": read_lines(folder / "seq.in")[:20], "label": read_lines(folder / "label")[:20]}).to_excel(seed, index=False)

    def row_xml(number: int, row: tuple[str, ...]) -> str:
        cells = []
        for column, value in zip("ABCDEFGHIJ", row):
            reference = f' r="{column}{number}"' if numbered else ""
            cells.append(f'<c{reference} t="inlineStr"><is><t>{escape(value)}</t></is></c>')
        reference = f' r="{number}"' if numbered else ""
        return f"<row{reference}>{''.join(cells)}</row>"

    with zipfile.ZipFile(seed) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for member in source.infolist():
            if member.filename != "xl/worksheets/sheet1.xml":
                out.writestr(member, source.read(member))
                continue
            with out.open(member.filename, "w") as sheet:
                sheet.write(b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet '
                            b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
                batch = []
                for number, row in enumerate(rows, 1):
                    batch.append(row_xml(number, row))
                    if len(batch) == 1000:
                        sheet.write("".join(batch).encode("utf-8"))
                        batch = []
                sheet.write(("".join(batch) + "</sheetData></worksheet>").encode("utf-8"))
    seed.unlink()
    return target


# Plugin tests reach these helpers as fixtures: `from conftest import ...` in a plugin's
# tests may find another plugin's conftest module, collected under the same name.
@pytest.fixture(scope="session")
def loaded_by_import():
    """:func:`modules_loaded_by_import`, for plugin tests."""
    return modules_loaded_by_import


@pytest.fixture(scope="session")
def workbook_with_sheet(shared_data):
    """:func:`banking77_workbook_with_sheet` on the shared data: ``(target, rows, numbered=True)``."""
    return functools.partial(banking77_workbook_with_sheet, shared_data)


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
    """Install the test plugin distributions (augkit-shout, augkit-broken, augkit-fragile) with pip into a
    folder on sys.path, so augkit finds them through their entry points exactly as it
    finds a plugin installed from PyPI. Returns that folder (for subprocess PYTHONPATH)."""
    import augkit

    def install(target: Path) -> Path:
        fixtures = REPO / "tests" / "fixtures" / "plugins"
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
             "--target", str(target), str(fixtures / "augkit-shout"), str(fixtures / "augkit-broken"),
             str(fixtures / "augkit-fragile")],
            check=True,
        )
        return target

    target = built_once(tmp_path_factory, "site", install)
    sys.path.insert(0, str(target))
    augkit.reset_registry()
    yield target
    sys.path.remove(str(target))
    augkit.reset_registry()


@pytest.fixture(scope="session")
def tiny_causal_lm(shared_data, tmp_path_factory) -> Path:
    """A directory holding a randomly initialised 2-layer GPT-2 (32-dim, 64 positions) and a
    byte-level BPE tokenizer trained on BANKING77's training texts, saved with
    ``save_pretrained`` (safetensors) as a user's own model directory would be."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from augkit.testing import build_gpt2_causal_lm

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return built_once(tmp_path_factory, "tiny-gpt2", lambda folder: build_gpt2_causal_lm(folder, texts))


@pytest.fixture(scope="session")
def tiny_masked_lm(shared_data, tmp_path_factory) -> Path:
    """A random 2-layer BERT masked LM (32-dim, 64 positions) with a lower-casing WordPiece
    tokenizer trained on BANKING77's training texts; weights drawn with std 0.5, so fills
    depend on the input."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from augkit.testing import build_bert_masked_lm

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return built_once(tmp_path_factory, "tiny-bert", lambda folder: build_bert_masked_lm(folder / "bert", texts, init_std=0.5))


@pytest.fixture(scope="session")
def tiny_pair_classifier(shared_data, tmp_path_factory) -> Path:
    """A random 2-layer BERT pair classifier over entailment / neutral / contradiction
    (WordPiece trained on BANKING77's training texts; weights drawn with std 0.5)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from augkit.testing import build_pair_classifier

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return built_once(tmp_path_factory, "tiny-nli", lambda folder: build_pair_classifier(folder / "nli", texts, init_std=0.5))


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory, shared_data) -> str:
    """A tiny random sentence-transformers model (2-layer BERT, WordPiece vocabulary trained
    on BANKING77 texts, mean pooling, normalisation) saved as safetensors; tests the
    mechanics of embedding filters without a real model."""
    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return built_once(tmp_path_factory, "tiny-encoder", lambda root: build_tiny_encoder(root, texts))


def build_tiny_encoder(root: Path, texts: list[str]) -> str:
    """:func:`tiny_encoder_dir`'s model, built in ``root``; returns the encoder's folder."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules as models
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, trainers
    from tokenizers.models import WordPiece
    from tokenizers.processors import TemplateProcessing
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=800, special_tokens=special))
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]", model_max_length=32,
    )
    import torch

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=fast.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=64,
    )
    backbone = root / "backbone"
    BertModel(config).save_pretrained(backbone, safe_serialization=True)
    fast.save_pretrained(backbone)
    transformer = models.Transformer(str(backbone), max_seq_length=32)
    model = SentenceTransformer(modules=[transformer, models.Pooling(32, "mean"), models.Normalize()], device="cpu")
    model.save(str(root / "encoder"))
    return str(root / "encoder")


@pytest.fixture(scope="session")
def tiny_marian_pair(shared_data, tmp_path_factory) -> tuple[Path, Path]:
    """(en->xx, xx->en) tiny random Marian models, SentencePiece trained on BANKING77 train
    texts, max 64 positions, weights drawn with std 1.0."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("sentencepiece")
    from augkit.testing import build_marian_pair

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    # init_std 1.0: outputs that depend on the input, so order and batching mistakes show
    return built_once(tmp_path_factory, "tiny-marian", lambda folder: build_marian_pair(folder, texts, max_positions=64, init_std=1.0))


@pytest.fixture(scope="session")
def stackfaq(shared_data):
    """StackFAQ's 125 threads as an FAQ table (question, first answer)."""
    from benchmarks.faq.data import load_stackfaq

    return load_stackfaq(shared_data).faq


@pytest.fixture(scope="session")
def covid_faq(shared_data):
    """The JHU COVID FAQ's 68 entries as an FAQ table (question, answer)."""
    from benchmarks.faq.data import load_covid_faq

    return load_covid_faq(shared_data).faq


@pytest.fixture(scope="session")
def quora_pairs(shared_data):
    """The first 120 Quora duplicate-question pairs (line i of val.q1 paraphrases line i of val.q2)."""
    import pandas as pd

    folder = shared_data / "quora_pairs" / "paragen" / "head_0a142eb"
    return pd.DataFrame({"source": read_lines(folder / "val.q1")[:120], "target": read_lines(folder / "val.q2")[:120]})


@pytest.fixture(scope="session")
def tiny_t5(quora_pairs, tmp_path_factory) -> Path:
    """A random T5 (32 wide, 2 layers) with a tokenizer trained on the Quora slice."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from augkit.testing import build_t5_model

    texts = quora_pairs["source"].tolist() + quora_pairs["target"].tolist()
    return built_once(tmp_path_factory, "t5", lambda folder: build_t5_model(folder / "tiny-t5", texts))


@pytest.fixture(scope="session")
def quora_question_list(shared_data) -> list[str]:
    """Every distinct Quora question (first side of the validation pairs), in file order.
    Plugin tests take this fixture: they cannot import the root conftest by name, as a
    plugin's own conftest.py is also a module called 'conftest'."""
    return quora_questions(shared_data, len(read_lines(shared_data / QUORA / "val.q1")))


@pytest.fixture(scope="session")
def tiny_t5_infiller(shared_data, tmp_path_factory) -> Path:
    """A random 2-layer T5 (32-dim) with 40 sentinels (span infilling, ParaMac) and a unigram
    tokenizer trained on Quora questions and BANKING77 texts."""
    pytest.importorskip("torch")
    pytest.importorskip("sentencepiece")
    from augkit.testing import build_t5_model

    texts = quora_questions(shared_data, 2000) + read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return built_once(tmp_path_factory, "tiny-t5-infiller", lambda folder: build_t5_model(folder, texts, vocab_size=600, extra_ids=40))


@pytest.fixture(scope="session")
def paramac_params(tiny_t5_infiller, tiny_masked_lm, tiny_causal_lm) -> dict:
    """ParaMac on the tiny models (T5 infiller; BERT for substitution and BERTScore; GPT-2 for
    fluency), with a small search (3 orders x 2 beams) so tests run fast."""
    return {
        "generator": str(tiny_t5_infiller), "substitution_model": str(tiny_masked_lm),
        "semantic_model": str(tiny_masked_lm), "fluency_model": str(tiny_causal_lm),
        "permutations": 3, "num_beams": 2, "num_return": 2, "max_new_tokens": 12,
    }


@pytest.fixture(scope="session")
def tiny_insertion_model(shared_data, tmp_path_factory) -> Path:
    """A random POINTER-shaped insertion model: the tiny BERT masked LM (std 0.5, 64
    positions) on BANKING77's training texts with ``[NOI]`` added as a special token. Random
    weights rarely say ``[NOI]``, so its rows run until the stage or length limit: mechanics
    only."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from augkit.testing import build_bert_masked_lm

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return built_once(tmp_path_factory, "tiny-pointer",
                      lambda folder: build_bert_masked_lm(folder / "pointer", texts, init_std=0.5, special_tokens=["[NOI]"]))


@pytest.fixture(scope="session")
def tiny_chat_model(shared_data, tmp_path_factory) -> Path:
    """A random Qwen2-shaped chat model (2 layers, 64 wide) with a byte-level BPE tokenizer
    trained on BANKING77's training texts and a ChatML ``chat_template``, saved with
    safetensors: what ``transformers serve`` serves in the LLM augmentation tests."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from augkit.testing import build_chat_model

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return built_once(tmp_path_factory, "tiny-chat", lambda folder: build_chat_model(folder / "chat", texts))


@pytest.fixture(scope="session")
def llm_server(tiny_chat_model):
    """A real ``transformers serve`` on 127.0.0.1 serving :func:`tiny_chat_model`: a
    :class:`augkit.testing.llm_servers.ServedModel` (``base_url`` ending in ``/v1``, ``model``
    the name requests give). Stopped by its PID at the end of the session."""
    from augkit.testing.llm_servers import (
        start_transformers_serve,
        transformers_serve_unavailable,
    )

    reason = transformers_serve_unavailable()
    assert reason is None, f"transformers serve cannot run ({reason}): the test extra installs it"
    served = start_transformers_serve(tiny_chat_model)
    yield served
    served.stop()


@pytest.fixture
def scripted_llm_server():
    """A factory of started :class:`augkit.testing.scripted_chat.ScriptedChatServer`:
    ``scripted_llm_server([reply("..."), error(429)], default=None, models=(...))``. Every
    server it made is closed when the test ends."""
    from augkit.testing.scripted_chat import ScriptedChatServer

    servers = []

    def make(script=(), **options):
        server = ScriptedChatServer(script, **options).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.close()


# The web page's real-browser tests (core and augkit-faq): Debian's Chromium driven by
# Playwright (make test installs it; Playwright's own browser download is not used).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


#: Ports tried in turn by :func:`launch_on_free_port`: a port free when probed can be taken by
#: another worker's server before gradio binds it.
PORT_ATTEMPTS = 3


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def free_tcp_port():
    """:func:`free_port`, for plugin tests."""
    return free_port


@pytest.fixture(scope="session")
def chromium_browser():
    """Headless Chromium for the browser tests. Off CI, a machine without Debian's chromium
    skips them; in CI (CI=true) they run and fail loudly."""
    if not CHROMIUM.exists() and os.environ.get("CI", "").lower() != "true":
        pytest.skip("Debian's chromium is not installed (make test installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def serve_temp_dir():
    """The served app's folder, also gradio's upload folder (as `augkit serve` sets it); removed after."""
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="augkit-serve-test-")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", folder)
        patch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        yield Path(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def launch_on_free_port():
    """``launch(app, max_file_size) -> url``: a gradio app served on 127.0.0.1 in this process,
    as ``augkit serve`` launches it (no share link, the upload limit enforced by the server)."""
    def launch(app, max_file_size: int) -> str:
        for attempt in range(1, PORT_ATTEMPTS + 1):
            port = free_port()
            try:
                app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                           max_file_size=max_file_size, share=False)
            except OSError:  # gradio's "Cannot find empty port": another server took it since the probe
                if attempt == PORT_ATTEMPTS:
                    raise
            else:
                return f"http://127.0.0.1:{port}/"

    return launch


# Every built-in method, set up to run on the tiny models above: the one place the tests that
# run each method (tests/test_every_method_says_why.py, tests/test_frozen_method_outputs.py) take
# their set-ups from. Core tests reach them as `from conftest import BUILT_IN_METHODS`.
def scripted_chat_replies(request: dict):
    """A chat server's replies by the row asked about: repeats of it, a loop, no JSON list, or
    a paraphrase (the row's text is the first line after "Text: ", or its first example)."""
    import json

    from augkit.testing.scripted_chat import reply

    content = request["messages"][-1]["content"]
    text = content.split("Text: ", 1)[1].split("\n", 1)[0] if "Text: " in content else content.split("\n- ", 1)[1].split("\n", 1)[0]
    words = text.split()
    kind = sum(map(ord, text)) % 4
    if kind == 0:
        return reply(json.dumps([text, text.upper()]))
    if kind == 1:
        return reply(json.dumps([" ".join(words[:1] * 4 + words[1:])]))
    if kind == 2:
        return reply("Sure, here they are.")
    return reply(json.dumps([f"could you tell me: {text}"]))


@pytest.fixture
def llm_params(scripted_llm_server, tmp_path) -> dict:
    """The LLM methods' parameters: a server replying by :func:`scripted_chat_replies`, a
    cache of this test's own, no retries."""
    server = scripted_llm_server(scripted_chat_replies)
    return {"base_url": server.base_url, "model": "scripted", "cache_dir": str(tmp_path / "cache"), "max_retries": 0}


@pytest.fixture(scope="session")
def nlpaug_models(shared_data, tmp_path_factory) -> dict[str, dict]:
    """What nlpaug's user-supplied methods run on, built from BANKING77's training texts: a
    TF-IDF model, word vectors (a GloVe text file of seeded random vectors) and token lists."""
    import numpy as np
    from nlpaug.model.word_stats import TfIdf
    from nlpaug.util.text.tokenizer import Tokenizer

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")[:400]
    documents = [Tokenizer.tokenizer(text) for text in texts]
    tfidf = tmp_path_factory.mktemp("tfidf")
    model = TfIdf()
    model.train(documents)
    model.save(str(tfidf))
    words = sorted({word for document in documents for word in document if word.isalpha()})
    vectors = np.random.default_rng(0).normal(size=(len(words), 8))
    glove = tmp_path_factory.mktemp("glove") / "banking77.txt"
    glove.write_text("".join(" ".join([word, *(f"{x:.6f}" for x in row)]) + "\n" for word, row in zip(words, vectors)),
                     encoding="utf-8")
    return {
        "nlpaug.tfidf": {"model_path": str(tfidf)},
        "nlpaug.word_embs": {"model_type": "glove", "model_path": str(glove)},
        "nlpaug.reserved": {"reserved_tokens": [["card", "debit card", "bank card"], ["cash", "money"]]},
    }


@pytest.fixture(scope="session")
def causal_lm_128(shared_data, tmp_path_factory) -> Path:
    """The tiny GPT-2 with 128 positions: nlpaug's continuation runs past 64."""
    from augkit.testing import build_gpt2_causal_lm

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return build_gpt2_causal_lm(tmp_path_factory.mktemp("gpt2-128") / "tiny-gpt2", texts, max_positions=128)


#: Each built-in method's parameters for a test run, from the fixtures it needs: call with
#: ``request.getfixturevalue``.
BUILT_IN_METHODS: dict[str, Callable[[Callable[[str], Any]], dict]] = {
    "eda": lambda get: {},
    "aeda": lambda get: {},
    "backtranslation": lambda get: {},
    "faq": lambda get: {"generator": str(get("tiny_t5")), "max_new_tokens": 12, "device": "cpu"},
    "paramac": lambda get: dict(get("paramac_params")),
    "pointer": lambda get: {"insertion_model": str(get("tiny_insertion_model")), "max_stages": 2},
    "contextual": lambda get: {"model": str(get("tiny_masked_lm")), "device": "cpu"},
    "erap": lambda get: {"sample_from": "backtranslation", "num_return": 2, "oracle": str(get("tiny_pair_classifier")),
                         "similarity_model": get("tiny_encoder_dir"), "device": "cpu"},
    "llm_paraphrase": lambda get: get("llm_params"),
    "llm_generate": lambda get: get("llm_params"),
    "nlpaug.keyboard": lambda get: {},
    "nlpaug.ocr": lambda get: {},
    "nlpaug.random_char": lambda get: {},
    "nlpaug.spelling": lambda get: {},
    "nlpaug.synonym": lambda get: {},
    "nlpaug.antonym": lambda get: {},
    "nlpaug.random_word": lambda get: {},
    "nlpaug.split": lambda get: {},
    "nlpaug.random_sentence": lambda get: {},
    "nlpaug.reserved": lambda get: get("nlpaug_models")["nlpaug.reserved"],
    "nlpaug.tfidf": lambda get: get("nlpaug_models")["nlpaug.tfidf"],
    "nlpaug.word_embs": lambda get: get("nlpaug_models")["nlpaug.word_embs"],
    "nlpaug.contextual": lambda get: {"model_path": str(get("tiny_masked_lm")), "top_k": 20},
    "nlpaug.contextual_sentence": lambda get: {"model_path": str(get("causal_lm_128")), "min_new_tokens": 5, "max_new_tokens": 20},
    "nlpaug.summarize": lambda get: {"model_path": str(get("tiny_t5")), "tokenizer_path": str(get("tiny_t5")),
                                     "min_new_tokens": 3, "max_new_tokens": 10},
    "nlpaug.back_translation": lambda get: {"from_model_name": str(get("tiny_marian_pair")[0]),
                                            "to_model_name": str(get("tiny_marian_pair")[1]), "max_new_tokens": 20},
}
#: The built-in methods slow enough on the tiny models to be marked slow.
SLOW_METHODS = {"nlpaug.back_translation"}


def plugin_distribution_folders() -> list[Path]:
    """The plugin distributions of this repository: each folder of plugins/ with its own
    pyproject.toml (EDA's and AEDA's have none: they are built into augkit's)."""
    return sorted(folder for folder in (REPO / "plugins").iterdir() if (folder / "pyproject.toml").is_file())


@functools.cache
def _repository_plugins() -> tuple[frozenset[str], frozenset[str]]:
    """The distributions under plugins/ (:func:`plugin_distribution_folders`), and the plugins
    built into augkit's own distribution (its ``augkit`` entry points but the core's)."""
    import tomllib

    distributions = frozenset(folder.name for folder in plugin_distribution_folders())
    entry_points = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]["augkit"]
    return distributions, frozenset(name for name in entry_points if name != "augkit")


def is_repository_plugin(plugin) -> bool:
    """Whether a registered plugin (a ``PluginInfo``) is one of this repository's: a
    distribution under plugins/, or a plugin built into augkit (EDA, AEDA)."""
    distributions, built_in = _repository_plugins()
    return plugin.distribution in distributions or (plugin.distribution == "augkit" and plugin.name in built_in)


def registered_built_in_methods() -> set[str]:
    """The methods registered by the plugins in this repository (plugins/)."""
    import augkit

    registry = augkit.get_registry()
    return {name for name, entry in registry.methods.items() if is_repository_plugin(entry.plugin)}

def wait_until_chunks_done(folder: Path, count: int, process: subprocess.Popen, timeout: float = 120) -> None:
    """Return once ``count`` chunks of the job in ``folder`` are recorded as done; fail when
    ``process`` (the job) ends first or nothing moves for ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(list(folder.glob("chunk-*.json"))) >= count:
            return
        if process.poll() is not None:
            pytest.fail(f"the run ended before {count} chunks were done: {process.communicate()}")
        time.sleep(0.02)
    pytest.fail("no progress")


@pytest.fixture
def wait_for_chunks():
    """:func:`wait_until_chunks_done`, for a test that kills a job part-way."""
    return wait_until_chunks_done
