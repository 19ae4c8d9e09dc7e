"""The README's example output is what augkit really prints, and the docs name every built-in."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import augkit
from conftest import is_repository_plugin

REPO = Path(__file__).resolve().parents[2]


def test_readme_example_output_is_current():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^(augkit\.augment\(\[.*\)\)?)\n# (\[\[.*\]\])$", readme, re.MULTILINE)
    assert match, "README lost its list example"
    call = ast.parse(match.group(1), mode="eval").body
    texts = ast.literal_eval(call.args[0])
    method = ast.literal_eval(call.args[1])
    keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    assert augkit.augment(texts, method, **keywords) == ast.literal_eval(match.group(2))


def test_readme_opens_with_the_two_commands():
    first_lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()[:4]
    assert first_lines[0] == "```sh"
    assert first_lines[1].startswith("make demo") and first_lines[2].startswith("make test")
    assert "make test" in (REPO / ".ci" / "run").read_text()


def test_every_builtin_method_has_a_page():
    for name, entry in augkit.get_registry().methods.items():
        if is_repository_plugin(entry.plugin):  # the LLM and nlpaug methods share a page each
            page = "llm" if name.startswith("llm_") else "nlpaug" if name.startswith("nlpaug.") else name
            assert (REPO / "docs" / "methods" / f"{page}.md").is_file(), name


def _python_blocks(page: str) -> list[str]:
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def test_the_plugin_guides_command_example_runs_as_copied(tmp_path):
    block = next(b for b in _python_blocks("plugin-authors.md") if "def shout_file" in b)
    namespace: dict = {}
    exec(compile(block, "plugin-authors.md", "exec"), namespace)  # nothing but the block itself
    source = tmp_path / "in.txt"
    source.write_text("I lost my card\nwhere is my refund\n", encoding="utf-8")
    args = type("Args", (), {"input": str(source), "output": str(tmp_path / "out.txt")})()
    assert namespace["shout_file"](args) == 0
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "I LOST MY CARD!\nWHERE IS MY REFUND!\n"


def test_the_plugin_guides_scored_augmenter_example_runs_as_copied():
    block = next(b for b in _python_blocks("plugin-authors.md") if "class Ranked" in b)
    namespace = {"augkit": augkit}
    exec(compile(block, "plugin-authors.md", "exec"), namespace)
    out = augkit.augment(["I lost my card"], augkit.Pipeline(namespace["Ranked"]()), n=1, seed=0)
    assert out == [["I LOST MY CARD"]]
    frame = augkit.augment(__import__("pandas").DataFrame({"text": ["I lost my card"]}), namespace["Ranked"](), n=1, seed=0)
    assert frame["augkit_method"].tolist()[1] == "ranked" and frame["augkit_confidence"].tolist()[1] == 0.9


def test_the_plugin_guides_context_reading_pair_augmenter_runs_as_copied(shared_data):
    import pandas as pd

    block = next(b for b in _python_blocks("plugin-authors.md") if "class NegateEntailed" in b)
    namespace = {"augkit": augkit}
    exec(compile(block, "plugin-authors.md", "exec"), namespace)
    sick = pd.read_csv(shared_data / "sick" / "brmson" / "SICK_trial.txt", sep="\t").head(40)
    out = augkit.augment(sick, namespace["NegateEntailed"](), n=1, seed=0, text_column="sentence_B",
                         label_column="entailment_judgment", context_columns={"premise": "sentence_A"})
    augmented = out[out["augkit_method"].notna()]
    negated = augmented[augmented["augkit_label_from"].notna()]
    assert len(negated) and (negated["entailment_judgment"] == "CONTRADICTION").all()
    assert (negated["augkit_changed"] == "sentence_B,entailment_judgment").all()
    rewritten = augmented[augmented["augkit_label_from"].isna()]
    assert len(rewritten) and (rewritten["augkit_changed"] == "sentence_A").all()
    assert rewritten["sentence_A"].str.contains("'s ").all()


def test_the_plugin_guides_complete_example_runs_as_copied(shared_data, tiny_masked_lm):
    import pandas as pd

    from augkit.plugin import RankFilter

    block = next(b for b in _python_blocks("plugin-authors.md") if "class ContextFill" in b)
    namespace = {"__name__": "plugin_guide_example"}
    exec(compile(block, "plugin-authors.md", "exec"), namespace)  # nothing but the block itself
    sick = pd.read_csv(shared_data / "sick" / "brmson" / "SICK_trial.txt", sep="\t").head(30)

    def run(workers):
        pipeline = augkit.Pipeline(namespace["ContextFill"](model=str(tiny_masked_lm)), [RankFilter(fill_logprob=1.0)])
        return augkit.augment(sick, pipeline, n=2, seed=0, text_column="sentence_B", workers=workers,
                              context_columns={"previous": "sentence_A"})

    out = run(1)
    added = out[out["augkit_method"] == "context-fill"]
    assert len(added) > 20 and added["augkit_fill_logprob"].lt(0).all()
    for source, group in added.groupby("augkit_source"):
        original = sick.loc[source, "sentence_B"].split()
        assert group["augkit_fill_logprob"].is_monotonic_decreasing  # rank put the likeliest first
        for text in group["sentence_B"]:
            words = text.split()
            assert len(words) == len(original) and sum(a != b for a, b in zip(words, original)) == 1
    pd.testing.assert_frame_equal(out, run(2))  # the model reloads in each worker: same rows


def test_the_plugin_guides_web_tab_example_runs_as_copied(shared_data, tmp_path):
    """The tab of the guide, built on a page and its handlers called with the context the page
    hands it: TREC questions shouted into the server's folder, an oversized upload refused."""
    import gradio as gr
    import pandas as pd

    from augkit.plugin import read_table
    from augkit.testing import tab_context

    block = next(b for b in _python_blocks("plugin-authors.md") if "def shout_upload" in b)
    namespace: dict = {}
    exec(compile(block, "plugin-authors.md", "exec"), namespace)
    serve = tmp_path / "serve"
    serve.mkdir()
    context = tab_context(serve, max_file_size=2_000)
    with gr.Blocks(analytics_enabled=False) as page:
        namespace["build_tab"](context)
    assert {"shout-file", "shout-text", "shout-run"} <= {getattr(b, "elem_id", None) for b in page.blocks.values()}

    lines = (shared_data / "trec" / "eda_nlp" / "test" / "test.txt").read_text(encoding="utf-8").splitlines()
    trec = pd.DataFrame([line.split("\t", 1)[::-1] for line in lines], columns=["question", "label"])
    small, large = tmp_path / "trec.tsv", tmp_path / "trec-all.tsv"
    trec.iloc[:12].to_csv(small, sep="\t", index=False)
    trec.to_csv(large, sep="\t", index=False)
    text_column, _, status = namespace["upload_columns"](str(small), context)
    assert text_column["choices"] == ["question", "label"] and text_column["value"] == "question"
    path, status = namespace["shout_upload"](str(small), "question", context)
    assert Path(path).parent.parent == serve and Path(path).name == "trec-shouted.tsv"
    assert status == "trec-shouted.tsv: 12 rows, 'question' shouted"
    written = read_table(path)
    assert written["question"].tolist() == trec["question"].iloc[:12].str.upper().tolist()
    assert written["label"].astype(str).tolist() == trec["label"].iloc[:12].tolist()
    assert namespace["shout_upload"](str(small), "text", context) == (
        None, "**Error:** the table has no column 'text'; it has question, label")
    _, _, status = namespace["upload_columns"](str(large), context)
    assert status.startswith("**Cannot use this file:** the file is ") and "the limit is 2 KB" in status
    assert str(tmp_path) not in status
