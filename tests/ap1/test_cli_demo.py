"""`apconform ap1 ...` end to end, and the demo step."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from process_support import in_the_background, stop

from apconform.ap1.mock import MockEndpoint
from apconform.cli import main

from .runs import example_inputs


def test_seal_run_and_verify_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    with MockEndpoint(example_inputs(), seed=1) as mock:
        args = ["ap1", "run", "--example", "--endpoint", mock.url, "--model", "mock-correct"]
        assert main([*args, "--output-dir", str(run_dir), "--concurrency", "8"]) == 0
        out = capsys.readouterr().out
        assert f"sealed {run_dir}: seal " in out
        assert f"{run_dir}: 204/204 cells recorded (204 now)" in out
        assert main(["ap1", "run", "--output-dir", str(run_dir)]) == 2
        assert "AP1-TRANSCRIPT-EXISTS" in capsys.readouterr().err
        assert main(["ap1", "run", "--resume", str(run_dir)]) == 0
        assert "already complete" in capsys.readouterr().out
    assert main(["ap1", "verify-seal", str(run_dir)]) == 0
    assert capsys.readouterr().out.endswith("verifies\n")
    assert main(["ap1", "verify-transcript", str(run_dir)]) == 0
    assert "206 records, 204 of 204 cells, finished; chain verifies" in capsys.readouterr().out


def test_one_edited_byte_is_named_by_verify_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    with MockEndpoint(example_inputs(), seed=1) as mock:
        assert (
            main(
                [
                    "ap1",
                    "run",
                    "--example",
                    "--endpoint",
                    mock.url,
                    "--model",
                    "mock-no-tool",
                    "--output-dir",
                    str(run_dir),
                ]
            )
            == 0
        )
    capsys.readouterr()
    path = run_dir / "transcript.jsonl"
    data = bytearray(path.read_bytes())
    lines = data.split(b"\n")
    target = 57  # line 58: one execution record
    offset = (
        sum(len(line) + 1 for line in lines[:target]) + lines[target].index(b"The answer is ") + 14
    )
    data[offset] = ord("9") if data[offset] != ord("9") else ord("8")
    path.write_bytes(bytes(data))
    seq = json.loads(lines[target])["seq"]
    assert main(["ap1", "verify-transcript", str(run_dir)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        f"line 58 (seq {seq}): edited: the record's content does not match its sha256; "
        "the record was edited\n"
    )
    assert main(["ap1", "verify-transcript", str(run_dir), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["problems"] == [
        {
            "line": 58,
            "seq": seq,
            "kind": "edited",
            "message": "the record's content does not match its sha256; the record was edited",
        }
    ]


def test_verify_seal_names_each_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    assert main(["ap1", "seal", "--example", "--output-dir", str(run_dir)]) == 0
    config = run_dir / "inputs/config.json"
    config.write_text(config.read_text().replace('"repeats": "2"', '"repeats": "3"'))
    capsys.readouterr()
    assert main(["ap1", "verify-seal", str(run_dir), "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["component"] for f in findings if f["fatal"]] == ["inputs.config", "plan"]


@pytest.mark.parametrize(
    "argv",
    [
        ["ap1", "run"],
        ["ap1", "run", "--resume", "x", "--model", "m"],
        ["ap1", "seal", "--output-dir", "x"],
        ["ap1", "run", "--output-dir", "x", "--concurrency", "0"],
        ["ap1", "run", "--output-dir", "x", "--inputs", "y"],
    ],
)
def test_usage_errors_exit_2_without_a_traceback(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error APC-USAGE") and "Traceback" not in err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_serve_mock_serves_until_interrupted(how: signal.Signals) -> None:
    """Ctrl-C or `kill PID` stops it cleanly, even when it was started with SIGINT ignored
    (a script's background job, `nohup ... &`, many CI runners), as `apconform serve` does."""
    repo = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "apconform.cli", "ap1", "serve-mock", "--port", "0"]
    proc = subprocess.Popen(
        in_the_background([*command, "--seed", "2"]),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()
        url = first.split(" on ")[1].split(" ")[0]
        assert url.startswith("http://127.0.0.1:")
        models = requests.get(url.replace("chat/completions", "models"), timeout=5).json()
        assert len(models["data"]) == 11  # ten personas and mock-mixed
    finally:
        status = stop(proc, how)
    assert status == 0
    assert proc.stdout.read().decode().endswith("stopped\n")
