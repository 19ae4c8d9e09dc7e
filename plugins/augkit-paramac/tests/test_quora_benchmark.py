"""benchmarks/paramac_quora.py, Table 1's Quora protocol, on 8 shared Quora pairs with the tiny
models: each source keeps the candidate of highest iBLEU, and every figure it writes is
augkit.metrics computed directly on what it wrote."""

from __future__ import annotations

import json
import shutil

import pytest

import augkit
from augkit.metrics import IBLEU_ALPHA, bleu, ibleu, rouge
from benchmarks.paramac_quora import (
    PAPER_QUORA,
    SENTENCE,
    main,
    paraphraser_prompt,
    read_pairs,
    select_by_ibleu,
)

PAIRS = 8


def _run(tmp_path, shared_data, *options) -> tuple[dict, list[dict]]:
    out = tmp_path / "quora"
    assert main(["--data", str(shared_data), "--pairs", str(PAIRS), "--out-dir", str(out), *options]) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in (out / "outputs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert (out / "summary.md").read_text(encoding="utf-8").startswith("# Quora, Table 1 protocol")
    return summary, rows


def _check_selection_and_figures(summary: dict, rows: list[dict], k: int, shared_data) -> None:
    pairs = read_pairs(shared_data, "val", PAIRS)
    assert [(row["source"], row["reference"]) for row in rows] == [(a.lower(), b.lower()) for a, b in pairs]
    for row in rows:
        texts = [c["text"] for c in row["candidates"]]
        assert len(texts) <= k and len(set(texts)) == len(texts)
        for candidate in row["candidates"]:
            assert candidate["ibleu"] == ibleu([candidate["text"]], [row["reference"]], [row["source"]], alpha=IBLEU_ALPHA)
        if not texts:
            assert row["chosen"] is None and row["output"] == row["source"]
            continue
        values = [c["ibleu"] for c in row["candidates"]]
        best = row["chosen"]
        assert values[best] == max(values) and max(values) not in values[:best]  # the highest, the first on a tie
        assert row["output"] == texts[best]
    outputs, references, sources = ([row[key] for row in rows] for key in ("output", "reference", "source"))
    metrics, overlap = summary["metrics"], rouge(outputs, references)
    assert metrics["ibleu"] == ibleu(outputs, references, sources, alpha=IBLEU_ALPHA)
    assert metrics["bleu"] == bleu(outputs, references)
    assert metrics["bleu_to_source"] == bleu(outputs, sources)
    assert (metrics["rouge1"], metrics["rouge2"]) == (100 * overlap["rouge1"], 100 * overlap["rouge2"])
    assert summary["paper_table1_quora"]["ParaMod"] == {"ibleu": 14.57, "bleu": 27.45, "rouge1": 60.05, "rouge2": 39.32}
    assert summary["sources_without_candidates"] == sum(row["chosen"] is None for row in rows)


def test_paramac_candidates_are_the_methods_outputs_and_the_highest_ibleu_is_kept(tmp_path, shared_data, paramac_params):
    k = 4
    params = [f"--param={name}={value}" for name, value in paramac_params.items()]
    summary, rows = _run(tmp_path, shared_data, "--method", "paramac", "--k", str(k), *params)
    _check_selection_and_figures(summary, rows, k, shared_data)
    assert summary["run"]["method"] == "paramac" and summary["run"]["params"]["num_beams"] == paramac_params["num_beams"]
    sources = [a for a, _ in read_pairs(shared_data, "val", PAIRS)]
    direct = augkit.augment(sources, method="paramac", n=k, seed=0, **paramac_params)
    for row, outputs in zip(rows, direct):
        assert [c["text"] for c in row["candidates"]] == list(dict.fromkeys(" ".join(o.split()).lower() for o in outputs))
    assert sum(len(row["candidates"]) for row in rows) > PAIRS  # the selection had a choice to make


def test_a_seq2seq_paraphraser_gives_k_beam_outputs_per_source(tmp_path, shared_data, tiny_t5_infiller):
    summary, rows = _run(tmp_path, shared_data, "--paraphraser", str(tiny_t5_infiller), "--k", "3", "--num-beams", "3",
                         "--max-new-tokens", "8")
    _check_selection_and_figures(summary, rows, 3, shared_data)
    assert summary["run"]["prompt"] == SENTENCE  # no training record: the bare sentence, as the authors' ParaMod
    assert summary["run"]["num_beams"] == 3


def test_the_prompt_comes_from_the_training_record_unless_given(tmp_path, tiny_t5_infiller):
    folder = tmp_path / "paramod"
    shutil.copytree(tiny_t5_infiller, folder)
    assert paraphraser_prompt(str(folder), None) == SENTENCE
    (folder / "augkit-training.json").write_text(json.dumps({"prompt": "paraphrase: <sentence> </s>"}))
    assert paraphraser_prompt(str(folder), None) == "paraphrase: <sentence> </s>"
    assert paraphraser_prompt(str(folder), "rewrite: <sentence>") == "rewrite: <sentence>"
    with pytest.raises(SystemExit, match="no <sentence>"):
        paraphraser_prompt(str(folder), "rewrite this")


def test_the_first_of_equal_ibleu_candidates_is_kept_and_a_source_without_candidates_keeps_its_copy():
    scored = select_by_ibleu(["How do I learn Python ?", "What is love ?"],
                             ["What is the best way to learn Python ?", "What does love mean ?"],
                             [["How can I learn Python fast ?", "how can i learn python fast ?", "Learn Python how ?"], []],
                             alpha=IBLEU_ALPHA)
    assert scored[0].candidates == ["how can i learn python fast ?", "learn python how ?"]  # lower-cased, repeats dropped
    assert scored[0].chosen == max(range(2), key=lambda i: (scored[0].ibleu[i], -i))
    assert scored[1].chosen is None and scored[1].output == "what is love ?"
    assert set(PAPER_QUORA) >= {"ParaMod"}
