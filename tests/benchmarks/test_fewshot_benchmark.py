"""The few-shot benchmark (benchmarks/fewshot): data loading, K-shot sampling, method strings,
paired gains, and one real end-to-end run on a slice of BANKING77 with the packaged MiniLM."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.fewshot.data import (
    DataError,
    load_dataset,
    read_split_folder,
    sample_k_shot,
)
from benchmarks.fewshot.methods import MethodSpecError, parse_method
from benchmarks.fewshot.report import summarise

REPO = Path(__file__).resolve().parents[2]


def write_split(folder: Path, texts: list[str], labels: list[str]) -> None:
    folder.mkdir(parents=True)
    (folder / "seq.in").write_text("".join(f"{t}\n" for t in texts), encoding="utf-8")
    (folder / "label").write_text("".join(f"{label}\n" for label in labels), encoding="utf-8")


@pytest.fixture
def tiny_folder(tmp_path) -> Path:
    root = tmp_path / "tiny"
    labels = ["a"] * 6 + ["b"] * 6 + ["c"] * 2
    write_split(root / "train", [f"train text {i}" for i in range(14)], labels)
    write_split(root / "valid", ["valid a", "valid b"], ["a", "b"])
    write_split(root / "test", ["test a", "test b", "test c"], ["a", "b", "c"])
    return root


# Data loading


def test_reads_the_shared_folders(shared_data):
    banking = load_dataset(shared_data / "banking77" / "jianguoz")
    assert banking.name == "banking77"
    assert (len(banking.train), len(banking.valid), len(banking.test), len(banking.labels)) == (8622, 1540, 3080, 77)
    assert list(banking.test.columns) == ["text", "label"]
    assert banking.test.iloc[0].tolist() == ["how do i locate my card?", "card_arrival"]
    clinc = load_dataset(shared_data / "clinc150" / "jianguoz")  # in-scope intents; oos/ is not read
    assert (clinc.name, len(clinc.labels), len(clinc.train), len(clinc.test)) == ("clinc150", 150, 15000, 4500)


def test_folder_without_valid_and_classes_limit(tiny_folder):
    import shutil

    shutil.rmtree(tiny_folder / "valid")
    dataset = load_dataset(tiny_folder)
    assert dataset.valid is None
    limited = dataset.limit_classes(2)
    assert limited.labels == ["a", "b"] and limited.test["label"].tolist() == ["a", "b"]
    assert limited.name == "tiny[2 classes]"


@pytest.mark.parametrize("broken, message", [
    ("seq.in", "has no seq.in (each split folder needs seq.in and label)"),
    ("label", "has no label (each split folder needs seq.in and label)"),
])
def test_folder_missing_a_file(tiny_folder, broken, message):
    (tiny_folder / "test" / broken).unlink()
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_dataset(tiny_folder)


def test_folder_line_counts_must_match(tiny_folder):
    (tiny_folder / "train" / "label").write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(DataError, match="seq.in has 14 lines but label has 2; they must pair line by line"):
        read_split_folder(tiny_folder / "train")


def test_folder_without_test_split(tiny_folder):
    import shutil

    shutil.rmtree(tiny_folder / "test")
    with pytest.raises(DataError, match=r"has no test/ folder \(found: train, valid\)"):
        load_dataset(tiny_folder)


def test_missing_path():
    with pytest.raises(DataError, match="does not exist"):
        load_dataset("/no/such/dataset")


def test_csv_with_split_column(tmp_path):
    path = tmp_path / "intents.csv"
    pd.DataFrame({
        "utterance": ["hi", "hello", "bye", "see you", "hey", "later"],
        "intent": ["greet", "greet", "leave", "leave", "greet", "leave"],
        "part": ["train", "train", "train", "train", "heldout", "valid"],
    }).to_csv(path, index=False)
    dataset = load_dataset(path, text_column="utterance", label_column="intent", split_column="part", test_split="heldout")
    assert dataset.name == "intents"
    assert dataset.train["text"].tolist() == ["hi", "hello", "bye", "see you"]
    assert dataset.test.values.tolist() == [["hey", "greet"]]
    assert dataset.valid.values.tolist() == [["later", "leave"]]
    with pytest.raises(DataError, match=r"no rows with part == 'test' \(values found: heldout, train, valid\)"):
        load_dataset(path, text_column="utterance", label_column="intent", split_column="part")


def test_csv_missing_columns(tmp_path):
    path = tmp_path / "data.csv"
    pd.DataFrame({"text": ["hi"], "category": ["greet"]}).to_csv(path, index=False)
    with pytest.raises(DataError, match=r"has no column 'label', 'split' \(columns: text, category\)"):
        load_dataset(path)


def test_csv_with_separate_test_file(shared_data):
    polyai = shared_data / "banking77" / "polyai"
    dataset = load_dataset(polyai / "train.csv", label_column="category", test_path=polyai / "test.csv")
    assert (len(dataset.train), len(dataset.test), len(dataset.labels), dataset.valid) == (10003, 3080, 77, None)


# K-shot sampling


def test_k_shot_exact_and_short_classes(tiny_folder):
    train = load_dataset(tiny_folder).train
    sample = sample_k_shot(train, 4, seed=0)
    assert sample.frame.groupby("label").size().to_dict() == {"a": 4, "b": 4, "c": 2}
    assert sample.short_classes == {"c": 2}  # a class with fewer than K gives all it has
    assert set(sample.frame["text"]) <= set(train["text"])


def test_k_shot_deterministic_and_seed_dependent(shared_data):
    train = load_dataset(shared_data / "banking77" / "jianguoz").train
    first = sample_k_shot(train, 10, seed=3).frame
    assert first.equals(sample_k_shot(train, 10, seed=3).frame)
    assert first.groupby("label").size().eq(10).all() and len(first) == 770
    assert not first.equals(sample_k_shot(train, 10, seed=4).frame)
    five = sample_k_shot(train, 5, seed=3).frame
    assert set(five["text"]) <= set(first["text"])  # K=5 is the first half of the K=10 draw
    # A class's draw does not depend on the other classes.
    subset = train[train["label"].isin(["card_arrival", "top_up_failed"])]
    assert set(sample_k_shot(subset, 10, seed=3).frame["text"]) == set(first[first["label"].isin(["card_arrival", "top_up_failed"])]["text"])


# Method strings and paired gains


def test_method_strings():
    method = parse_method("aeda@weight=0.3,n=8")
    assert (method.label, method.generator, method.weight, method.n) == ("aeda@weight=0.3,n=8", "aeda", 0.3, 8)
    assert parse_method("none").weight == 1.0
    assert parse_method("eda+aeda|dedup@oversample=2").oversample == 2.0
    for spec, message in [
        ("eda@alpha=1", "bad option 'alpha=1'; options are weight=..., n=..., oversample=..."),
        ("nlpaug:backtranslation", "unknown nlpaug method 'nlpaug:backtranslation'; available: nlpaug:synonym"),
        ("none@weight=0.5", "'none' takes no options"),
        ("eda@weight=heavy", "option weight needs a number"),
    ]:
        with pytest.raises(MethodSpecError, match=message):
            parse_method(spec)
    import augkit

    with pytest.raises(augkit.UnknownMethodError, match="did you mean 'eda'"):
        parse_method("edaa")


def test_gains_are_paired_per_seed():
    runs = pd.DataFrame([
        {"dataset": "d", "classifier": "logreg", "shots": 5, "seed": seed, "method": method,
         "accuracy": acc, "macro_f1": acc, "train_examples": 10, "seconds": 1.0}
        for seed, base in ((0, 0.70), (1, 0.80))
        for method, acc in (("none", base), ("eda", base + 0.02))
    ])
    summary = summarise(runs).set_index("method")
    assert summary.loc["eda", "gain_accuracy_mean"] == pytest.approx(0.02)
    assert summary.loc["eda", "gain_accuracy_std"] == pytest.approx(0.0)  # not the spread of the two seeds
    assert summary.loc["none", "accuracy_mean"] == pytest.approx(0.75)
    assert list(summary.index) == ["none", "eda"]


def test_cli_reports_data_errors(tmp_path):
    path = tmp_path / "data.csv"
    pd.DataFrame({"text": ["hi"], "label": ["greet"]}).to_csv(path, index=False)
    done = run_benchmark_cli("--data", path, "--out", tmp_path / "out")
    assert done.returncode == 2
    assert "error: " in done.stderr and "has no column 'split'" in done.stderr
    pd.DataFrame({"text": ["hi", "bye", "hey"], "label": ["greet", "leave", "greet"],
                  "split": ["train", "train", "test"]}).to_csv(path, index=False)
    done = run_benchmark_cli("--data", path, "--C", 1, 10, "--out", tmp_path / "out")
    assert done.returncode == 2
    assert "error: data has no valid split, needed by --valid and by several --C values" in done.stderr


# End to end, with the packaged all-MiniLM-L6-v2


def run_benchmark_cli(*args):
    return subprocess.run([sys.executable, "-m", "benchmarks.fewshot", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO)


@pytest.mark.slow
def test_end_to_end_and_reproducible(shared_data, tmp_path):
    methods = ["none", "eda", "eda|semantic|label_integrity"]
    args = ["--data", shared_data / "banking77" / "jianguoz", "--classes-limit", 10, "--shots", 5,
            "--seeds", 2, "--n", 2, "--methods", *methods, "--threads", 2]
    runs = []
    for name in ("first", "second"):
        done = run_benchmark_cli(*args, "--out", tmp_path / name)
        assert done.returncode == 0, done.stderr
        runs.append(pd.read_csv(tmp_path / name / "runs.csv"))
    first, second = runs
    assert len(first) == 6
    assert first[["shots", "seed", "method"]].values.tolist() == [
        [5, seed, method] for seed in (0, 1) for method in methods
    ]
    assert first["dataset"].eq("banking77[10 classes]").all()
    assert (first["accuracy"] > 0.5).all()  # chance is 0.1; MiniLM + logistic regression scores about 0.9
    assert first["train_examples"].iloc[0] == 50 and first["train_examples"].iloc[1] == 150
    timing = ["seconds", "augment_seconds"]
    assert first.drop(columns=timing).equals(second.drop(columns=timing))  # same seeds, same numbers
    summary = (tmp_path / "first" / "summary.md").read_text()
    assert "python -m benchmarks.fewshot --data" in summary
    assert "| 5 | `eda\\|semantic\\|label_integrity` |" in summary
    assert (tmp_path / "first" / "gain.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_paramac_and_contextual_join_the_default_methods_when_their_models_are_at_hand(tmp_path, monkeypatch):
    pytest.importorskip("augkit_paramac")
    pytest.importorskip("augkit_contextual")
    from benchmarks.fewshot import DEFAULT_METHODS, default_methods

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("AUGKIT_MODEL_DIR", str(tmp_path / "models"))
    assert default_methods() == DEFAULT_METHODS  # nothing here: no download for a row
    for name in ("t5-large", "bert-base-uncased", "gpt2", "roberta-large-mnli"):
        (tmp_path / "models" / name).mkdir(parents=True)
    assert default_methods() == (*DEFAULT_METHODS, "paramac")
    (tmp_path / "models" / "distilroberta-base").mkdir()
    assert default_methods() == (*DEFAULT_METHODS, "paramac", "contextual")
