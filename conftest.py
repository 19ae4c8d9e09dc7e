"""Fixtures shared by the core tests and the plugins' tests."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Iterable
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

    target = tmp_path_factory.mktemp("site")
    fixtures = REPO / "tests" / "fixtures" / "plugins"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(fixtures / "augkit-shout"), str(fixtures / "augkit-broken"),
         str(fixtures / "augkit-fragile")],
        check=True,
    )
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
    return build_gpt2_causal_lm(tmp_path_factory.mktemp("tiny-gpt2"), texts)


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
    return build_bert_masked_lm(tmp_path_factory.mktemp("tiny-bert") / "bert", texts, init_std=0.5)


@pytest.fixture(scope="session")
def tiny_pair_classifier(shared_data, tmp_path_factory) -> Path:
    """A random 2-layer BERT pair classifier over entailment / neutral / contradiction
    (WordPiece trained on BANKING77's training texts; weights drawn with std 0.5)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")
    from augkit.testing import build_pair_classifier

    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
    return build_pair_classifier(tmp_path_factory.mktemp("tiny-nli") / "nli", texts, init_std=0.5)


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory, shared_data) -> str:
    """A tiny random sentence-transformers model (2-layer BERT, WordPiece vocabulary trained
    on BANKING77 texts, mean pooling, normalisation) saved as safetensors; tests the
    mechanics of embedding filters without a real model."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules as models
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, trainers
    from tokenizers.models import WordPiece
    from tokenizers.processors import TemplateProcessing
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    root = tmp_path_factory.mktemp("tiny-encoder")
    texts = read_lines(shared_data / "banking77" / "jianguoz" / "train" / "seq.in")
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
    return build_marian_pair(tmp_path_factory.mktemp("tiny-marian"), texts, max_positions=64, init_std=1.0)


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
    return build_t5_model(tmp_path_factory.mktemp("t5") / "tiny-t5", texts)


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
    return build_t5_model(tmp_path_factory.mktemp("tiny-t5-infiller"), texts, vocab_size=600, extra_ids=40)


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
    return build_bert_masked_lm(tmp_path_factory.mktemp("tiny-pointer") / "pointer", texts, init_std=0.5, special_tokens=["[NOI]"])


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
    return build_chat_model(tmp_path_factory.mktemp("tiny-chat") / "chat", texts)


@pytest.fixture(scope="session")
def llm_server(tiny_chat_model):
    """A real ``transformers serve`` on 127.0.0.1 serving :func:`tiny_chat_model`: a
    :class:`augkit.testing.llm_servers.ServedModel` (``base_url`` ending in ``/v1``, ``model``
    the name requests give). Stopped by its PID at the end of the session."""
    from augkit.testing.llm_servers import start_transformers_serve, transformers_serve_unavailable

    reason = transformers_serve_unavailable()
    assert reason is None, f"transformers serve cannot run ({reason}): the test extra installs it"
    served = start_transformers_serve(tiny_chat_model)
    yield served
    served.stop()


@pytest.fixture
def scripted_llm_server():
    """A factory of started :class:`augkit.testing.llm_servers.ScriptedChatServer`:
    ``scripted_llm_server([reply("..."), error(429)], default=None, models=(...))``. Every
    server it made is closed when the test ends."""
    from augkit.testing.llm_servers import ScriptedChatServer

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
        port = free_port()
        app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                   max_file_size=max_file_size, share=False)
        return f"http://127.0.0.1:{port}/"

    return launch
