"""``near_duplicates`` in streamed file jobs (issue 37): its decisions depend on the outputs kept
for earlier rows, across chunks, yet the output and trace are the same bytes in one chunk or
many, as in memory, and after a job killed mid-run (SIGKILL) and resumed, which remembers
the outputs of the chunks it had done. The Ray backend refuses it before any work."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import augkit
from augkit.cli.main import main
from augkit.tables.io import read_table
from conftest import read_lines

#: EDA editing a third of the words: its outputs leave their source behind and meet each other's.
METHOD = "eda(alpha_sr=0.3, alpha_ri=0.3, alpha_rs=0.3, p_rd=0.3)|near_duplicates"


@pytest.fixture(scope="module")
def banking_csv(shared_data, tmp_path_factory) -> Path:
    folder = shared_data / "banking77" / "jianguoz" / "train"
    frame = pd.DataFrame({"text": read_lines(folder / "seq.in")[:1500], "label": read_lines(folder / "label")[:1500]})
    path = tmp_path_factory.mktemp("near-duplicates") / "train.csv"
    frame.to_csv(path, index=False)
    return path


def _arguments(source: Path, output: Path, chunk_rows: int) -> list[str]:
    return [str(source), "-m", METHOD, "-n", "3", "--seed", "37", "--label-column", "label", "--chunk-rows",
            str(chunk_rows), "--no-progress", "-o", str(output), "--trace", str(output.with_suffix(".trace.csv"))]


def test_chunks_give_the_one_chunk_output_and_trace_and_the_in_memory_one(tmp_path, banking_csv):
    small = tmp_path / "small.csv"
    read_table(banking_csv).head(400).to_csv(small, index=False)
    outputs = []
    for chunk_rows in (400, 40):
        out = tmp_path / f"out-{chunk_rows}.csv"
        assert main(["augment", *_arguments(small, out, chunk_rows)]) == 0
        outputs.append(out)
    assert outputs[0].read_bytes() == outputs[1].read_bytes()
    traces = [o.with_suffix(".trace.csv") for o in outputs]
    assert traces[0].read_bytes() == traces[1].read_bytes()
    trace = pd.read_csv(traces[1], keep_default_na=False)
    across = trace.reason.str.extract(r"kept earlier for row (\d+)", expand=False).dropna().astype(int)
    rows = trace.source[across.index].astype(int)
    assert ((rows // 40) > (across // 40)).sum() >= 3  # drops against outputs of an earlier chunk
    in_memory = augkit.augment(read_table(small), METHOD, n=3, seed=37, label_column="label")
    assert read_table(outputs[1])["text"].tolist() == in_memory["text"].tolist()


@pytest.mark.slow
def test_a_killed_job_resumes_remembering_the_outputs_of_its_done_chunks(tmp_path, banking_csv, wait_for_chunks):
    reference = tmp_path / "reference.csv"
    assert main(["augment", *_arguments(banking_csv, reference, 50)]) == 0

    output = tmp_path / "out.csv"
    job = tmp_path / ".out.csv.augkit-job"
    command = [sys.executable, "-m", "augkit.cli", "augment", *_arguments(banking_csv, output, 50)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_chunks(job, 4, process)
    process.send_signal(signal.SIGKILL)
    process.wait()
    done = len(list(job.glob("chunk-*.json")))
    assert not output.exists() and 4 <= done < 30

    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert output.read_bytes() == reference.read_bytes()
    assert output.with_suffix(".trace.csv").read_bytes() == reference.with_suffix(".trace.csv").read_bytes()


def test_the_ray_backend_is_refused_before_any_work(tmp_path, banking_csv, capsys):
    output = tmp_path / "out.csv"
    assert main(["augment", *_arguments(banking_csv, output, 100), "--backend", "ray"]) == 2
    assert "Ray augments each chunk's blocks in parallel actors" in capsys.readouterr().err
    assert not output.exists() and not (tmp_path / ".out.csv.augkit-job").exists()
