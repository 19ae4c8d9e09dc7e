"""One rule per job (issue 36): each rule augkit and its plugins share is written once, in the
core, and every site that needs it calls that one. Each test here names the rule and fails
when a second copy of it appears (or the one copy goes)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: Every module of the core and of the plugins (their tests aside): where a second copy would hide.
SOURCE_MODULES = sorted(
    path for path in [*REPO.glob("augkit/**/*.py"), *REPO.glob("plugins/*/augkit_*/**/*.py")]
    if "tests" not in path.relative_to(REPO).parts
)


def calls_of(attribute: str, module: str) -> list[str]:
    """``file:line`` of every call of ``module.attribute`` (``difflib.get_close_matches``)
    or of ``attribute`` imported from ``module``, across :data:`SOURCE_MODULES`."""
    found = []
    for path in SOURCE_MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = any(isinstance(node, ast.ImportFrom) and node.module == module
                       and any(alias.name == attribute for alias in node.names) for node in ast.walk(tree))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            called = node.func
            if (isinstance(called, ast.Attribute) and called.attr == attribute and isinstance(called.value, ast.Name)
                    and called.value.id == module) or (imported and isinstance(called, ast.Name) and called.id == attribute):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    return found


# -- one did-you-mean ---------------------------------------------------------------------------

def test_did_you_mean_is_offered_to_plugins_and_names_the_closest_choices():
    from augkit.plugin import did_you_mean

    assert did_you_mean("minmx", ("minmax", "zscore", "raw")) == "; did you mean 'minmax'?"
    assert did_you_mean("alpha", ["alpha_sr", "alpha_ri", "p_rd"], n=2) == "; did you mean 'alpha_sr' or 'alpha_ri'?"
    assert did_you_mean("kk", ["k", "normalize"], kind="parameter") == "; did you mean parameter 'k'?"
    assert did_you_mean("xyz", ["eda", "aeda"]) == ""


def test_only_the_one_did_you_mean_looks_for_close_names():
    assert calls_of("get_close_matches", "difflib") == ["augkit/steps/params.py:" + str(_line_of_close_matches())]


def _line_of_close_matches() -> int:
    source = (REPO / "augkit/steps/params.py").read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(source, 1) if "difflib.get_close_matches(" in line)


def test_each_former_copy_still_says_did_you_mean():
    import augkit
    from augkit.errors import InvalidParameterError
    from augkit.filters.rank import RankFilter

    with pytest.raises(InvalidParameterError, match=r"got 'minmx'; did you mean 'minmax'\?"):
        RankFilter(semantic=1, normalize="minmx")
    with pytest.raises(InvalidParameterError, match=r"got 'x'; did you mean parameter 'k'\?"):
        RankFilter(semantic=1, kk="x")
    with pytest.raises(InvalidParameterError, match=r"'rank' uses the score 'semantc', which no earlier step adds; "
                                                    r"did you mean 'semantic'\?"):
        augkit.Pipeline.from_string("eda|semantic|rank(semantc=1)")


# -- one atomic writer ---------------------------------------------------------------------------

def write_to_a_full_disk(path: Path) -> None:
    """Write into ``path`` through /dev/full: the kernel fails the write with ENOSPC, as a
    disk that filled up mid-save would."""
    path.symlink_to("/dev/full")
    with open(path, "w", encoding="utf-8") as file:
        file.write("weights" * 10_000)


def test_an_atomic_folder_replaces_the_old_one_whole_and_a_failed_one_leaves_it_as_it_was(tmp_path):
    from augkit.files.atomic import PARTIAL_SUFFIX, atomic_folder

    target = tmp_path / "checkpoint-2"
    with atomic_folder(target) as partial:
        (partial / "model.bin").write_text("first", encoding="utf-8")
        assert not target.exists()  # nothing under the final name while it is written
    with atomic_folder(target) as partial:
        (partial / "optimizer.pt").write_text("second", encoding="utf-8")
    assert sorted(p.name for p in target.iterdir()) == ["optimizer.pt"]  # replaced, not merged

    with pytest.raises(OSError, match="checkpoint-2"):  # the error names the folder the user knows
        with atomic_folder(target) as partial:
            (partial / "model.bin").write_text("third", encoding="utf-8")
            write_to_a_full_disk(partial / "optimizer.pt")
    assert sorted(p.name for p in target.iterdir()) == ["optimizer.pt"]
    assert (target / "optimizer.pt").read_text(encoding="utf-8") == "second"
    assert not list(tmp_path.glob(f".*{PARTIAL_SUFFIX}"))


def test_a_killed_checkpoint_writer_leaves_a_partial_folder_the_next_training_run_clears(tmp_path):
    import os
    import subprocess
    import sys

    from augkit.files.atomic import PARTIAL_SUFFIX
    from augkit.training.folder import training_folder

    output = tmp_path / "model"
    output.mkdir()
    writer = ("import os, sys, time\nfrom augkit.files.atomic import atomic_folder\n"
              "with atomic_folder(sys.argv[1]) as partial:\n"
              "    (partial / 'model.bin').write_text('half')\n    print('writing', flush=True)\n    time.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", writer, str(output / "checkpoint-3")], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "writing\n"
    process.kill()
    process.wait()
    assert [p.name.endswith(PARTIAL_SUFFIX) for p in output.iterdir()] == [True]
    assert not (output / "checkpoint-3").exists()
    with training_folder(output, resume=True) as resume_from:
        assert resume_from is None  # the half checkpoint is not one to resume from
    assert not [p for p in os.listdir(output) if p.endswith(PARTIAL_SUFFIX)]


# -- one name per duplicate rule -------------------------------------------------------------

def test_the_faq_and_parabank_duplicate_rules_have_a_name_each_saying_what_is_the_same():
    from augkit_backtranslation.parabank import same_sentence_rule
    from augkit_faq.postprocess import same_question_rule

    questions, sentences = same_question_rule(), same_sentence_rule()
    assert questions.key("How do I pay?") == questions.key("how do i  pay")  # final punctuation aside
    assert sentences.key("How do I pay?") != sentences.key("how do i  pay")  # a sentence keeps its mark
    assert sentences.key("I paid") == sentences.key("i  PAID")
    defined = [path.relative_to(REPO) for path in SOURCE_MODULES
               if any(isinstance(node, ast.FunctionDef) and node.name == "duplicate_rule"
                      for node in ast.parse(path.read_text(encoding="utf-8")).body)]
    assert not defined, f"two jobs under one name, duplicate_rule: {defined}"


# -- one base training-settings class ------------------------------------------------------------

def every_targets_settings():
    from augkit_erap.pretraining import PretrainSettings
    from augkit_erap.rl import RLSettings
    from augkit_faq.training import TrainingSettings
    from augkit_pointer.training import PointerSettings

    return [TrainingSettings, PointerSettings, PretrainSettings, RLSettings]


def test_every_training_target_subclasses_the_one_settings_class_and_keeps_its_own_defaults():
    import dataclasses

    from augkit.plugin import TrainerArgumentsSettings, TrainerSettings

    faq, pointer, pretrain, rl = every_targets_settings()
    assert all(issubclass(cls, TrainerArgumentsSettings) for cls in (faq, pointer, pretrain))
    assert issubclass(rl, TrainerSettings) and not issubclass(rl, TrainerArgumentsSettings)  # no Trainer: no warm-up
    assert [cls().learning_rate for cls in (faq, pointer, pretrain, rl)] == [3e-4, None, 3e-4, 1e-5]
    assert [cls().batch_size for cls in (faq, pointer, pretrain, rl)] == [6, 32, 8, 8]
    shared = {f.name for f in dataclasses.fields(TrainerSettings)}
    assert all(shared <= {f.name for f in dataclasses.fields(cls)} for cls in every_targets_settings())


@pytest.mark.parametrize("setting, value, message", [
    ("save_total_limit", 0, "save-total-limit must be positive, got 0"),
    ("weight_decay", -0.1, "weight-decay must be >= 0, got -0.1"),
    ("max_steps", 0, "max-steps must be positive, or -1 to train for --epochs, got 0"),
    ("learning_rate", 0.0, "learning-rate must be positive, got 0.0"),
])
def test_every_training_target_refuses_a_bad_shared_setting_alike(setting, value, message):
    from augkit.plugin import UsageError

    for cls in every_targets_settings():
        with pytest.raises(UsageError, match=message):
            cls(**{setting: value}).check()
        cls().check()  # its defaults pass


def test_a_settings_dataclass_checks_its_own_fields_after_the_shared_ones():
    import dataclasses

    from augkit.plugin import TrainerArgumentsSettings, UsageError

    @dataclasses.dataclass
    class MySettings(TrainerArgumentsSettings):
        learning_rate: float = 3e-4
        max_length: int = 64
        patience: float | None = None

        POSITIVE = (*TrainerArgumentsSettings.POSITIVE, "max_length", "patience")

    assert MySettings().learning_rate == 3e-4 and MySettings().logging_steps == 10
    MySettings().check()  # patience None: chosen later
    with pytest.raises(UsageError, match="patience must be positive, got 0"):
        MySettings(patience=0).check()
    with pytest.raises(UsageError, match="logging-steps must be positive"):
        MySettings(logging_steps=0).check()


# -- one column check for every adapter ------------------------------------------------------------

@pytest.fixture(scope="module")
def trec_questions(shared_data):
    """Twelve TREC test questions with their coarse labels (0=DESC ... 5=NUM)."""
    import pandas as pd

    lines = (shared_data / "trec/eda_nlp/test/test.txt").read_text(encoding="utf-8").splitlines()[:12]
    labels, texts = zip(*(line.split("\t", 1) for line in lines))
    return pd.DataFrame({"question": texts, "coarse": labels})


@pytest.mark.parametrize("columns, message", [
    (dict(label_column="kind"), "label column 'kind' not found; columns are: question, coarse"),
    (dict(protect_column="coarse", label_column="coarse"), "the protect column 'coarse' is the label column"),
    (dict(text_column="query"), "text column 'query' not found; columns are: question, coarse"),
])
def test_every_adapter_refuses_a_wrong_column_with_the_one_message(trec_questions, tiny_encoder_dir, tmp_path, columns,
                                                                   message):
    import datasets

    import augkit
    from augkit.errors import AugkitError
    from augkit.jobs.file_augment import augment_file
    from augkit.jobs.file_job import FileJob

    for method in ("eda", f"eda|label_integrity(model={tiny_encoder_dir!r})"):  # the second reads every row first
        named = {"text_column": "question", **columns}
        with pytest.raises(AugkitError, match=message):
            augkit.augment(trec_questions, method, seed=1, **named)
        with pytest.raises(AugkitError, match=message):
            augkit.augment(datasets.Dataset.from_pandas(trec_questions), method, seed=1, **named)
        source = tmp_path / "trec.csv"
        trec_questions.to_csv(source, index=False)
        job = FileJob(input=source, output=tmp_path / "out.csv", method=method, params={}, seed=1, chunk_rows=5, **named)
        with pytest.raises(AugkitError, match=message):
            augment_file(job)
        assert not (tmp_path / "out.csv").exists()


def test_the_column_check_is_one_function_the_adapters_share():
    from augkit.adapters.columns import check_run_columns

    for module in ("augkit/adapters/frame.py", "augkit/adapters/hf_dataset.py", "augkit/adapters/ray_dataset.py",
                   "augkit/jobs/file_augment.py"):
        source = (REPO / module).read_text(encoding="utf-8")
        assert "check_run_columns(" in source and "not found; columns are" not in source, module
    assert check_run_columns.__module__ == "augkit.adapters.columns"


# -- one ranker ----------------------------------------------------------------------------------

def test_top_k_is_the_ranker_on_raw_scores_under_its_own_name(shared_data):
    from augkit.filters import RankFilter, TopKFilter
    from augkit.steps.candidate import Candidate

    texts = (shared_data / "clinc150/jianguoz/valid/seq.in").read_text(encoding="utf-8").splitlines()[:6]
    scores = [(0.91, 0.10), (0.74, 0.42), (0.88, 0.35), (0.60, 0.05), (0.91, 0.10), (0.83, 0.51)]

    def candidates():
        return [Candidate(text, "eda", scores={"semantic": s, "edit_ratio": e}) for text, (s, e) in zip(texts, scores)]

    assert issubclass(TopKFilter, RankFilter)
    top = TopKFilter(k=4, weights={"semantic": 1, "edit_ratio": 0.5}).filter(texts[0], candidates())
    ranked = RankFilter(k=4, normalize="raw", semantic=1, edit_ratio=0.5).filter(texts[0], candidates())
    assert [c.text for c in top] == [c.text for c in ranked]
    assert [c.scores["rank_score"] for c in top] == [c.scores["rank"] for c in ranked]
    every = TopKFilter().filter(texts[0], candidates())  # no weights: every score, weight 1
    assert [c.text for c in every] == [c.text for c in RankFilter(normalize="raw", semantic=1, edit_ratio=1)
                                       .filter(texts[0], candidates())]
    assert TopKFilter(k=2, weights="semantic=1").changed_params() == {"k": 2, "weights": {"semantic": 1.0}}
