"""The ``augkit`` command end to end, on real shared data files."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from augkit.testing import run_command_captured


def run_cli(*args, cwd=None):
    """``augkit ARGS...`` in this process, its output captured (no Python to start)."""
    return run_command_captured(args, cwd=cwd)


def run_console_script(*args, cwd=None):
    """``augkit ARGS...`` in a Python of its own, as a shell runs it."""
    return subprocess.run([sys.executable, "-m", "augkit.cli", *map(str, args)], capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def banking_csv(shared_data):
    return shared_data / "banking77" / "polyai" / "test.csv"


def test_augment_real_csv_end_to_end(banking_csv, tmp_path):
    out_path = tmp_path / "out.csv"
    done = run_console_script("augment", banking_csv, "-m", "eda", "-n", 2, "--seed", 0, "--label-column", "category",
                              "-o", out_path)
    assert done.returncode == 0, done.stderr
    source = pd.read_csv(banking_csv, dtype=str, keep_default_na=False)
    out = pd.read_csv(out_path, dtype=str, keep_default_na=False)
    originals = out[out["augkit_method"] == ""]
    assert originals[["text", "category"]].reset_index(drop=True).equals(source)
    augmented = out[out["augkit_method"] == "eda"]
    assert len(augmented) == len(out) - len(source)
    sources = augmented["augkit_source"].astype(int)
    assert augmented["category"].tolist() == source["category"].iloc[sources].tolist()
    assert f"read {len(source)} rows; generated {len(augmented)} candidates, dropped 0 by dedup, 0 by protected; wrote {len(out)} rows " \
        f"({len(source)} original + {len(augmented)} augmented)" in done.stderr


def test_same_seed_same_file(banking_csv, tmp_path):
    outputs = []
    for name in ("a.csv", "b.csv"):
        done = run_cli("augment", banking_csv, "-m", "eda+aeda", "-n", 2, "--seed", 7, "--batch-size", 13 if name == "a.csv" else 500, "-o", tmp_path / name)
        assert done.returncode == 0, done.stderr
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet", ".csv.gz", ".xlsx"])
def test_formats_round_trip_labels_exactly(shared_data, tmp_path, suffix):
    folder = shared_data / "banking77" / "jianguoz" / "train_10"
    texts = (folder / "seq.in").read_text().splitlines()[:20]
    frame = pd.DataFrame({"text": texts, "label": (folder / "label").read_text().splitlines()[:20], "code": ["007"] * 10 + ["NA"] * 10})
    frame.loc[3, "text"] = ""
    source = tmp_path / f"in{suffix}"
    writers = {".csv": lambda p: frame.to_csv(p, index=False), ".csv.gz": lambda p: frame.to_csv(p, index=False),
               ".tsv": lambda p: frame.to_csv(p, sep="\t", index=False),
               ".jsonl": lambda p: frame.to_json(p, orient="records", lines=True), ".parquet": lambda p: frame.to_parquet(p),
               ".xlsx": lambda p: frame.to_excel(p, index=False)}
    writers[suffix](source)
    target = tmp_path / f"out{suffix}"
    done = run_cli("augment", source, "-m", "aeda", "-n", 1, "--seed", 0, "-o", target)
    assert done.returncode == 0, done.stderr
    readers = {".csv": lambda p: pd.read_csv(p, dtype=str, keep_default_na=False), ".csv.gz": lambda p: pd.read_csv(p, dtype=str, keep_default_na=False),
               ".tsv": lambda p: pd.read_csv(p, sep="\t", dtype=str, keep_default_na=False),
               ".jsonl": lambda p: pd.read_json(p, lines=True, dtype=False), ".parquet": pd.read_parquet,
               ".xlsx": lambda p: pd.read_excel(p, dtype=str, keep_default_na=False)}
    out = readers[suffix](target)
    codes = out["code"].tolist()
    assert codes.count("007") == 10 + 9 and codes.count("NA") == 10 + 10  # row 3 (empty text) has no copy
    assert len(out) == 39  # 20 originals + 19 augmentations (the empty text yields none)
    assert "1 row got no augmentation: 1 empty or whitespace text" in done.stderr


def test_typed_parameters_and_info(banking_csv, tmp_path):
    done = run_cli("augment", banking_csv, "-m", "eda", "-n", 1, "--seed", 0, "-p", "alpha_sr=0", "-p", "alpha_ri=0", "-p", "p_rd=0", "-o", tmp_path / "swap.csv")
    assert done.returncode == 0, done.stderr
    out = pd.read_csv(tmp_path / "swap.csv", dtype=str, keep_default_na=False)
    source = out[out["augkit_method"] == ""].set_index("augkit_source")["text"]
    for _, row in out[out["augkit_method"] == "eda"].head(50).iterrows():
        assert sorted(row["text"].split()) != [] and len(row["text"]) == len(source[row["augkit_source"]])
    info = run_cli("info", "eda")
    assert info.returncode == 0
    assert "alpha_sr: float = 0.1" in info.stdout and "Share of words replaced by a WordNet synonym" in info.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["-m", "edaa"], "did you mean 'eda'"),
        (["-m", "eda", "-p", "alpha=1"], "unknown parameter 'alpha'"),
        (["-m", "eda", "-p", "alpha_sr"], "-p expects KEY=VALUE"),
        (["-m", "eda", "-p", "alpha_sr=lots"], "expects float"),
        (["-m", "eda", "--text-column", "sentence"], "text column 'sentence' not found; columns are: text, category"),
        (["-m", "eda", "-n", "-1"], "-n must be at least 0, got -1"),
        (["-m", "eda", "-n=-5"], "-n must be at least 0, got -5"),
        (["-m", "eda", "--workers", "0"], "--workers must be at least 1, got 0"),
        (["-m", "eda+aeda", "-p", "punc_ratio=0.5"], "qualify it with the step that takes it: 'aeda.punc_ratio'"),
        (["-m", "eda+aeda", "-p", "alpha=0.5"], "no step of this pipeline takes a parameter 'alpha' (eda: alpha_sr,"),
        (["-m", "eda", "-p", "protect=film"],
         "-p protect=film: 'protect' is an option of augkit augment itself, not a parameter of 'eda'; give it as --protect"),
        (["-m", "eda", "-p", "progress=1"], "give it as --progress/--no-progress"),
        (["-m", "eda", "-p", "keep_original=false"], "give it as --drop-original (its inverse)"),
    ],
)
def test_usage_errors_exit_2_with_a_message(banking_csv, tmp_path, args, message):
    done = run_cli("augment", banking_csv, *args, "-o", tmp_path / "x.csv")
    assert done.returncode == 2
    assert message in done.stderr
    assert not (tmp_path / "x.csv").exists()


def test_bad_files_exit_2(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert "is empty" in run_cli("augment", empty, "-m", "eda", "-o", tmp_path / "o.csv").stderr
    header_only = tmp_path / "header.csv"
    header_only.write_text("text,label\n")
    done = run_cli("augment", header_only, "-m", "eda", "-o", tmp_path / "o.csv")
    assert done.returncode == 0 and "read 0 rows" in done.stderr
    done = run_cli("augment", tmp_path / "missing.csv", "-m", "eda", "-o", tmp_path / "o.csv")
    assert done.returncode == 2 and "does not exist" in done.stderr
    done = run_cli("augment", header_only, "-m", "eda", "-o", tmp_path / "o.docx")
    assert done.returncode == 2 and "cannot tell the format" in done.stderr
    assert run_cli("augment", header_only, "-o", tmp_path / "o.csv").returncode == 2  # argparse: -m missing


def test_non_string_cell_in_jsonl_is_named_or_coerced(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in [{"text": "lost my card", "label": 1}, {"text": 17, "label": 2}]) + "\n")
    done = run_cli("augment", source, "-m", "aeda", "-o", tmp_path / "o.jsonl")
    assert done.returncode == 2 and "column 'text', row 1: expected text (str), got int 17" in done.stderr
    done = run_cli("augment", source, "-m", "aeda", "--coerce", "-o", tmp_path / "o.jsonl")
    assert done.returncode == 0, done.stderr


def test_info_on_a_filter_and_on_an_unknown_name():
    done = run_cli("info", "dedup")
    assert done.returncode == 0 and "ignore_case: bool = False" in done.stdout
    done = run_cli("info", "edq")
    assert done.returncode == 2 and "unknown method 'edq'; did you mean 'eda'" in done.stderr


def test_workers_option_gives_the_same_file(banking_csv, tmp_path):
    for workers in (1, 2):
        done = run_cli("augment", banking_csv, "-m", "eda", "-n", 2, "--seed", 3, "--workers", workers, "-o", tmp_path / f"w{workers}.csv")
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "w1.csv").read_bytes() == (tmp_path / "w2.csv").read_bytes()


def _registry_with_commands(*commands):
    """A registry holding the given (name, add_arguments, run) plugin commands and no methods."""
    from augkit.registry.registered import PluginInfo, Registry

    registry = Registry()
    for name, add_arguments, run in commands:
        registry.add_command(name, add_arguments, run, help=f"the {name} command", plugin=PluginInfo("p", "dist-p", "2.0"))
    assert registry.problems == []
    return registry


def test_builtin_command_names_are_the_ones_the_registry_reserves(monkeypatch):
    from augkit.cli import main as cli
    from augkit.registry import discovery as plugins
    from augkit.registry.registered import BUILTIN_COMMANDS

    monkeypatch.setattr(plugins, "get_registry", _registry_with_commands)
    subcommands = next(a for a in cli.build_parser(cli.COMMAND_LINE)._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subcommands.choices) == BUILTIN_COMMANDS


def test_broken_plugin_commands_leave_builtins_and_other_commands_working(monkeypatch, capsys, banking_csv):
    from augkit.cli import main as cli
    from augkit.registry import discovery as plugins

    def clashing_arguments(parser):
        parser.add_argument("-h", help="clashes with --help")

    def failing_arguments(parser):
        raise RuntimeError("no arguments today")

    def counting_arguments(parser):
        parser.add_argument("input")

    def count_lines(args):
        print(len(Path(args.input).read_text().splitlines()))
        return 0

    def interrupted(args):
        raise KeyboardInterrupt

    registry = _registry_with_commands(
        ("clash", clashing_arguments, count_lines), ("fail", failing_arguments, count_lines),
        ("count", counting_arguments, count_lines), ("wrong-return", counting_arguments, lambda args: "ok"),
        ("stop", counting_arguments, interrupted), ("nothing", counting_arguments, lambda args: None),
    )
    monkeypatch.setattr(plugins, "get_registry", lambda: registry)
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    out, err = capsys.readouterr()
    assert out.startswith("augkit ")
    assert "command 'clash' failed to add its arguments: ArgumentError" in err
    assert "command 'fail' failed to add its arguments: RuntimeError('no arguments today'); skipped" in err
    assert cli.main(["count", str(banking_csv)]) == 0
    assert capsys.readouterr().out.strip() == str(len(banking_csv.read_text().splitlines()))
    assert cli.main(["wrong-return", str(banking_csv)]) == 1
    assert "returned 'ok'; run(args) must return an exit code (int)" in capsys.readouterr().err
    assert cli.main(["stop", "x"]) == 130
    assert cli.main(["nothing", "x"]) == 0
    with pytest.raises(SystemExit) as done:
        cli.main(["clash"])
    assert done.value.code == 2  # argparse: no such command
    assert cli.main(["info", "dedup"]) == 2  # the stand-in registry has no filters: a usage error, not a crash
    capsys.readouterr()
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "COMMAND" in out and "count         dist-p  2.0      the count command" in out


def test_plugin_command_with_nested_subcommands(monkeypatch, capsys):
    from augkit.cli import main as cli
    from augkit.registry import discovery as plugins

    def build_arguments(parser):
        kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
        kinds.add_parser("pairs", help="build pairs").add_argument("--limit", type=int, default=1)

    def build(args):
        print(f"building {args.kind} up to {args.limit}")
        return 0

    monkeypatch.setattr(plugins, "get_registry", lambda: _registry_with_commands(("build", build_arguments, build)))
    assert cli.main(["build", "pairs", "--limit", "3"]) == 0
    assert capsys.readouterr().out == "building pairs up to 3\n"
    with pytest.raises(SystemExit) as done:
        cli.main(["build", "pairs", "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage: augkit build pairs [-h] [--limit LIMIT]")


def test_the_qualified_parameter_the_hint_names_works(banking_csv, tmp_path):
    hint = run_cli("augment", banking_csv, "-m", "eda+aeda", "-p", "punc_ratio=0.5", "-o", tmp_path / "x.csv").stderr
    qualified = hint.split("'")[3]
    assert qualified == "aeda.punc_ratio"
    done = run_cli("augment", banking_csv, "-m", "eda+aeda", "-p", f"{qualified}=0.5", "--seed", 1, "-o", tmp_path / "x.csv")
    assert done.returncode == 0, done.stderr


def test_a_run_without_seed_prints_the_seed_that_reproduces_it(banking_csv, tmp_path):
    first = run_cli("augment", banking_csv, "-m", "eda", "-o", tmp_path / "a.csv")
    assert first.returncode == 0
    seed = int(first.stderr.split("--seed ")[1].split()[0])
    assert f"seed {seed} (drawn at random: --seed {seed} reproduces this run)" in first.stderr
    again = run_cli("augment", banking_csv, "-m", "eda", "--seed", seed, "-o", tmp_path / "b.csv")
    assert "drawn at random" not in again.stderr and f"seed {seed};" in again.stderr
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_the_report_keeps_the_seed_drawn(banking_csv):
    import augkit

    texts = pd.read_csv(banking_csv)["text"].head(20).tolist()
    first, report = augkit.augment_with_report(texts, "eda", n=2)
    assert isinstance(report.seed, int) and report.as_dict()["seed"] == report.seed
    assert augkit.augment(texts, "eda", n=2, seed=report.seed) == first


def test_a_reader_that_stops_early_is_not_an_error():
    process = subprocess.Popen([sys.executable, "-m", "augkit.cli", "info", "eda"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, bufsize=0)
    process.stdout.close()  # like `augkit info eda | head -0`: the reader is gone before augkit writes
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0 and err == ""


def test_a_bad_parameter_value_names_its_step_once(banking_csv, tmp_path):
    done = run_cli("augment", banking_csv, "-m", "eda|edit_ratio(min=-1)", "-o", tmp_path / "x.csv")
    assert done.returncode == 2
    assert "augkit: error: edit_ratio: min must be a number >= 0, got -1" in done.stderr
    assert "edit_ratio: edit_ratio:" not in done.stderr


def test_a_plugin_command_runs_augkit_through_the_context_it_is_handed(monkeypatch, capsys, shared_data, tmp_path):
    """A command whose ``run`` takes ``context`` gets the command line's ``CommandContext``:
    ``context.run_augkit(argv)`` runs ``augkit ARGV...`` in the process and returns its exit
    code, so a plugin builds on ``augkit augment`` without importing augkit.cli; a plain
    ``run(args)`` is called as before."""
    from augkit.cli import main as cli
    from augkit.registry.discovery import get_registry
    from augkit.registry.registered import PluginInfo, RegisteredCommand
    from augkit.testing import run_command

    questions = (shared_data / "banking77/jianguoz/valid/seq.in").read_text(encoding="utf-8").splitlines()[:12]
    source = tmp_path / "valid.csv"
    pd.DataFrame({"text": questions}).to_csv(source, index=False)

    def add_arguments(parser):
        parser.add_argument("input")
        parser.add_argument("-o", "--output", required=True)

    def shout_through_augment(args, context):
        return context.run_augkit(["augment", args.input, "-m", "eda", "-n", "1", "--seed", "5", "-o", args.output])

    plugin = PluginInfo("p", "dist-p", "1.0")
    registry = get_registry()
    monkeypatch.setitem(registry.commands, "via-augment", RegisteredCommand(
        "via-augment", add_arguments, shout_through_augment, "augment through the context", plugin))
    monkeypatch.setitem(registry.commands, "wrong-input", RegisteredCommand(
        "wrong-input", add_arguments, lambda args, context: context.run_augkit(["augment", args.input, "-m", "edaa",
                                                                                "-o", args.output]), "h", plugin))
    assert cli.main(["via-augment", str(source), "-o", str(tmp_path / "via.csv")]) == 0
    assert run_command(["augment", source, "-m", "eda", "-n", "1", "--seed", "5", "-o", tmp_path / "direct.csv"]) == 0
    assert (tmp_path / "via.csv").read_bytes() == (tmp_path / "direct.csv").read_bytes()
    written = pd.read_csv(tmp_path / "via.csv")["text"].tolist()
    assert len(written) == 2 * len(questions) and set(questions) < set(written)
    capsys.readouterr()
    assert cli.main(["wrong-input", str(source), "-o", str(tmp_path / "x.csv")]) == 2  # augment's own usage error
    assert "did you mean 'eda'" in capsys.readouterr().err


@pytest.mark.parametrize("args", [
    ("augment", "{csv}", "-m", "eda", "-n", "1", "--seed", "4", "-o", "out.csv"),  # relative output: run from cwd
    ("augment", "{csv}", "-o", "out.csv"),  # argparse refuses: -m missing
    ("info", "edq"),  # augkit refuses: no such method
    ("--version",),  # argparse prints and exits 0
])
def test_the_in_process_command_gives_what_the_console_script_gives(banking_csv, tmp_path, args):
    """``augkit.testing.run_command_captured`` stands in for the console script in most of these
    tests: it must give the same exit code, output and files."""
    def run(runner, folder):
        folder.mkdir()
        done = runner(*(str(a).format(csv=banking_csv) for a in args), cwd=folder)
        written = (folder / "out.csv").read_bytes() if (folder / "out.csv").exists() else None
        return done.returncode, done.stdout, done.stderr, written

    assert run(run_cli, tmp_path / "in-process") == run(run_console_script, tmp_path / "subprocess")


def test_a_command_that_exits_with_a_message_gives_exit_1_and_the_message(monkeypatch):
    """``sys.exit("message")`` in a command: status 1 and the message on stderr, as Python
    gives them at the end of a process."""
    from augkit.registry import discovery as plugins

    def give_up(args):
        sys.exit("no input today")

    monkeypatch.setattr(plugins, "get_registry", lambda: _registry_with_commands(("give-up", lambda parser: None, give_up)))
    done = run_cli("give-up")
    assert (done.returncode, done.stderr) == (1, "no input today\n")
